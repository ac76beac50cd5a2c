/**
 * `npm run bench:hops`: what the mesh's shape costs at c=1 before any mesh code runs. The naive
 * peer answers HTTP in the process that runs the model; the mesh adds a gRPC call from router to
 * host and a hand-off from the host's event loop to its ORT worker thread and back. This times
 * bare versions of those hops on this machine (no tokenizer, no model, no framework), so the c=1
 * "added latency" of docs/benchmarks/router.md can be split into the floor set by the topology
 * and what the mesh's own code adds. Writes docs/benchmarks/router-hops.{json,md}.
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
import { latencyStats, round } from './bench-measure';

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
};

type Role = 'http-echo' | 'grpc-echo' | 'http-to-grpc' | 'grpc-worker-echo';

/** A child process playing one role; it prints its port on stdout-less IPC. */
async function serve(role: Role, upstream?: string): Promise<number> {
  if (role === 'grpc-echo' || role === 'grpc-worker-echo') {
    const server = new grpc.Server();
    const worker =
      role === 'grpc-worker-echo'
        ? new Worker(
            'const { parentPort } = require("node:worker_threads"); parentPort.on("message", (m) => parentPort.postMessage(m, [m.buffer]));',
            { eval: true },
          )
        : undefined;
    const waiting: ((b: Buffer) => void)[] = [];
    worker?.on('message', (m: Uint8Array) => waiting.shift()?.(Buffer.from(m.buffer)));
    server.addService(
      { Echo: passthrough },
      {
        Echo: (call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) => {
          if (!worker) return done(null, call.request);
          const copy = new Uint8Array(call.request);
          waiting.push((b) => done(null, b));
          worker.postMessage(copy, [copy.buffer]);
        },
      },
    );
    return new Promise((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) =>
        err ? reject(err) : resolve(port),
      ),
    );
  }
  const Client = grpc.makeGenericClientConstructor({ Echo: passthrough }, 'Echo');
  const client = upstream
    ? (new Client(upstream, grpc.credentials.createInsecure()) as unknown as EchoClient)
    : undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (!client) {
        res.end(body);
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

function start(role: Role, upstream?: string): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(__filename, ['--role', role, ...(upstream ? [upstream] : [])], {
    execArgv: process.execArgv,
  });
  return new Promise((resolve, reject) => {
    child.once('message', (port: number) => resolve({ child, port }));
    child.once('exit', (code) => reject(new Error(`${role} exited with ${code}`)));
  });
}

/** c=1 closed loop of `n` requests after a warm-up; returns the latency percentiles, ms. */
async function timeLoop(
  n: number,
  shot: () => Promise<void>,
): Promise<ReturnType<typeof latencyStats>> {
  for (let i = 0; i < Math.min(500, n); i++) await shot();
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

async function main(): Promise<void> {
  const n = process.argv.includes('--quick') ? 2000 : 10000;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const children: ChildProcess[] = [];
  try {
    const httpEcho = await start('http-echo');
    const grpcEcho = await start('grpc-echo');
    const grpcWorker = await start('grpc-worker-echo');
    children.push(httpEcho.child, grpcEcho.child, grpcWorker.child);
    const viaGrpc = await start('http-to-grpc', `127.0.0.1:${grpcEcho.port}`);
    const viaWorker = await start('http-to-grpc', `127.0.0.1:${grpcWorker.port}`);
    children.push(viaGrpc.child, viaWorker.child);
    const arms = {
      'HTTP echo (the peer’s hop)': httpShot(httpEcho.port, agent),
      'HTTP → gRPC echo (router → host)': httpShot(viaGrpc.port, agent),
      'HTTP → gRPC → worker thread echo (router → host → ORT worker)': httpShot(
        viaWorker.port,
        agent,
      ),
    };
    const results: Record<string, ReturnType<typeof latencyStats>> = {};
    // Interleaved rounds, median of 3, so a burst of other work hits every arm alike.
    const rounds: Record<string, ReturnType<typeof latencyStats>[]> = {};
    for (let r = 0; r < 3; r++) {
      for (const [name, shot] of Object.entries(arms)) {
        (rounds[name] ??= []).push(await timeLoop(n, shot));
      }
    }
    for (const [name, rs] of Object.entries(rounds)) {
      results[name] = [...rs].sort((a, b) => a.p50 - b.p50)[1]!;
    }
    const base = results['HTTP echo (the peer’s hop)']!.p50;
    const report = {
      date: new Date().toISOString(),
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      load: loadavg().map((x) => round(x, 2)),
      requests: n,
      payloadBytes: PAYLOAD.length,
      results,
      addedP50OverPeerHop: Object.fromEntries(
        Object.entries(results).map(([k, v]) => [k, round(v.p50 - base, 3)]),
      ),
    };
    const out = join(ROOT, 'docs', 'benchmarks');
    writeFileSync(join(out, 'router-hops.json'), `${JSON.stringify(report, null, 2)}\n`);
    const md = [
      '# The topology’s floor at c=1 (bare hops, no mesh code)',
      '',
      `Machine: ${report.cores} cores, ${report.cpu}; load ${report.load.join(' ')}. Run ${report.date}; ${n} requests per arm after a warm-up, c=1, ${PAYLOAD.length}-byte bodies, keep-alive; median of 3 interleaved rounds (\`npm run bench:hops\`).`,
      '',
      '| path | p50 ms | p90 ms | p99 ms | p50 added over the peer’s single HTTP hop |',
      '|---|---|---|---|---|',
      ...Object.entries(results).map(
        ([k, v]) =>
          `| ${k} | ${v.p50} | ${v.p90} | ${v.p99} | ${report.addedP50OverPeerHop[k]} ms |`,
      ),
      '',
      'Each arm is separate Node processes on loopback: a bare `node:http` server, a bare',
      '`@grpc/grpc-js` unary service with pass-through serialisation, and an HTTP server that calls',
      'it; the last arm also passes the body to a worker thread and back (transferred, not copied),',
      'as the model host does with its ORT workers. The difference between the last arm and the',
      'first is what the mesh’s process layout costs a lone request before tokenising, routing,',
      'validation or inference; see router.md for the measured total.',
      '',
    ].join('\n');
    writeFileSync(join(out, 'router-hops.md'), md);
    console.log(md);
  } finally {
    agent.destroy();
    for (const c of children) c.kill('SIGKILL');
  }
}

const roleAt = process.argv.indexOf('--role');
if (roleAt >= 0) {
  void serve(process.argv[roleAt + 1] as Role, process.argv[roleAt + 2]).then((port) =>
    process.send?.(port),
  );
} else {
  main().catch((err: unknown) => {
    console.error('bench:hops failed:', err);
    process.exit(1);
  });
}
