import { startRemoteChildSpan, traceparentOf, type Span } from '@mesh/telemetry';
import { CoalescedInference } from './coalesced-inference';
import { HeldGateway, markedRow as row, markedVersion as version } from '../testing/marked-rows';
import { InMemoryTracing } from '../../../../libs/telemetry/src/testing/in-memory-tracing';

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
    const gateway = new HeldGateway();
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
    expect(gateway.calls[0]!.meta.traceparent).toBe(
      `00-${TRACE}-${alone!.spanContext().spanId}-01`,
    );
    // Merged: child of the request that opened it, linked to both.
    expect(merged!.parentSpanContext?.spanId).toBe(requests[1]!.spanContext().spanId);
    expect(merged!.links.map((l) => l.context.spanId)).toEqual([
      requests[1]!.spanContext().spanId,
      requests[2]!.spanContext().spanId,
    ]);
    expect(merged!.attributes).toMatchObject({ 'mesh.batch.requests': 2, 'mesh.batch.rows': 2 });
    expect(gateway.calls[1]!.meta.traceparent).toBe(
      `00-${TRACE}-${merged!.spanContext().spanId}-01`,
    );
    expect(traceparentOf(requests[0]!)).toMatch(new RegExp(`^00-${TRACE}-`));
  });
});
