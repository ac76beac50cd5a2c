/**
 * `npm run bench:hops`: what the mesh's shape costs at c=1 before any mesh code runs. The naive
 * peer answers HTTP in the process that runs the model; the mesh adds a gRPC call from router to
 * host and a hand-off from the host's event loop to its ORT worker thread and back. This times
 * bare versions of those hops on this machine (no tokenizer, no model, no framework), so the c=1
 * "added latency" of docs/benchmarks/router.md can be split into the floor set by the topology
 * and what the mesh's own code adds. Each path runs twice: answered at once, and held — the end
 * that would run the model computes for `--hold-ms` (default 9, a lone inference of the bench
 * model) before answering, so the other processes go idle and must wake up again, as they do
 * around a real inference. Writes docs/benchmarks/router-hops.{json,md} (`--name` for
 * another file name, e.g. a run on another CPU).
 */
import * as grpc from '@grpc/grpc-js';
import { fork, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { UsageError, parseCliArgs } from '../../scripts/cli-args';
import { eventLoopSplit, latencyStats, round } from './bench-measure';

const ROOT = join(__dirname, '..', '..');
const PAYLOAD = Buffer.alloc(512, 7); // about the size of a tokenized request and its answer
const passthrough = {
  path: '/bench.Echo/Echo',
  requestStream: false,
  responseStream: false,
  requestSerialize: (b: Buffer) => b,
  requestDeserialize: (b: Buffer) => b,
  responseSerialize: (b: Buffer) => b,
  responseDeserialize: (b: Buffer) => b,
} as const;

type EchoClient = grpc.Client & {
  Echo(body: Buffer, done: (err: grpc.ServiceError | null, out?: Buffer) => void): void;
  EchoStream(): grpc.ClientDuplexStream<Buffer, Buffer>;
};

type Role =
  | 'http-echo'
  | 'grpc-echo'
  | 'http-to-grpc'
  | 'grpc-worker-echo'
  | 'http-to-grpc-stream'
  | 'grpc-stream-to-grpc-stream';

/** The same echo as a bidirectional stream: one long-lived call carries every request. */
const streamed = {
  ...passthrough,
  path: '/bench.Echo/EchoStream',
  requestStream: true,
  responseStream: true,
} as const;

/** The echo service: a unary call per request, or one long-lived stream for all of them. */
const ECHO_SERVICE = { Echo: passthrough, EchoStream: streamed };

function echoClient(address: string): EchoClient {
  const Client = grpc.makeGenericClientConstructor(ECHO_SERVICE, 'Echo');
  return new Client(address, grpc.credentials.createInsecure()) as unknown as EchoClient;
}

/** Serves `impl` on a free loopback port; resolves with the port. */
function serveEcho(impl: grpc.UntypedServiceImplementation): Promise<number> {
  const server = new grpc.Server();
  server.addService(ECHO_SERVICE, impl);
  return new Promise((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) =>
      err ? reject(err) : resolve(port),
    ),
  );
}

/** Keeps this thread busy for `ms`, as a model run holds its core (a sleep would not). */
function compute(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** A child process playing one role; it prints its port on stdout-less IPC. */
async function serve(role: Role, holdMs: number, upstream?: string): Promise<number> {
  if (role === 'grpc-echo' || role === 'grpc-worker-echo') {
    const worker =
      role === 'grpc-worker-echo'
        ? new Worker(
            `const { parentPort } = require("node:worker_threads");
             parentPort.on("message", (m) => {
               const until = performance.now() + ${holdMs};
               while (performance.now() < until);
               parentPort.postMessage(m, [m.buffer]);
             });`,
            { eval: true },
          )
        : undefined;
    const waiting: ((b: Buffer) => void)[] = [];
    worker?.on('message', (m: Uint8Array) => waiting.shift()?.(Buffer.from(m.buffer)));
    return serveEcho({
      // Answers in order (one worker, FIFO), so the caller pairs answers with requests by order.
      EchoStream: (call: grpc.ServerDuplexStream<Buffer, Buffer>) => {
        call.on('data', (b: Buffer) => {
          if (!worker) {
            compute(holdMs);
            call.write(b);
            return;
          }
          const copy = new Uint8Array(b);
          waiting.push((out) => call.write(out));
          worker.postMessage(copy, [copy.buffer]);
        });
        call.on('end', () => call.end());
      },
      Echo: (call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) => {
        if (!worker) {
          compute(holdMs);
          return done(null, call.request);
        }
        const copy = new Uint8Array(call.request);
        waiting.push((b) => done(null, b));
        worker.postMessage(copy, [copy.buffer]);
      },
    });
  }
  const client = upstream ? echoClient(upstream) : undefined;
  const answers: ((b: Buffer) => void)[] = [];
  const stream = role !== 'http-to-grpc' && client ? client.EchoStream() : undefined;
  stream?.on('data', (b: Buffer) => answers.shift()?.(b));
  if (role === 'grpc-stream-to-grpc-stream' && stream) {
    // The router's place on PredictStream's path: a stream in from the caller, a stream out.
    return serveEcho({
      Echo: (_call: unknown, done: grpc.sendUnaryData<Buffer>) =>
        done({ code: grpc.status.UNIMPLEMENTED }),
      EchoStream: (call: grpc.ServerDuplexStream<Buffer, Buffer>) => {
        call.on('data', (b: Buffer) => {
          answers.push((out) => call.write(out));
          stream.write(b);
        });
        call.on('end', () => call.end());
      },
    });
  }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (!client) {
        compute(holdMs);
        res.end(body);
        return;
      }
      if (stream) {
        answers.push((out) => res.end(out));
        stream.write(body);
        return;
      }
      client.Echo(body, (err, out) => {
        res.statusCode = err ? 502 : 200;
        res.end(out ?? '');
      });
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

function start(
  role: Role,
  holdMs: number,
  upstream?: string,
): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(
    __filename,
    ['--role', role, String(holdMs), ...(upstream ? [upstream] : [])],
    {
      execArgv: process.execArgv,
    },
  );
  return new Promise((resolve, reject) => {
    child.once('message', (port: number) => resolve({ child, port }));
    child.once('exit', (code) => reject(new Error(`${role} exited with ${code}`)));
  });
}

/** The event loop's and the other threads' CPU time of a process, ms. */
function threadCpuMs(pid: number): { main: number; others: number } {
  const { main, others } = eventLoopSplit(pid);
  return { main: main * 1000, others: others * 1000 };
}

/** Requests a closed loop of `n` sends before it starts timing. */
const warmupOf = (n: number) => Math.min(500, n);

/** c=1 closed loop of `n` requests after a warm-up; returns the latency percentiles, ms. */
async function timeLoop(
  n: number,
  shot: () => Promise<void>,
): Promise<ReturnType<typeof latencyStats>> {
  for (let i = 0; i < warmupOf(n); i++) await shot();
  const lat: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await shot();
    lat.push(performance.now() - t0);
  }
  const s = latencyStats(lat);
  return { p50: round(s.p50, 3), p90: round(s.p90, 3), p95: round(s.p95, 3), p99: round(s.p99, 3) };
}

function httpShot(port: number, agent: Agent): () => Promise<void> {
  return () =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/', agent }, (res) => {
        res.on('data', () => undefined);
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error('status'))));
      });
      req.on('error', reject);
      req.end(PAYLOAD);
    });
}

/** One long-lived call from the client: each shot writes a body and waits for its echo. */
function grpcStreamShot(port: number, clients: grpc.Client[]): () => Promise<void> {
  const client = echoClient(`127.0.0.1:${port}`);
  clients.push(client);
  const call = client.EchoStream();
  const waiting: { resolve: () => void; reject: (err: Error) => void }[] = [];
  call.on('data', () => waiting.shift()?.resolve());
  call.on('error', (err: Error) => {
    for (const w of waiting.splice(0)) w.reject(err);
  });
  return () =>
    new Promise((resolve, reject) => {
      waiting.push({ resolve, reject });
      call.write(PAYLOAD);
    });
}

const PATHS = {
  http: 'HTTP echo (the peer’s hop)',
  grpc: 'HTTP → gRPC echo (router → host)',
  worker: 'HTTP → gRPC → worker thread echo (router → host → ORT worker)',
  stream: 'the same over one long-lived gRPC bidirectional stream instead of a call per request',
  grpcStream:
    'gRPC stream → gRPC stream → worker thread echo (a PredictStream caller → router → host → ORT worker)',
} as const;

/** Paths whose caller speaks gRPC over one long-lived stream instead of HTTP. */
const GRPC_CALLER: ReadonlySet<keyof typeof PATHS> = new Set(['grpcStream']);

/** A path's port and the processes on it: the one the client calls, and the gRPC end behind it. */
interface PathProcs {
  port: number;
  front: number;
  back?: number;
}

/** The paths with their answering end holding `holdMs` (0: answered at once). */
async function startPaths(
  holdMs: number,
  children: ChildProcess[],
): Promise<Record<keyof typeof PATHS, PathProcs>> {
  const httpEcho = await start('http-echo', holdMs);
  const grpcEcho = await start('grpc-echo', holdMs);
  const grpcWorker = await start('grpc-worker-echo', holdMs);
  children.push(httpEcho.child, grpcEcho.child, grpcWorker.child);
  const viaGrpc = await start('http-to-grpc', 0, `127.0.0.1:${grpcEcho.port}`);
  const viaWorker = await start('http-to-grpc', 0, `127.0.0.1:${grpcWorker.port}`);
  const viaStream = await start('http-to-grpc-stream', 0, `127.0.0.1:${grpcWorker.port}`);
  const streamToStream = await start(
    'grpc-stream-to-grpc-stream',
    0,
    `127.0.0.1:${grpcWorker.port}`,
  );
  children.push(viaGrpc.child, viaWorker.child, viaStream.child, streamToStream.child);
  const pid = (c: ChildProcess) => c.pid ?? 0;
  return {
    http: { port: httpEcho.port, front: pid(httpEcho.child) },
    grpc: { port: viaGrpc.port, front: pid(viaGrpc.child), back: pid(grpcEcho.child) },
    worker: { port: viaWorker.port, front: pid(viaWorker.child), back: pid(grpcWorker.child) },
    stream: { port: viaStream.port, front: pid(viaStream.child), back: pid(grpcWorker.child) },
    grpcStream: {
      port: streamToStream.port,
      front: pid(streamToStream.child),
      back: pid(grpcWorker.child),
    },
  };
}

/** CPU-ms per request of a path's threads over one arm's requests (the hold included). */
interface PathCpu {
  /** The process the client calls (the peer itself, or the router's place), main thread. */
  front: number;
  /** The gRPC end (the model host's place): its event loop, and its other threads. */
  backMain?: number;
  backOthers?: number;
}

/**
 * CPU one wake-up from idle costs this process: it sleeps 16 ms on a timer `n` times. On bare
 * metal that is a few microseconds; a virtual machine that halts idle vCPUs charges much more,
 * and every idle process on a request's path pays it once per request at c=1.
 */
async function wakeCostMs(n = 200): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) await new Promise((r) => setTimeout(r, 16));
  const used = process.cpuUsage(before);
  return round((used.user + used.system) / 1000 / n, 3);
}

function holdLabel(path: string, holdMs: number): string {
  return holdMs > 0 ? `${path}, answering end computes ${holdMs} ms` : path;
}

/**
 * The bench's flags, or (`--role ROLE HOLD_MS [UPSTREAM]`) one of the processes it forks:
 * strict, so an unknown flag or a missing value is refused, naming it.
 */
const cli = parseCliArgs({
  args: process.argv.slice(2),
  options: {
    quick: { type: 'boolean' },
    'hold-ms': { type: 'string' },
    name: { type: 'string' },
    role: { type: 'string' },
  },
  allowPositionals: true,
});

async function main(): Promise<void> {
  const flags = cli.values;
  if (cli.positionals.length > 0) {
    throw new UsageError(`Unexpected argument '${cli.positionals[0]}'`);
  }
  const quick = flags.quick ?? false;
  const hold = Number(flags['hold-ms'] ?? 9);
  const n = quick ? 2000 : 10000;
  const name = flags.name ?? 'router-hops';
  // Held requests take `hold` ms each: fewer of them, so the command stays short.
  const nHeld = Math.max(200, Math.round(n / 10));
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const children: ChildProcess[] = [];
  const clients: grpc.Client[] = [];
  try {
    const wakeMs = await wakeCostMs();
    const bare = await startPaths(0, children);
    const held = hold > 0 ? await startPaths(hold, children) : undefined;
    const arms: Record<string, { shot: () => Promise<void>; n: number; procs: PathProcs }> = {};
    const shotOf = (k: keyof typeof PATHS, port: number) =>
      GRPC_CALLER.has(k) ? grpcStreamShot(port, clients) : httpShot(port, agent);
    for (const [k, label] of Object.entries(PATHS) as [keyof typeof PATHS, string][]) {
      arms[label] = { shot: shotOf(k, bare[k].port), n, procs: bare[k] };
    }
    if (held) {
      for (const [k, label] of Object.entries(PATHS) as [keyof typeof PATHS, string][]) {
        arms[holdLabel(label, hold)] = { shot: shotOf(k, held[k].port), n: nHeld, procs: held[k] };
      }
    }
    const results: Record<string, ReturnType<typeof latencyStats>> = {};
    // Interleaved rounds, median of 3, so a burst of other work hits every arm alike.
    const rounds: Record<string, ReturnType<typeof latencyStats>[]> = {};
    const spent: Record<string, { front: number; backMain: number; backOthers: number }> = {};
    const sent: Record<string, number> = {};
    for (let r = 0; r < 3; r++) {
      for (const [name, arm] of Object.entries(arms)) {
        const { front, back } = arm.procs;
        const f0 = threadCpuMs(front);
        const b0 = back ? threadCpuMs(back) : undefined;
        (rounds[name] ??= []).push(await timeLoop(arm.n, arm.shot));
        const f1 = threadCpuMs(front);
        const b1 = back ? threadCpuMs(back) : undefined;
        const acc = (spent[name] ??= { front: 0, backMain: 0, backOthers: 0 });
        acc.front += f1.main - f0.main;
        if (b0 && b1) {
          acc.backMain += b1.main - b0.main;
          acc.backOthers += b1.others - b0.others;
        }
        sent[name] = (sent[name] ?? 0) + arm.n + warmupOf(arm.n);
      }
    }
    for (const [name, rs] of Object.entries(rounds)) {
      results[name] = [...rs].sort((a, b) => a.p50 - b.p50)[1]!;
    }
    const cpu: Record<string, PathCpu> = {};
    for (const [name, acc] of Object.entries(spent)) {
      const per = (ms: number) => round(ms / sent[name]!, 3);
      cpu[name] = arms[name]!.procs.back
        ? { front: per(acc.front), backMain: per(acc.backMain), backOthers: per(acc.backOthers) }
        : { front: per(acc.front) };
    }
    // Each path against the peer's hop under the same hold.
    const baseOf = (name: string) =>
      results[name.includes('computes') ? holdLabel(PATHS.http, hold) : PATHS.http]!.p50;
    const report = {
      date: new Date().toISOString(),
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      load: loadavg().map((x) => round(x, 2)),
      requests: n,
      heldRequests: nHeld,
      cpuMsPerIdleWake: wakeMs,
      holdMs: hold,
      payloadBytes: PAYLOAD.length,
      results,
      cpuMsPerRequest: cpu,
      addedP50OverPeerHop: Object.fromEntries(
        Object.entries(results).map(([k, v]) => [k, round(v.p50 - baseOf(k), 3)]),
      ),
    };
    const out = join(ROOT, 'docs', 'benchmarks');
    writeFileSync(join(out, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
    const md = [
      '# The topology’s floor at c=1 (bare hops, no mesh code)',
      '',
      `Machine: ${report.cores} cores, ${report.cpu}; load ${report.load.join(' ')}. Run ${report.date}; ${n} requests per arm (${nHeld} per held arm) after a warm-up, c=1, ${PAYLOAD.length}-byte bodies, keep-alive; median of 3 interleaved rounds (\`npm run bench:hops\`).`,
      '',
      '| path | p50 ms | p90 ms | p99 ms | p50 added over the peer’s single HTTP hop (same hold) | CPU-ms per request: calling process’s main thread; gRPC end’s main thread + other threads |',
      '|---|---|---|---|---|---|',
      ...Object.entries(results).map(([k, v]) => {
        const c = cpu[k]!;
        const back = c.backMain === undefined ? '—' : `${c.backMain} + ${c.backOthers}`;
        return `| ${k} | ${v.p50} | ${v.p90} | ${v.p99} | ${report.addedP50OverPeerHop[k]} ms | ${c.front}; ${back} |`;
      }),
      '',
      'Each arm is separate Node processes on loopback: a bare `node:http` server, a bare',
      '`@grpc/grpc-js` unary service with pass-through serialisation, and an HTTP server that calls',
      'it; the third arm also passes the body to a worker thread and back (transferred, not copied),',
      'as the model host does with its ORT workers. The difference between that arm and the first',
      'is what the mesh’s process layout costs a lone request before tokenising, routing,',
      'validation or inference; see router.md for the measured total. The fourth arm is the third',
      'with every request on one long-lived bidirectional stream instead of a unary call each, as',
      'the router sends a lone inference (`KSERVE_LONE_STREAM`, ADR 0014). The fifth is that stream',
      'behind a caller that itself speaks gRPC over one long-lived stream (a `PredictStream` client,',
      'the router in the middle); its added p50 is still over the peer’s HTTP hop, as the gRPC goal',
      'of router.md counts it.',
      '',
      'The CPU columns are each thread’s run time from the scheduler (`/proc/<pid>/task/*/schedstat`)',
      'over every request of the arm, warm-up included. In the held arms they include the hold',
      'itself: the peer’s main thread and the gRPC end’s threads (its main thread without a worker,',
      'its worker thread with one) each run it once per request. The gRPC end’s main thread in the',
      'worker arms is the floor of what the model host’s event loop spends on a lone request.',
      '',
      `Waking from idle costs a process ${wakeMs} CPU-ms on this machine (a 16 ms timer, 200 times).`,
      '',
      `In the held arms the end that would run the model keeps its thread busy for ${hold} ms before`,
      'answering (the HTTP server itself for the peer’s hop, the gRPC server or its worker thread',
      'for the others), so every other process on the path goes idle meanwhile and has to be woken',
      'by the answer, as around a real inference. Where waking an idle thread is expensive (a',
      'virtual machine that halts idle vCPUs), this floor is higher than the answered-at-once one.',
      '',
    ].join('\n');
    writeFileSync(join(out, `${name}.md`), md);
    console.log(md);
  } finally {
    for (const c of clients) c.close();
    agent.destroy();
    for (const c of children) c.kill('SIGKILL');
  }
}

if (cli.values.role !== undefined) {
  const [holdMs, upstream] = cli.positionals;
  void serve(cli.values.role as Role, Number(holdMs), upstream).then((port) =>
    process.send?.(port),
  );
} else {
  main().catch((err: unknown) => {
    console.error('bench:hops failed:', err);
    process.exit(1);
  });
}
