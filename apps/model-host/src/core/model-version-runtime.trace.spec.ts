import { Registry } from 'prom-client';
import { startRemoteChildSpan } from '@mesh/telemetry';
import type { BatchingPolicy } from '../batching/batching.types';
import type { RunResult } from '../execution/session-pool-client';
import { HostMetrics } from './host.metrics';
import type { InferRequest } from './inference.types';
import { ModelVersionRuntime, type BatchExecutor } from './model-version-runtime';
import type { ModelVersionSpec } from './model-spec';
import { InMemoryTracing } from '../../../../libs/telemetry/src/testing/in-memory-tracing';

const batching: BatchingPolicy = {
  enabled: true,
  maxBatchSize: 4,
  preferredBatchSizes: [],
  maxQueueDelayUs: 0,
  priorityLevels: 0,
  defaultPriorityLevel: 0,
  defaultQueuePolicy: { maxQueueSize: 0, defaultTimeoutUs: 0, allowTimeoutOverride: false },
  maxPaddingRatio: 0,
  maxBatchTokens: 0,
  dispatchWhenIdle: true,
  batchOrder: 'length',
  balanceInstances: true,
  lowPriorityMaxBatchTokens: 0,
  topPriorityReservedInstances: 0,
  topPriorityReserveMs: 1000,
  priorityQueuePolicy: new Map(),
};

const spec: ModelVersionSpec = {
  model: 'm',
  version: '1',
  maxBatchSize: 4,
  inputs: [{ name: 'x', datatype: 'FP32', dims: [1] }],
  outputs: [{ name: 'y', datatype: 'FP32', dims: [1] }],
  batching,
};

/** One instance that holds every batch until the test finishes it. */
class HeldInstance implements BatchExecutor {
  readonly size = 1;
  readonly started: Array<(r: RunResult) => void> = [];
  onCapacity?: () => void;

  run(): Promise<RunResult> {
    return new Promise<RunResult>((resolve) => this.started.push(resolve));
  }

  finish(k: number, rows: number): void {
    this.started[k]!({
      outputs: [{ name: 'y', type: 'float32', dims: [rows, 1], buffer: new ArrayBuffer(4 * rows) }],
      inputNs: 1,
      inferNs: 2,
      outputNs: 3,
    });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

const request = (id: string, traced: boolean): InferRequest => ({
  id,
  model: 'm',
  version: '1',
  inputs: [{ name: 'x', datatype: 'FP32' as const, shape: [1, 1], data: new Uint8Array(4) }],
  outputs: [],
  priority: 0,
  timeoutUs: 0,
  ...(traced
    ? { span: startRemoteChildSpan(`host ${id}`, `00-${TRACE}-00f067aa0ba902b7-01`) }
    : {}),
});

const turn = () => new Promise((r) => setImmediate(r));

describe('ModelVersionRuntime, traced', () => {
  let tracing: InMemoryTracing;

  beforeAll(() => {
    tracing = new InMemoryTracing('model-host');
  });

  afterAll(async () => {
    expect(await tracing.shutdown()).toBe(false);
  });

  it("records each traced request's queue wait and batch, with the batch id they share", async () => {
    const executor = new HeldInstance();
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
