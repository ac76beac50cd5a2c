/**
 * The bare floor of a model host: KServe `ModelInfer` and `ModelStreamInfer` on grpc-js, the
 * requests run on ORT worker threads and answered with their logits. No validation, priorities,
 * timeouts, statistics, metrics or logs: what any Node server speaking this protocol must do with
 * inference kept off its event loop. `bench:host-cost --floor` runs it beside the model host, so
 * the host's CPU per request splits into this floor and what the mesh's code adds.
 *
 * Modes:
 * - `worker`: one worker thread, one request per run (the lone-batch session's place at c=1);
 * - `inline`: the same on the event loop itself (as the naive peer does, and as no server
 *   should under load), to tell the worker thread's hop from the cost of serving at all;
 * - `batch`: `workers` worker threads (default one per core; the host's instance count), and
 *   whenever one is free it runs everything waiting (up to 64 rows) in arrival order, padded to
 *   the longest row: the simplest dynamic batching.
 *
 * Usage: bare-ort.server.js <model.onnx> <intra-op threads> <spin 0|1> <worker|inline|batch> [workers]
 */
import * as grpc from '@grpc/grpc-js';
import { loadInferencePackage, type ModelInferRequest } from '@mesh/kserve';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import {
  sessionRunner,
  type BareResult,
  type BareRun,
  type BareWorkerInit,
} from './bare-ort.session';

type Runner = (job: BareRun) => Promise<BareResult>;

interface Waiting {
  /** The three inputs' bytes, in input order, each `length` int64 values. */
  inputs: { name: string; bytes: Buffer }[];
  length: number;
  answer: (logits: Buffer, dims: number[], name: string) => void;
}

const MAX_BATCH = 64;

async function main(): Promise<void> {
  const [modelPath = '', threads = '2', spin = '1', mode = 'worker', workers = ''] =
    process.argv.slice(2);
  const init: BareWorkerInit = {
    modelPath,
    intraOpThreads: Number(threads),
    allowSpinning: spin === '1',
  };
  const runners: Runner[] =
    mode === 'inline'
      ? [await sessionRunner(init)]
      : await Promise.all(
          Array.from(
            { length: mode === 'batch' ? Number(workers || availableParallelism()) : 1 },
            () => workerRunner(init),
          ),
        );
  const maxBatch = mode === 'batch' ? MAX_BATCH : 1;
  const idle = [...runners];
  const queue: Waiting[] = [];
  const dispatch = () => {
    while (idle.length > 0 && queue.length > 0) {
      const runner = idle.pop()!;
      const batch = queue.splice(0, maxBatch);
      void runner(pack(batch)).then((r) => {
        idle.push(runner);
        const width = r.dims[1] ?? 0;
        const all = Buffer.from(r.buffer);
        batch.forEach((w, i) =>
          w.answer(all.subarray(i * width * 4, (i + 1) * width * 4), [1, width], r.name),
        );
        dispatch();
      });
    }
  };
  const infer = (req: ModelInferRequest, answer: (res: unknown) => void) => {
    const raw = req.raw_input_contents ?? [];
    queue.push({
      inputs: req.inputs.map((t, i) => ({ name: t.name, bytes: raw[i]! })),
      length: Number(req.inputs[0]?.shape[1] ?? 0),
      answer: (logits, dims, name) =>
        answer({
          model_name: req.model_name,
          model_version: req.model_version ?? '',
          id: req.id ?? '',
          outputs: [{ name, datatype: 'FP32', shape: dims }],
          raw_output_contents: [logits],
        }),
    });
    dispatch();
  };
  const server = new grpc.Server();
  server.addService(loadInferencePackage().inferenceService, {
    ModelInfer: (
      call: grpc.ServerUnaryCall<ModelInferRequest, unknown>,
      done: grpc.sendUnaryData<unknown>,
    ) => infer(call.request, (res) => done(null, res)),
    ModelStreamInfer: (call: grpc.ServerDuplexStream<ModelInferRequest, unknown>) => {
      call.on('data', (req: ModelInferRequest) =>
        infer(req, (res) => call.write({ error_message: '', infer_response: res })),
      );
      call.on('end', () => call.end());
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  process.stdout.write(
    `${JSON.stringify({ event: 'listening', listener: 'grpc', url: `grpc://127.0.0.1:${port}` })}\n`,
  );
  process.on('SIGTERM', () => {
    server.forceShutdown();
    process.exit(0);
  });
}

/** The batch's rows, padded with zeros to its longest, one buffer per input. */
function pack(batch: Waiting[]): BareRun {
  const length = Math.max(...batch.map((w) => w.length));
  const names = batch[0]!.inputs.map((i) => i.name);
  return {
    rows: batch.length,
    length,
    inputs: names.map((name, k) => {
      const out = new Uint8Array(batch.length * length * 8);
      batch.forEach((w, row) => out.set(w.inputs[k]!.bytes, row * length * 8));
      return { name, buffer: out.buffer };
    }),
  };
}

/** Runs on a worker thread; it answers in order, so answers pair with jobs first in, first out. */
async function workerRunner(init: BareWorkerInit): Promise<Runner> {
  const worker = new Worker(join(__dirname, 'bare-ort.worker.js'), { workerData: init });
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
  const waiting: ((r: BareResult) => void)[] = [];
  worker.on('message', (r: BareResult) => waiting.shift()?.(r));
  return (job) =>
    new Promise((resolve) => {
      waiting.push(resolve);
      worker.postMessage(
        job,
        job.inputs.map((i) => i.buffer),
      );
    });
}

void main();
