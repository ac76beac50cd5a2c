/**
 * `npm run bench:host-cost [-- --mix short,mixed --concurrency 1,32 --seconds 8 --rounds 1
 * --stream --floor --raw-batches 1,8,16 --raw-threads 2 --raw-spin --raw-window 256
 * --instances 2 --param key=value ... --env KEY=VALUE ... --cpu-prof DIR --root OTHER_CHECKOUT
 * --threads --node-arg FLAG ...]`: where the model host's CPU per item goes, without the router
 * in the way.
 *
 * - **The host.** Starts the built host on the router benchmark's model (intent-zh v2 of
 *   .bench-models, one 1-thread instance per core, dispatch_when_idle), sends each corpus text
 *   pre-tokenized to its own length over gRPC from `c` closed loops (unary ModelInfer calls, or
 *   with `--stream` one ModelStreamInfer call per loop, as the router sends a lone request), and
 *   prints per point: items/s, the host's CPU-ms per item split by thread (event loop, ORT
 *   workers, the rest), the batch sizes the batcher formed and their mean ORT time, and the
 *   padding the batches carried. Before the load it measures the host's idle CPU.
 * - **The floor** (`--floor`): bare-ort.server, the least a Node server speaking the same
 *   protocol does with inference off its event loop, gets the same requests, alternating with
 *   the host (`--rounds`): at c=1 on one worker thread with the lone-batch session's shape and
 *   on its event loop; under load batching whatever waits on one worker per instance.
 * - **Raw ORT** (`--raw-batches`): one session in this process, batches cut in arrival order and
 *   sorted by length within windows of `--raw-window` items, run back to back: the reference for
 *   "host CPU per item ≤ 1.1 × raw at the same batch size". One thread unless `--raw-threads`;
 *   `--raw-threads 2 --raw-spin` is the lone-batch session's shape, the one a c=1 host runs.
 *   With `--floor` at c=1, raw b1 also runs in every round, after host and floor, and each
 *   round prints host and floor ÷ raw: the machine drifts between rounds.
 *
 * `--threads` lists every thread's CPU per item; `--node-arg` (one flag each, e.g.
 * `--node-arg --single-threaded-gc`) passes flags to the host's node.
 */
import * as grpc from '@grpc/grpc-js';
import { loadInferencePackage } from '@mesh/kserve';
import { samplesNamed } from '../../libs/telemetry/src/testing/prometheus-text';
import { parseCliArgs } from '../../scripts/cli-args';
import * as ort from 'onnxruntime-node';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { buildCorpus, type TextMix } from '../router/bench-corpus';
import { latencyStats, threadCpu, threadSched } from '../router/bench-measure';
import { loadBenchModel, type BenchModel } from '../router/bench-model.loader';
import {
  startBenchHost,
  startProcess,
  waitReady,
  ROOT,
  type BenchProcess,
} from '../router/bench-processes';
import { ensureBuiltAndGenerated, repositoryVariant } from '../router/bench-setup';
import { summariseProfile, type SampleWindow } from '../router/cpu-profile.summary';
import { createSession } from './bare-ort.session';

const MODEL = 'intent-zh';
const VERSION = '2';

interface Row {
  ids: BigInt64Array;
  length: number;
}

/** `--node-arg --flag` as `--node-arg=--flag`: parseArgs would take a value that is a flag for one. */
function joinNodeArgs(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const next = argv[i + 1];
    if (argv[i] === '--node-arg' && next !== undefined) out.push(`--node-arg=${argv[++i]}`);
    else out.push(argv[i]!);
  }
  return out;
}

function args(argv: string[]) {
  const { values: v } = parseCliArgs({
    args: joinNodeArgs(argv),
    options: {
      mix: { type: 'string' },
      concurrency: { type: 'string' },
      seconds: { type: 'string' },
      'raw-batches': { type: 'string' },
      'raw-seconds': { type: 'string' },
      'raw-threads': { type: 'string' },
      'raw-spin': { type: 'boolean' },
      'raw-window': { type: 'string' },
      instances: { type: 'string' },
      param: { type: 'string', multiple: true },
      env: { type: 'string', multiple: true },
      'node-arg': { type: 'string', multiple: true },
      'cpu-prof': { type: 'string' },
      models: { type: 'string' },
      root: { type: 'string' },
      stream: { type: 'boolean' },
      floor: { type: 'boolean' },
      rounds: { type: 'string' },
      threads: { type: 'boolean' },
    },
  });
  const pairs = (all: string[] = []) =>
    Object.fromEntries(all.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
  return {
    mixes: (v.mix ?? 'short,mixed').split(',') as TextMix[],
    levels: (v.concurrency ?? '1,32').split(',').map(Number),
    seconds: Number(v.seconds ?? 8),
    rawBatches: (v['raw-batches'] ?? '').split(',').filter(Boolean).map(Number),
    rawSeconds: Number(v['raw-seconds'] ?? 4),
    /** The raw session's intra-op threads and spinning: `--raw-threads 2 --raw-spin` is the lone session's shape. */
    rawThreads: Number(v['raw-threads'] ?? 1),
    rawSpin: v['raw-spin'] ?? false,
    /**
     * How many items a sorted batch is cut from (default 256). A closed loop of `c` never has
     * more than `c` requests waiting, so `--raw-window 32` is the best a host at c=32 could form.
     */
    rawWindow: Number(v['raw-window'] ?? 256),
    instances: Number(v.instances ?? availableParallelism()),
    params: { dispatch_when_idle: 'true', ...pairs(v.param) },
    env: pairs(v.env),
    /** Flags for node itself, e.g. V8 GC flags that NODE_OPTIONS refuses. */
    nodeArgs: v['node-arg'] ?? [],
    cpuProf: v['cpu-prof'],
    models: v.models ?? join(ROOT, '.bench-models'),
    /** Another checkout whose built host to measure (e.g. the main branch, for a before/after). */
    root: v.root ?? ROOT,
    /** Drive both ends over ModelStreamInfer, one stream per loop (the router's lone path). */
    stream: v.stream ?? false,
    /** Also time the bare floor (bare-ort.server), alternating with the host. */
    floor: v.floor ?? false,
    rounds: Number(v.rounds ?? 1),
    /** `--threads`: list every thread's CPU per item. */
    threads: v.threads ?? false,
  };
}

function diff(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
    out[k] = (b[k] ?? 0) - (a[k] ?? 0);
  return out;
}

const r2 = (n: number) => Math.round(n * 100) / 100;

/** Measured windows (monotonic µs), to cut start-up and idle time out of CPU profiles. */
const windows: SampleWindow[] = [];

interface BatchStat {
  batch_size: string;
  compute_infer: { count: string; ns: string };
}

async function batchStats(http: string): Promise<Map<number, { count: number; ns: number }>> {
  const res = await fetch(`${http}/v2/models/${MODEL}/versions/${VERSION}/stats`);
  const body = (await res.json()) as { model_stats: { batch_stats?: BatchStat[] }[] };
  const out = new Map<number, { count: number; ns: number }>();
  for (const b of body.model_stats[0]?.batch_stats ?? []) {
    out.set(Number(b.batch_size), {
      count: Number(b.compute_infer.count),
      ns: Number(b.compute_infer.ns),
    });
  }
  return out;
}

/** Padded and real elements of the host's batches, from its metrics. */
async function padding(metrics: string): Promise<{ padded: number; real: number }> {
  const text = await (await fetch(`${metrics}/metrics`)).text();
  const read = (kind: string) =>
    samplesNamed(text, 'mesh_host_batch_elements_total', {
      kind,
      model: MODEL,
      version: VERSION,
    })[0]?.value ?? NaN;
  return { padded: read('padded'), real: read('real') };
}

function tokenize(model: BenchModel, corpus: string[]): Row[] {
  return corpus.map((text) => {
    const enc = model.pre.encode([{ text }]);
    return { ids: enc.inputIds.data, length: enc.inputIds.shape[1] ?? 0 };
  });
}

function request(row: Row) {
  const ones = new BigInt64Array(row.length).fill(1n);
  const zeros = new BigInt64Array(row.length);
  const b = (a: BigInt64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  return {
    model_name: MODEL,
    model_version: VERSION,
    inputs: ['input_ids', 'attention_mask', 'token_type_ids'].map((name) => ({
      name,
      datatype: 'INT64',
      shape: [1, row.length],
    })),
    raw_input_contents: [b(row.ids), b(ones), b(zeros)],
  };
}

type InferClient = grpc.Client & Record<string, unknown>;

/** One request in flight per loop: a unary ModelInfer, or a write on the loop's own stream. */
type Shot = (req: unknown) => Promise<boolean>;

function unaryShot(client: InferClient): Shot {
  const infer = client.ModelInfer as (
    r: unknown,
    cb: (e: grpc.ServiceError | null) => void,
  ) => void;
  return (req) => new Promise((resolve) => infer.call(client, req, (err) => resolve(err === null)));
}

/**
 * A long-lived ModelStreamInfer call answering one request at a time, as the router sends a
 * lone inference (ADR 0014). `close` ends it.
 */
function streamShot(client: InferClient): { shot: Shot; close: () => void } {
  const call = (client.ModelStreamInfer as () => grpc.ClientDuplexStream<unknown, unknown>).call(
    client,
  );
  let waiting: ((ok: boolean) => void) | undefined;
  // A failed stream fails every later shot at once instead of leaving the loop waiting.
  let failed = false;
  call.on('data', (m: { error_message?: string }) => {
    waiting?.(!m.error_message);
    waiting = undefined;
  });
  call.on('error', () => {
    failed = true;
    waiting?.(false);
    waiting = undefined;
  });
  return {
    shot: (req) =>
      new Promise((resolve) => {
        if (failed) return resolve(false);
        waiting = resolve;
        call.write(req);
      }),
    close: () => call.end(),
  };
}

async function closedLoop(
  client: InferClient,
  rows: Row[],
  c: number,
  ms: number,
  stream: boolean,
): Promise<{ items: number; errors: number; latencies: number[] }> {
  const end = performance.now() + ms;
  let items = 0;
  let errors = 0;
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: c }, async (_, loop) => {
      const s = stream ? streamShot(client) : undefined;
      const shot = s?.shot ?? unaryShot(client);
      let next = loop * 97;
      while (performance.now() < end) {
        const req = request(rows[next++ % rows.length]!);
        const t0 = performance.now();
        if (await shot(req)) items++;
        else errors++;
        latencies.push(performance.now() - t0);
      }
      s?.close();
    }),
  );
  return { items, errors, latencies };
}

type Sched = ReturnType<typeof threadSched>;

/**
 * A process's CPU-ms and wake-ups per item between two snapshots: its event loop, its `busiest`
 * other threads (by CPU), the rest.
 */
function cpuSplit(
  before: Sched,
  after: Sched,
  items: number,
  busiest: number,
): { total: number; text: string; wakes: string; threads: string } {
  const cpu = diff(before.cpu, after.cpu);
  const runs = diff(before.runs, after.runs);
  const per = (n: number, scale = 1000) => r2((n * scale) / Math.max(1, items));
  const others = Object.entries(cpu)
    .filter(([k]) => k !== 'main')
    .sort((a, b) => b[1] - a[1]);
  const sum = (names: [string, number][], of: Record<string, number>) =>
    names.reduce((n, [k]) => n + (of[k] ?? 0), 0);
  const workers = others.slice(0, busiest);
  const rest = others.slice(busiest);
  const total = Object.values(cpu).reduce((a, b) => a + b, 0);
  return {
    total: per(total),
    text: `event loop ${per(cpu.main ?? 0)}, ${busiest} busiest threads (ORT) ${per(sum(workers, cpu))}, other threads ${per(sum(rest, cpu))}`,
    wakes: `event loop ${per(runs.main ?? 0, 1)}, ${busiest} busiest threads ${per(sum(workers, runs), 1)}, other threads ${per(sum(rest, runs), 1)}`,
    threads: others
      .filter(([, v]) => v > 0)
      .map(([k, v]) => `${k} ${per(v)}`)
      .join(', '),
  };
}

function latencyText(r: { items: number; errors: number; latencies: number[] }, seconds: number) {
  const q = latencyStats(r.latencies);
  return `${r2(r.items / seconds)} items/s, p50 ${r2(q.p50)} ms, p90 ${r2(q.p90)} ms, p99 ${r2(q.p99)} ms, errors ${r.errors}`;
}

async function hostPoint(
  host: BenchProcess,
  client: InferClient,
  rows: Row[],
  c: number,
  seconds: number,
  instances: number,
  stream: boolean,
  listThreads: boolean,
): Promise<{ text: string; cpuPerItem: number }> {
  await closedLoop(client, rows, c, 1500, stream);
  const [s0, p0, t0] = [
    await batchStats(host.urls.http!),
    await padding(host.urls.metrics!),
    threadSched(host.pid),
  ];
  const fromUs = Number(process.hrtime.bigint() / 1000n);
  const r = await closedLoop(client, rows, c, seconds * 1000, stream);
  windows.push({ fromUs, toUs: Number(process.hrtime.bigint() / 1000n) });
  const [s1, p1, t1] = [
    await batchStats(host.urls.http!),
    await padding(host.urls.metrics!),
    threadSched(host.pid),
  ];
  // The busiest non-main threads are the ORT session workers (one per instance).
  const cpu = cpuSplit(t0, t1, r.items, instances);
  if (listThreads) console.log(`  every thread, CPU-ms per item: ${cpu.threads}`);
  const hist: string[] = [];
  let rowsRun = 0;
  let execs = 0;
  for (const [size, after] of [...s1.entries()].sort((a, b) => a[0] - b[0])) {
    const before = s0.get(size) ?? { count: 0, ns: 0 };
    const n = after.count - before.count;
    if (n <= 0) continue;
    rowsRun += n * size;
    execs += n;
    hist.push(`b${size}×${n} (${r2((after.ns - before.ns) / n / 1e6)} ms)`);
  }
  const padded = p1.padded - p0.padded;
  const real = p1.real - p0.real;
  const text = [
    `c=${c}: ${latencyText(r, seconds)}`,
    `  host CPU-ms per item ${cpu.total} (${cpu.text})`,
    `  host wake-ups per item: ${cpu.wakes}`,
    `  batches: mean ${r2(rowsRun / Math.max(1, execs))} rows; ${hist.join(', ')}`,
    `  padding: padded ÷ real elements ${Number.isNaN(padded) ? 'n/a' : r2(padded / Math.max(1, real))}`,
  ].join('\n');
  return { text, cpuPerItem: cpu.total };
}

/** The bare floor (bare-ort.server): the same requests, CPU-ms per item by thread. */
async function floorPoint(
  mode: string,
  /** Its ORT threads: the lone session's at c=1, one per worker when batching. */
  busiest: number,
  floor: BenchProcess,
  client: InferClient,
  rows: Row[],
  c: number,
  seconds: number,
  stream: boolean,
  listThreads: boolean,
): Promise<{ text: string; cpuPerItem: number }> {
  await closedLoop(client, rows, c, 1500, stream);
  const t0 = threadSched(floor.pid);
  const r = await closedLoop(client, rows, c, seconds * 1000, stream);
  const cpu = cpuSplit(t0, threadSched(floor.pid), r.items, busiest);
  if (listThreads) console.log(`  every thread, CPU-ms per item: ${cpu.threads}`);
  const text = [
    `floor (${mode}) c=${c}: ${latencyText(r, seconds)}`,
    `  floor CPU-ms per item ${cpu.total} (${cpu.text})`,
    `  floor wake-ups per item: ${cpu.wakes}`,
  ].join('\n');
  return { text, cpuPerItem: cpu.total };
}

/** One session in this process: CPU-ms per item at `batch` (arrival and sorted order). */
async function rawPoints(
  model: BenchModel,
  rows: Row[],
  batches: number[],
  seconds: number,
  shape: { threads: number; spin: boolean; window: number },
) {
  // The floor's own session options, so raw and floor differ only in how they are driven.
  const session = await createSession({
    modelPath: model.modelPath,
    intraOpThreads: shape.threads,
    allowSpinning: shape.spin,
  });
  const label = `1x${shape.threads}t${shape.spin ? ' spin' : ''}`;
  const lines: { text: string; cpuPerItem: number }[] = [];
  try {
    for (const b of batches) {
      for (const sorted of b > 1 ? [false, true] : [false]) {
        const feeds: Record<string, ort.Tensor>[] = [];
        for (let w = 0; w < rows.length && feeds.length < 64; w += shape.window) {
          const win = rows.slice(w, w + shape.window);
          if (sorted) win.sort((x, y) => x.length - y.length);
          for (let i = 0; i + b <= win.length; i += b) {
            const part = win.slice(i, i + b);
            const width = Math.max(...part.map((p) => p.length));
            const ids = new BigInt64Array(b * width);
            const mask = new BigInt64Array(b * width);
            part.forEach((p, k) => {
              ids.set(p.ids, k * width);
              mask.fill(1n, k * width, k * width + p.length);
            });
            const t = (d: BigInt64Array) => new ort.Tensor('int64', d, [b, width]);
            feeds.push({
              input_ids: t(ids),
              attention_mask: t(mask),
              token_type_ids: t(new BigInt64Array(b * width)),
            });
          }
        }
        for (let i = 0; i < 3; i++) await session.run(feeds[i % feeds.length]!);
        const cpu0 = process.cpuUsage();
        const start = performance.now();
        let items = 0;
        let runs = 0;
        while (performance.now() - start < seconds * 1000) {
          await session.run(feeds[runs++ % feeds.length]!);
          items += b;
        }
        const wall = performance.now() - start;
        const cpu = process.cpuUsage(cpu0);
        const cpuPerItem = r2((cpu.user + cpu.system) / 1000 / items);
        lines.push({
          text:
            `raw b${b}${b > 1 ? (sorted ? ` sorted in ${shape.window}` : ' arrival') : ''} ${label}: ${r2((items * 1000) / wall)} items/s, ` +
            `${cpuPerItem} CPU-ms per item, ${r2(wall / runs)} ms per run`,
          cpuPerItem,
        });
      }
    }
  } finally {
    await session.release();
  }
  return lines;
}

async function main(): Promise<void> {
  const a = args(process.argv.slice(2));
  const rawShape = { threads: a.rawThreads, spin: a.rawSpin, window: a.rawWindow };
  ensureBuiltAndGenerated(a.models, MODEL);
  const model = await loadBenchModel(a.models, MODEL, Number(VERSION));
  const repo = repositoryVariant(a.models, MODEL, a.params, { instances: a.instances });
  const out: string[] = [
    `host-cost ${new Date().toISOString()}: host of ${a.root}, ${a.instances} instance(s), parameters ${JSON.stringify(a.params)}, env ${JSON.stringify(a.env)}`,
  ];
  const { InferenceClient } = loadInferencePackage();
  let host: BenchProcess | undefined;
  const floors: { mode: string; proc: BenchProcess; client: InferClient }[] = [];
  try {
    // At c=1 the lone-batch session's shape (every core, spinning pools: what a c=1 host runs),
    // on a worker thread as in the host, and on the event loop, to tell the hop from serving at
    // all; under load the instances' shape (one worker per instance, its share of the cores),
    // batching whatever waits.
    const shapes = [
      { mode: 'worker', threads: availableParallelism(), spin: '1' },
      { mode: 'inline', threads: availableParallelism(), spin: '1' },
      {
        mode: 'batch',
        threads: Math.max(1, Math.floor(availableParallelism() / a.instances)),
        spin: '0',
      },
    ];
    for (const shape of a.floor ? shapes : []) {
      const proc = await startProcess(
        `bare-floor-${shape.mode}`,
        'dist/bench/host/bare-ort.server.js',
        [model.modelPath, String(shape.threads), shape.spin, shape.mode, String(a.instances)],
        {},
        ['grpc'],
      );
      const client = new InferenceClient(
        proc.urls.grpc!.replace(/^grpc:\/\//, ''),
        grpc.credentials.createInsecure(),
      ) as InferClient;
      floors.push({ mode: shape.mode, proc, client });
    }
    host = await startBenchHost('model-host', repo.root, MODEL, {
      env: a.env,
      root: a.root,
      nodeArgs: [
        ...(a.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${a.cpuProf}`] : []),
        ...a.nodeArgs,
      ],
    });
    await waitReady(`${host.urls.http}/healthz/ready`);
    const idle0 = threadCpu(host.pid);
    await new Promise((r) => setTimeout(r, 3000));
    const idle = Object.values(diff(idle0, threadCpu(host.pid))).reduce((x, y) => x + y, 0);
    out.push(`idle: ${r2((idle / 3) * 100)} % of one core over 3 s`);
    const client = new InferenceClient(
      host.urls.grpc!.replace(/^grpc:\/\//, ''),
      grpc.credentials.createInsecure(),
    ) as InferClient;
    for (const mix of a.mixes) {
      const rows = tokenize(model, buildCorpus(mix, 2000));
      out.push(`## ${mix}`);
      for (const c of a.levels) {
        // Host and floor alternate, so drift on a shared machine hits both alike.
        for (let round = 0; round < a.rounds; round++) {
          const h = await hostPoint(
            host,
            client,
            rows,
            c,
            a.seconds,
            a.instances,
            a.stream,
            a.threads,
          );
          out.push(h.text);
          process.stderr.write(`${out.at(-1)}\n`);
          const floored: { mode: string; cpuPerItem: number }[] = [];
          for (const f of floors.filter((x) => (c === 1) === (x.mode !== 'batch'))) {
            const busiest = f.mode === 'batch' ? a.instances : availableParallelism();
            const p = await floorPoint(
              f.mode,
              busiest,
              f.proc,
              f.client,
              rows,
              c,
              a.seconds,
              a.stream,
              a.threads,
            );
            floored.push({ mode: f.mode, cpuPerItem: p.cpuPerItem });
            out.push(
              p.text,
              `  host ÷ this floor, CPU per item: ${r2(h.cpuPerItem / p.cpuPerItem)}`,
            );
            process.stderr.write(`${out.at(-2)}\n${out.at(-1)}\n`);
          }
          // At c=1 with a floor, raw b1 runs in every round too: the machine drifts between rounds.
          if (floored.length > 0 && c === 1 && a.rawBatches.includes(1)) {
            const [raw] = await rawPoints(model, rows, [1], a.rawSeconds, rawShape);
            const ratios = [{ mode: 'host', cpuPerItem: h.cpuPerItem }, ...floored]
              .map((x) => `${x.mode} ${r2(x.cpuPerItem / raw!.cpuPerItem)}`)
              .join(', ');
            out.push(raw!.text, `  ÷ raw, CPU per item: ${ratios}`);
            process.stderr.write(`${out.at(-2)}\n${out.at(-1)}\n`);
          }
        }
      }
      // After a load: the host should fall back to ~0 CPU (no spinning thread pools).
      const i0 = threadCpu(host.pid);
      await new Promise((r) => setTimeout(r, 2000));
      const after = Object.values(diff(i0, threadCpu(host.pid))).reduce((x, y) => x + y, 0);
      out.push(`idle after load: ${r2((after / 2) * 100)} % of one core over 2 s`);
    }
    client.close();
  } finally {
    for (const f of floors) {
      f.client.close();
      await f.proc.stop('SIGTERM');
    }
    await host?.stop('SIGTERM');
    repo.remove();
  }
  if (a.cpuProf && windows.length > 0) {
    // Every thread writes its own profile; the window spans the measured points.
    const window = { fromUs: windows[0]!.fromUs, toUs: windows.at(-1)!.toUs };
    for (const file of readdirSync(a.cpuProf)
      .filter((f) => f.endsWith('.cpuprofile'))
      .sort()) {
      const prof = JSON.parse(readFileSync(join(a.cpuProf, file), 'utf8')) as Parameters<
        typeof summariseProfile
      >[0];
      const sum = summariseProfile(prof, window, 15);
      out.push(
        `### ${file}: ${sum.busySamples} busy samples, idle ${sum.idleShare} %`,
        ...sum.frames.map((f) => `  ${f.share} %  ${f.frame}`),
        `  packages: ${sum.packages.map((p) => `${p.frame} ${p.share} %`).join(', ')}`,
      );
    }
  }
  if (a.rawBatches.length > 0) {
    for (const mix of a.mixes) {
      out.push(`## raw ORT, ${mix}`);
      const rows = tokenize(model, buildCorpus(mix, 2000));
      const points = await rawPoints(model, rows, a.rawBatches, a.rawSeconds, rawShape);
      out.push(...points.map((p) => p.text));
      process.stderr.write(`${out.at(-1)}\n`);
    }
  }
  console.log(out.join('\n'));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
