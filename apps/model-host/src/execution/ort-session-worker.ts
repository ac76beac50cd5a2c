/**
 * Worker thread owning one ORT InferenceSession. `session.run()` in onnxruntime-node does its
 * work synchronously on the calling thread, so it must never run on the host's event loop.
 * Only relative imports here: this file also runs under a plain transpiler in tests.
 */
import { parentPort, workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import type {
  HostMessage,
  RunMessage,
  SessionOptionsData,
  ValueInfo,
  WireTensor,
  WorkerReply,
} from './ort-worker-protocol';
import { startWithPoolNice } from './pool-thread-priority';

type Port = NonNullable<typeof parentPort>;

function valueInfo(meta: readonly ort.InferenceSession.ValueMetadata[]): ValueInfo[] {
  return meta.map((m) =>
    m.isTensor
      ? { name: m.name, type: m.type, shape: m.shape.map((d) => (typeof d === 'number' ? d : -1)) }
      : { name: m.name, type: 'non-tensor', shape: [] },
  );
}

type OrtData = ArrayBufferView;

function viewOf(t: WireTensor): OrtData {
  const b = t.buffer;
  switch (t.type) {
    case 'int64':
      return new BigInt64Array(b);
    case 'uint64':
      return new BigUint64Array(b);
    case 'float32':
      return new Float32Array(b);
    case 'float64':
      return new Float64Array(b);
    case 'int32':
      return new Int32Array(b);
    case 'uint32':
      return new Uint32Array(b);
    case 'int16':
      return new Int16Array(b);
    case 'uint16':
    case 'float16':
    case 'bfloat16':
      return new Uint16Array(b);
    case 'int8':
      return new Int8Array(b);
    case 'bool':
    case 'uint8':
      return new Uint8Array(b);
    default:
      throw new Error(`unsupported tensor type '${t.type}'`);
  }
}

function toWire(name: string, t: ort.Tensor): WireTensor {
  const src = t.data as ArrayBufferView;
  // ORT may hand back memory we cannot transfer; one copy into an owned buffer is cheap.
  const copy = new Uint8Array(src.byteLength);
  copy.set(new Uint8Array(src.buffer, src.byteOffset, src.byteLength));
  return { name, type: t.type, dims: [...t.dims], buffer: copy.buffer };
}

async function run(session: ort.InferenceSession, msg: RunMessage, port: Port): Promise<void> {
  try {
    const t0 = process.hrtime.bigint();
    const feeds: Record<string, ort.Tensor> = {};
    for (const f of msg.feeds) {
      // The type name and the typed array come from one table, so they always agree.
      feeds[f.name] = new ort.Tensor(f.type as 'int64', viewOf(f) as BigInt64Array, f.dims);
    }
    const t1 = process.hrtime.bigint();
    const result = await session.run(feeds, msg.outputs);
    const t2 = process.hrtime.bigint();
    const outputs = msg.outputs.map((name) => {
      const t = result[name];
      if (t === undefined) throw new Error(`model produced no output '${name}'`);
      return toWire(name, t);
    });
    const t3 = process.hrtime.bigint();
    const reply: WorkerReply = {
      kind: 'result',
      id: msg.id,
      outputs,
      inputNs: Number(t1 - t0),
      inferNs: Number(t2 - t1),
      outputNs: Number(t3 - t2),
    };
    port.postMessage(
      reply,
      outputs.map((o) => o.buffer),
    );
  } catch (err: unknown) {
    const message = err instanceof Error ? err.message : String(err);
    port.postMessage({ kind: 'run-failed', id: msg.id, message } satisfies WorkerReply);
  }
}

async function main(port: Port): Promise<void> {
  const opts = workerData as SessionOptionsData;
  let session: ort.InferenceSession;
  let poolNice = 0;
  let threadNice = 0;
  try {
    const create = () =>
      ort.InferenceSession.create(opts.modelPath, {
        intraOpNumThreads: opts.intraOpThreads,
        interOpNumThreads: opts.interOpThreads,
        graphOptimizationLevel: opts.graphOptimizationLevel,
        executionMode: 'sequential',
        ...(opts.logSeverityLevel !== undefined ? { logSeverityLevel: opts.logSeverityLevel } : {}),
        // ORT reads these as strings and ignores values it does not know, so only '0' / '1'.
        // Spinning (on by default, for every session) saves waking each pool thread per operator.
        // force_spinning_stop ends it as soon as a run returns; without it (spinBetweenRuns) the
        // pool keeps spinning for ORT's own bounded spell after a run, so the next request of a
        // steady stream finds its threads awake, and an idle session still parks them.
        extra: {
          session: {
            intra_op: { allow_spinning: opts.allowSpinning ? '1' : '0' },
            inter_op: { allow_spinning: opts.allowSpinning ? '1' : '0' },
            force_spinning_stop: opts.spinBetweenRuns === true ? '0' : '1',
          },
        },
      });
    // A session of n intra-op threads starts n - 1 pool threads; this thread is the n-th.
    const started = await startWithPoolNice(
      opts.poolThreadNice ?? 0,
      opts.intraOpThreads - 1,
      create,
    );
    session = started.value;
    poolNice = started.poolNice;
    threadNice = started.threadNice;
  } catch (err: unknown) {
    const message = err instanceof Error ? err.message : String(err);
    port.postMessage({ kind: 'init-failed', message } satisfies WorkerReply);
    return;
  }
  port.on('message', (msg: HostMessage) => {
    if (msg.kind === 'run') {
      void run(session, msg, port);
      return;
    }
    // Nothing else keeps the thread alive once the port is closed: it exits on its own.
    void session.release().finally(() => port.close());
  });
  port.postMessage({
    kind: 'ready',
    inputs: valueInfo(session.inputMetadata),
    outputs: valueInfo(session.outputMetadata),
    poolNice,
    threadNice,
  } satisfies WorkerReply);
}

if (parentPort) void main(parentPort);
