import { Registry } from 'prom-client';
import { WorkerMetrics } from './worker.metrics';

describe('WorkerMetrics', () => {
  let now = 0;
  let reads = 0;
  const registry = new Registry();
  const metrics = new WorkerMetrics(
    registry,
    () => {
      reads++;
      return Promise.resolve({
        depth: { 'bulk-chunk/waiting': 4, 'bulk-chunk/delayed': 2 },
        jobs: { running: 1, waiting_for_version: reads },
      });
    },
    () => now,
  );
  const value = async (name: string, labels: Record<string, string> = {}) => {
    const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
    return metric?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))
      ?.value;
  };

  it('reports items per second over the last 30 s of its clock', async () => {
    now = 100_000;
    metrics.processed(500, 100, Array<string>(100).fill('TEXT_TOO_LONG'));
    now = 110_000;
    metrics.processed(300, 0, []);
    expect(await value('mesh_worker_items_per_second')).toBe(900 / 30);
    now = 135_000; // the first batch is now older than 30 s
    expect(await value('mesh_worker_items_per_second')).toBe(300 / 30);
    now = 200_000;
    expect(await value('mesh_worker_items_per_second')).toBe(0);
  });

  it('counts items by outcome and failures by reason', async () => {
    expect(await value('mesh_worker_items_total', { outcome: 'ok' })).toBe(800);
    expect(await value('mesh_worker_items_total', { outcome: 'error' })).toBe(100);
    expect(await value('mesh_worker_item_failures_total', { reason: 'TEXT_TOO_LONG' })).toBe(100);
  });

  it('exposes queue depth by queue and state, and jobs by state, on scrape', async () => {
    expect(await value('mesh_worker_queue_depth', { queue: 'bulk-chunk', state: 'waiting' })).toBe(
      4,
    );
    expect(await value('mesh_worker_queue_depth', { queue: 'bulk-chunk', state: 'delayed' })).toBe(
      2,
    );
  });

  it('shows jobs by state from this scrape (one queue read per scrape), not the previous one', async () => {
    const before = reads;
    const text = await registry.metrics();
    expect(reads).toBe(before + 1);
    expect(text).toContain(`mesh_worker_jobs{state="waiting_for_version"} ${reads}`);
  });
});
