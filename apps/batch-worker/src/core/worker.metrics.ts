import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The worker's bulk-job metrics on `/metrics`. */
export class WorkerMetrics {
  readonly items: Counter<'outcome'>;
  readonly itemFailures: Counter<'reason'>;
  readonly chunkSeconds: Histogram<'outcome'>;
  readonly chunks: Counter<'outcome'>;
  readonly jobsFinished: Counter<'state'>;
  readonly itemsPerSecond: Gauge;
  private recent: { at: number; items: number }[] = [];

  constructor(
    registry: Registry,
    collectQueue: () => Promise<{ depth: Record<string, number>; jobs: Record<string, number> }>,
    private readonly clock: () => number = Date.now,
  ) {
    this.items = new Counter({
      name: 'mesh_worker_items_total',
      help: 'Job items processed, by outcome (ok or error)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.itemFailures = new Counter({
      name: 'mesh_worker_item_failures_total',
      help: 'Item-level failures written to results, by reason code',
      labelNames: ['reason'],
      registers: [registry],
    });
    this.chunkSeconds = new Histogram({
      name: 'mesh_worker_chunk_duration_seconds',
      help: 'Time to run one chunk (read, tokenize, infer, write)',
      labelNames: ['outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
      registers: [registry],
    });
    this.chunks = new Counter({
      name: 'mesh_worker_chunks_total',
      help: 'Chunks handled, by outcome (written, retried, waiting, skipped, failed_items)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.jobsFinished = new Counter({
      name: 'mesh_worker_jobs_finished_total',
      help: 'Jobs this worker marked finished, by final state',
      labelNames: ['state'],
      registers: [registry],
    });
    this.itemsPerSecond = new Gauge({
      name: 'mesh_worker_items_per_second',
      help: 'Items this worker processed per second over the last 30 s',
      registers: [registry],
      collect: () => this.itemsPerSecond.set(this.rate(this.clock())),
    });
    // One Redis read per scrape for both gauges. The registry collects all metrics at once
    // (Promise.all), so each gauge must await the read itself: setting one gauge from the
    // other's collect would expose the previous scrape's values.
    let pending: ReturnType<typeof collectQueue> | undefined;
    const snapshot = () =>
      (pending ??= collectQueue().finally(() => {
        pending = undefined;
      }));
    const depth = new Gauge({
      name: 'mesh_worker_queue_depth',
      help: 'BullMQ jobs in the bulk queues by queue and state (waiting, active, delayed, ...)',
      labelNames: ['queue', 'state'],
      registers: [registry],
      collect: async () => {
        const q = await snapshot();
        depth.reset();
        for (const [key, n] of Object.entries(q.depth)) {
          const [queue = '', state = ''] = key.split('/');
          depth.set({ queue, state }, n);
        }
      },
    });
    const jobs = new Gauge({
      name: 'mesh_worker_jobs',
      help: 'Bulk jobs by state, every tenant (the newest 1000 jobs kept)',
      labelNames: ['state'],
      registers: [registry],
      collect: async () => {
        const q = await snapshot();
        jobs.reset();
        for (const [state, n] of Object.entries(q.jobs)) jobs.set({ state }, n);
      },
    });
  }

  processed(ok: number, failed: number, reasons: string[], now = this.clock()): void {
    this.items.inc({ outcome: 'ok' }, ok);
    if (failed > 0) this.items.inc({ outcome: 'error' }, failed);
    for (const r of reasons) this.itemFailures.inc({ reason: r });
    this.recent.push({ at: now, items: ok + failed });
  }

  private rate(now: number): number {
    this.recent = this.recent.filter((r) => now - r.at <= 30_000);
    return this.recent.reduce((sum, r) => sum + r.items, 0) / 30;
  }
}
