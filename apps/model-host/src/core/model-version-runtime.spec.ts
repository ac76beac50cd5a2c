import { Registry } from 'prom-client';
import type { BatchingPolicy } from '../batching/batching.types';
import type { RunHints, RunResult } from '../execution/session-pool-client';
import { HostMetrics } from './host.metrics';
import { ModelVersionRuntime, type BatchExecutor } from './model-version-runtime';
import type { ModelVersionSpec } from './model-spec';

const batching: BatchingPolicy = {
  enabled: true,
  maxBatchSize: 1,
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
  maxBatchSize: 1,
  inputs: [{ name: 'x', datatype: 'FP32', dims: [1] }],
  outputs: [{ name: 'y', datatype: 'FP32', dims: [1] }],
  batching,
};

/** Instances that hold every batch until the test finishes it, as a busy ORT session would. */
class HeldInstances implements BatchExecutor {
  readonly started: Array<(r: RunResult) => void> = [];
  /** The `alone` hint of each run, in start order. */
  readonly alone: boolean[] = [];
  private busy = 0;
  onCapacity?: () => void;

  constructor(readonly size: number) {}

  run(_feeds: unknown, _outputs: unknown, hints: RunHints = {}): Promise<RunResult> {
    if (this.busy >= this.size) return Promise.reject(new Error('no idle session instance'));
    this.busy += 1;
    this.alone.push(hints.alone === true);
    return new Promise<RunResult>((resolve) => this.started.push(resolve)).finally(() => {
      this.busy -= 1;
    });
  }

  finish(k: number): void {
    this.started[k]!({
      outputs: [{ name: 'y', type: 'float32', dims: [1, 1], buffer: new ArrayBuffer(4) }],
      inputNs: 0,
      inferNs: 0,
      outputNs: 0,
    });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

const request = (id: string) => ({
  id,
  model: 'm',
  version: '1',
  inputs: [{ name: 'x', datatype: 'FP32' as const, shape: [1, 1], data: new Uint8Array(4) }],
  outputs: [],
  priority: 0,
  timeoutUs: 0,
});

const turn = () => new Promise((r) => setImmediate(r));

describe('ModelVersionRuntime', () => {
  it('runs as many batches at once as it has instances', async () => {
    const executor = new HeldInstances(3);
    const runtime = new ModelVersionRuntime(spec, executor, new HostMetrics(new Registry()));
    const answers = ['a', 'b', 'c', 'd'].map((id) => runtime.infer(request(id)));
    await turn();
    // Three instances, three batches running; the fourth request waits for one of them.
    expect(executor.started).toHaveLength(3);
    expect(runtime.pending).toBe(1);
    executor.finish(1);
    await turn();
    expect(executor.started).toHaveLength(4);
    executor.finish(0);
    executor.finish(2);
    executor.finish(3);
    await expect(Promise.all(answers)).resolves.toHaveLength(4);
  });
  it('counts the padded and the real elements of each executed batch', async () => {
    const padded: ModelVersionSpec = {
      ...spec,
      maxBatchSize: 4,
      inputs: [{ name: 'x', datatype: 'FP32', dims: [-1] }],
      outputs: [{ name: 'y', datatype: 'FP32', dims: [1] }],
      batching: { ...batching, maxBatchSize: 4, maxPaddingRatio: 0 },
    };
    const executor = new HeldInstances(1);
    const registry = new Registry();
    const runtime = new ModelVersionRuntime(padded, executor, new HostMetrics(registry));
    const row = (id: string, length: number) => ({
      ...request(id),
      inputs: [
        {
          name: 'x',
          datatype: 'FP32' as const,
          shape: [1, length],
          data: new Uint8Array(4 * length),
        },
      ],
    });
    const answers = [runtime.infer(row('a', 2))];
    await turn();
    // 'a' runs alone; 'b' (3) and 'c' (5) queue behind it and go as one batch padded to 5.
    answers.push(runtime.infer(row('b', 3)), runtime.infer(row('c', 5)));
    executor.finish(0);
    await turn();
    expect(executor.started).toHaveLength(2);
    executor.started[1]!({
      outputs: [{ name: 'y', type: 'float32', dims: [2, 1], buffer: new ArrayBuffer(8) }],
      inputNs: 0,
      inferNs: 0,
      outputNs: 0,
    });
    await Promise.all(answers);
    const text = await registry.getSingleMetricAsString('mesh_host_batch_elements_total');
    // a: 2 padded, 2 real; b + c: 2 rows × 5 = 10 padded, 8 real.
    expect(text).toContain(
      'mesh_host_batch_elements_total{model="m",version="1",kind="padded"} 12',
    );
    expect(text).toContain('mesh_host_batch_elements_total{model="m",version="1",kind="real"} 10');
  });

  it('marks a batch alone only when nothing is queued behind it, and counts lone executions', async () => {
    const executor = new HeldInstances(1);
    const registry = new Registry();
    const runtime = new ModelVersionRuntime(spec, executor, new HostMetrics(registry));
    const answers = [runtime.infer(request('a'))];
    await turn();
    answers.push(runtime.infer(request('b')), runtime.infer(request('c')));
    // 'a' started with nothing behind it; 'b' starts while 'c' still waits; then 'c' alone.
    executor.started[0]!({
      outputs: [{ name: 'y', type: 'float32', dims: [1, 1], buffer: new ArrayBuffer(4) }],
      inputNs: 0,
      inferNs: 0,
      outputNs: 0,
      lone: true,
    });
    await turn();
    executor.finish(1);
    await turn();
    executor.finish(2);
    await Promise.all(answers);
    expect(executor.alone).toEqual([true, false, true]);
    const text = await registry.getSingleMetricAsString('mesh_host_lone_executions_total');
    expect(text).toContain('mesh_host_lone_executions_total{model="m",version="1"} 1');
  });
});
