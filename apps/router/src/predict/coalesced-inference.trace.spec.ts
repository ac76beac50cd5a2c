import type { InferenceGateway, InferenceMeta, ServableVersion } from '@mesh/inference';
import type { EncodedBatch, OutputTensor } from '@mesh/preprocessing';
import { startRemoteChildSpan, traceparentOf, type Span } from '@mesh/telemetry';
import { CoalescedInference } from './coalesced-inference';
import { InMemoryTracing } from '../../../../libs/telemetry/src/testing/in-memory-tracing';

type FakeBatch = EncodedBatch & { marks: number[] };

const row = (mark: number) =>
  ({ batchSize: 1, seqLength: 10, marks: [mark] }) as unknown as FakeBatch;

const version = {
  model: 'm',
  version: 1,
  maxBatchSize: 8,
  merge: (batches: readonly FakeBatch[]) =>
    ({
      batchSize: batches.length,
      seqLength: 10,
      marks: batches.flatMap((b) => b.marks),
    }) as unknown as EncodedBatch,
} as unknown as ServableVersion;

/** Answers each row with its mark; calls finish when the test says so. */
class Gateway implements InferenceGateway {
  readonly metas: InferenceMeta[] = [];
  private readonly waiting: (() => void)[] = [];

  infer(_v: ServableVersion, batch: EncodedBatch, meta: InferenceMeta): Promise<OutputTensor> {
    const marks = (batch as FakeBatch).marks;
    this.metas.push(meta);
    return new Promise((resolve) =>
      this.waiting.push(() =>
        resolve({ shape: [marks.length, 1], data: Float32Array.from(marks) }),
      ),
    );
  }

  async finish(): Promise<void> {
    this.waiting.shift()!();
    for (let i = 0; i < 5; i++) await Promise.resolve();
  }
}

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

describe('CoalescedInference, traced', () => {
  let tracing: InMemoryTracing;

  beforeAll(() => {
    tracing = new InMemoryTracing('router');
  });

  afterAll(async () => {
    expect(await tracing.shutdown()).toBe(false);
  });

  it('sends a merged call under one client span, child of the first request, linked to each', async () => {
    const gateway = new Gateway();
    const inference = new CoalescedInference(gateway, {
      maxRows: 8,
      maxTokens: 1024,
      bucket: 16,
      deadlineMs: 1000,
      maxInFlight: 1,
      now: () => 0,
    });
    const requests: Span[] = [1, 2, 3].map((i) =>
      startRemoteChildSpan(`request ${i}`, `00-${TRACE}-00f067aa0ba902b${i}-01`),
    );
    const call = (i: number) =>
      inference.infer(version, row(i), {
        requestId: `r${i}`,
        traceparent: undefined,
        span: requests[i - 1]!,
      });
    const answers = [call(1), call(2), call(3)];
    await gateway.finish();
    await gateway.finish();
    await Promise.all(answers);

    const calls = await tracing.spans();
    expect(calls.map((s) => s.name)).toEqual([
      'inference.GRPCInferenceService/ModelInfer',
      'inference.GRPCInferenceService/ModelInfer',
    ]);
    const [alone, merged] = calls;
    // Alone: a child of its request, no links; the backend gets the call span's context.
    expect(alone!.parentSpanContext?.spanId).toBe(requests[0]!.spanContext().spanId);
    expect(alone!.links).toEqual([]);
    expect(alone!.attributes).toMatchObject({
      'rpc.method': 'ModelInfer',
      'mesh.batch.requests': 1,
      'mesh.outcome': 'ok',
    });
    expect(gateway.metas[0]!.traceparent).toBe(`00-${TRACE}-${alone!.spanContext().spanId}-01`);
    // Merged: child of the request that opened it, linked to both.
    expect(merged!.parentSpanContext?.spanId).toBe(requests[1]!.spanContext().spanId);
    expect(merged!.links.map((l) => l.context.spanId)).toEqual([
      requests[1]!.spanContext().spanId,
      requests[2]!.spanContext().spanId,
    ]);
    expect(merged!.attributes).toMatchObject({ 'mesh.batch.requests': 2, 'mesh.batch.rows': 2 });
    expect(gateway.metas[1]!.traceparent).toBe(`00-${TRACE}-${merged!.spanContext().spanId}-01`);
    expect(traceparentOf(requests[0]!)).toMatch(new RegExp(`^00-${TRACE}-`));
  });
});
