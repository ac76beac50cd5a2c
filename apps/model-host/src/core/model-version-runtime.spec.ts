import { Registry } from 'prom-client';
import { versionSpec, inferRequest, turn } from '../testing/batching-fixture';
import { HeldInstances } from '../testing/held-instances';
import { HostMetrics } from './host.metrics';
import { ModelVersionRuntime } from './model-version-runtime';

/** How the host batches a loaded version: dispatch when idle, by length, across instances. */
const batching = { dispatchWhenIdle: true, batchOrder: 'length', balanceInstances: true } as const;
const spec = versionSpec(1, batching);

describe('ModelVersionRuntime', () => {
  it('runs as many batches at once as it has instances', async () => {
    const executor = new HeldInstances(3);
    const runtime = new ModelVersionRuntime(spec, executor, new HostMetrics(new Registry()));
    const answers = ['a', 'b', 'c', 'd'].map((id) => runtime.infer(inferRequest(id)));
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
    const padded = versionSpec(4, batching, {
      inputs: [{ name: 'x', datatype: 'FP32', dims: [-1] }],
    });
    const executor = new HeldInstances(1);
    const registry = new Registry();
    const runtime = new ModelVersionRuntime(padded, executor, new HostMetrics(registry));
    const row = (id: string, length: number) => ({
      ...inferRequest(id),
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
    executor.finish(1, 2);
    await Promise.all(answers);
    const text = await registry.getSingleMetricAsString('mesh_host_batch_elements_total');
    // a: 2 padded, 2 real; b + c: 2 rows × 5 = 10 padded, 8 real.
    expect(text).toContain(
      'mesh_host_batch_elements_total{model="m",version="1",kind="padded"} 12',
    );
    expect(text).toContain('mesh_host_batch_elements_total{model="m",version="1",kind="real"} 10');
  });

  it('marks a batch alone only when nothing is queued behind it and none of it waited, and counts lone executions', async () => {
    const executor = new HeldInstances(1);
    const registry = new Registry();
    const runtime = new ModelVersionRuntime(spec, executor, new HostMetrics(registry));
    const answers = [runtime.infer(inferRequest('a'))];
    await turn();
    answers.push(runtime.infer(inferRequest('b')), runtime.infer(inferRequest('c')));
    // 'a' found the version idle; 'b' starts while 'c' still waits; 'c' has nothing behind it
    // but waited for 'b' to end: load, not a lone request.
    executor.finish(0, 1, { lone: true });
    await turn();
    executor.finish(1);
    await turn();
    executor.finish(2);
    await Promise.all(answers);
    // Once it is all over, the next request finds the version idle again.
    const d = runtime.infer(inferRequest('d'));
    await turn();
    executor.finish(3, 1, { lone: true });
    await d;
    expect(executor.alone).toEqual([true, false, false, true]);
    const text = await registry.getSingleMetricAsString('mesh_host_lone_executions_total');
    expect(text).toContain('mesh_host_lone_executions_total{model="m",version="1"} 2');
  });
});
