import { Worker } from 'node:worker_threads';

/**
 * Runs an ONNX model in onnxruntime-node on a worker thread, for tests.
 *
 * Jest evaluates test code in its own V8 context, while ORT's native addon
 * creates output typed arrays in the main one; onnxruntime-common's
 * `instanceof Float32Array` check then rejects them. On a worker thread ORT
 * runs in a single plain context, and results come back as plain arrays.
 */

export interface Int64Feed {
  data: BigInt64Array;
  dims: number[];
}

export interface OutputTensor {
  dims: number[];
  data: number[];
}

interface Reply {
  id: number;
  error?: string;
  inputNames?: string[];
  outputNames?: string[];
  outputs?: Record<string, OutputTensor>;
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const ort = require(workerData.ortPath);
let session;
parentPort.on('message', async (msg) => {
  try {
    if (msg.kind === 'load') {
      session = await ort.InferenceSession.create(msg.bytes);
      parentPort.postMessage({ id: msg.id, inputNames: session.inputNames, outputNames: session.outputNames });
      return;
    }
    const feeds = {};
    for (const [name, feed] of Object.entries(msg.feeds)) feeds[name] = new ort.Tensor('int64', feed.data, feed.dims);
    const result = await session.run(feeds);
    const outputs = {};
    for (const [name, t] of Object.entries(result)) outputs[name] = { dims: [...t.dims], data: Array.from(t.data) };
    parentPort.postMessage({ id: msg.id, outputs });
  } catch (err) {
    parentPort.postMessage({ id: msg.id, error: String((err && err.stack) || err) });
  }
});
`;

export class OrtWorkerClient {
  private nextId = 0;
  private readonly pending = new Map<number, (reply: Reply) => void>();
  inputNames: string[] = [];
  outputNames: string[] = [];

  private constructor(private readonly worker: Worker) {
    worker.on('message', (reply: Reply) => {
      this.pending.get(reply.id)?.(reply);
      this.pending.delete(reply.id);
    });
  }

  static async load(modelBytes: Uint8Array): Promise<OrtWorkerClient> {
    const ortPath = require.resolve('onnxruntime-node');
    const client = new OrtWorkerClient(
      new Worker(WORKER_SOURCE, { eval: true, workerData: { ortPath } }),
    );
    const reply = await client.call({ kind: 'load', bytes: modelBytes });
    client.inputNames = reply.inputNames ?? [];
    client.outputNames = reply.outputNames ?? [];
    return client;
  }

  async run(feeds: Record<string, Int64Feed>): Promise<Record<string, OutputTensor>> {
    return (await this.call({ kind: 'run', feeds })).outputs ?? {};
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }

  private call(message: object): Promise<Reply> {
    const id = (this.nextId += 1);
    return new Promise((resolve, reject) => {
      this.pending.set(id, (reply) =>
        reply.error === undefined ? resolve(reply) : reject(new Error(reply.error)),
      );
      this.worker.postMessage({ ...message, id });
    });
  }
}
