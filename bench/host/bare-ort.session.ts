/**
 * The bare floor's session: one ORT session with the given threads and spinning, fed a batch of
 * a BERT classifier's three int64 inputs. Shared by the floor's worker threads and its inline mode.
 */
import * as ort from 'onnxruntime-node';

export interface BareWorkerInit {
  modelPath: string;
  intraOpThreads: number;
  allowSpinning: boolean;
}

/** `rows` rows of a BERT classifier's three int64 inputs, each row `length` long. */
export interface BareRun {
  rows: number;
  length: number;
  inputs: { name: string; buffer: ArrayBuffer }[];
}

export interface BareResult {
  name: string;
  dims: number[];
  buffer: ArrayBuffer;
}

export function createSession(init: BareWorkerInit): Promise<ort.InferenceSession> {
  const spin = init.allowSpinning ? '1' : '0';
  return ort.InferenceSession.create(init.modelPath, {
    intraOpNumThreads: init.intraOpThreads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    extra: {
      session: {
        intra_op: { allow_spinning: spin },
        inter_op: { allow_spinning: spin },
        force_spinning_stop: '1',
      },
    },
  });
}

/**
 * A session ready to run jobs: each run's first output, copied into a buffer of its own (ORT may
 * hand back memory that cannot be transferred).
 */
export async function sessionRunner(
  init: BareWorkerInit,
): Promise<(job: BareRun) => Promise<BareResult>> {
  const session = await createSession(init);
  const output = session.outputNames[0]!;
  return async (job) => {
    const out = (await session.run(feedsOf(job)))[output]!;
    const copy = new Float32Array(out.data as Float32Array);
    return { name: output, dims: [...out.dims], buffer: copy.buffer };
  };
}

function feedsOf(job: BareRun): Record<string, ort.Tensor> {
  const feeds: Record<string, ort.Tensor> = {};
  for (const i of job.inputs) {
    feeds[i.name] = new ort.Tensor('int64', new BigInt64Array(i.buffer), [job.rows, job.length]);
  }
  return feeds;
}
