import { Registry } from 'prom-client';
import { startRemoteChildSpan } from '@mesh/telemetry';
import { inferRequest, turn, versionSpec } from '../testing/batching-fixture';
import { HeldInstances } from '../testing/held-instances';
import { HostMetrics } from './host.metrics';
import type { InferRequest } from './inference.types';
import { ModelVersionRuntime } from './model-version-runtime';
import { InMemoryTracing } from '../../../../libs/telemetry/src/testing/in-memory-tracing';

const spec = versionSpec(4, {
  dispatchWhenIdle: true,
  batchOrder: 'length',
  balanceInstances: true,
});

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

const request = (id: string, traced: boolean): InferRequest =>
  inferRequest(
    id,
    traced ? { span: startRemoteChildSpan(`host ${id}`, `00-${TRACE}-00f067aa0ba902b7-01`) } : {},
  );

describe('ModelVersionRuntime, traced', () => {
  let tracing: InMemoryTracing;

  beforeAll(() => {
    tracing = new InMemoryTracing('model-host');
  });

  afterAll(async () => {
    expect(await tracing.shutdown()).toBe(false);
  });

  it("records each traced request's queue wait and batch, with the batch id they share", async () => {
    const executor = new HeldInstances(1);
    const runtime = new ModelVersionRuntime(spec, executor, new HostMetrics(new Registry()));
    const a = request('a', true);
    const answers = [runtime.infer(a)];
    await turn();
    // 'b' and 'c' queue behind 'a' and run as one batch; 'c' is not traced.
    const b = request('b', true);
    answers.push(runtime.infer(b), runtime.infer(request('c', false)));
    executor.finish(0, 1);
    await turn();
    executor.finish(1, 2);
    await Promise.all(answers);
    a.span!.end();
    b.span!.end();

    const spans = await tracing.spans();
    const childrenOf = (parent: typeof a.span) =>
      spans
        .filter((s) => s.parentSpanContext?.spanId === parent!.spanContext().spanId)
        .map((s) => ({ name: s.name, attributes: s.attributes }));
    expect(childrenOf(a.span)).toEqual([
      { name: 'queue.wait', attributes: { 'mesh.model': 'm', 'mesh.version': '1' } },
      {
        name: 'batch.execute',
        attributes: {
          'mesh.model': 'm',
          'mesh.version': '1',
          'mesh.batch.id': 'm:1:1',
          'mesh.batch.requests': 1,
          'mesh.batch.rows': 1,
          'mesh.request.rows': 1,
          'mesh.compute.input_ns': 1,
          'mesh.compute.infer_ns': 2,
          'mesh.compute.output_ns': 3,
        },
      },
    ]);
    expect(childrenOf(b.span)[1]).toMatchObject({
      name: 'batch.execute',
      attributes: { 'mesh.batch.id': 'm:1:2', 'mesh.batch.requests': 2, 'mesh.batch.rows': 2 },
    });
    // Two traced requests: two server spans (ended by the test) and two children each.
    expect(spans).toHaveLength(6);
  });
});
