import type { InferenceGateway, InferenceMeta, ServableVersion } from '@mesh/inference';
import type { EncodedBatch, OutputTensor } from '@mesh/preprocessing';

/** A stand-in encoded batch that carries, per row, the number its output will be. */
export type MarkedBatch = EncodedBatch & { marks: number[] };

/** One row whose output is `mark`, `seq` tokens long. */
export const markedRow = (mark: number, seq = 10) =>
  ({ batchSize: 1, seqLength: seq, marks: [mark] }) as unknown as MarkedBatch;

/** Version 1 of `m` (up to 8 rows): merging rows pads them to the longest and keeps the marks. */
export const markedVersion = {
  model: 'm',
  version: 1,
  maxBatchSize: 8,
  merge: (batches: readonly MarkedBatch[]) =>
    ({
      batchSize: batches.length,
      seqLength: Math.max(...batches.map((b) => b.seqLength)),
      marks: batches.flatMap((b) => b.marks),
    }) as unknown as EncodedBatch,
} as unknown as ServableVersion;

/** Answers each row with its mark, each call only when the test calls `finish`. */
export class HeldGateway implements InferenceGateway {
  readonly calls: { marks: number[]; seq: number; meta: InferenceMeta }[] = [];
  private readonly waiting: (() => void)[] = [];

  infer(_v: ServableVersion, batch: EncodedBatch, meta: InferenceMeta): Promise<OutputTensor> {
    const marks = (batch as MarkedBatch).marks;
    this.calls.push({ marks, seq: batch.seqLength, meta });
    return new Promise((resolve) =>
      this.waiting.push(() =>
        resolve({ shape: [marks.length, 1], data: Float32Array.from(marks) }),
      ),
    );
  }

  /** Answers the oldest waiting call and lets its callers see the answer. */
  async finish(): Promise<void> {
    this.waiting.shift()!();
    for (let i = 0; i < 5; i++) await Promise.resolve();
  }
}
