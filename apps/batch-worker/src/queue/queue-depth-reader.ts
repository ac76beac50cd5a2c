import type { OnApplicationShutdown } from '@nestjs/common';
import type { RedisClient } from '@mesh/config';
import { CHUNK_QUEUE, JOB_QUEUE, bullPrefix } from '@mesh/jobs';
import { Queue } from 'bullmq';

const STATES = [
  'waiting',
  'prioritized',
  'active',
  'delayed',
  'waiting-children',
  'failed',
] as const;

/**
 * Job counts of the bulk queues by state, for the queue-depth gauge. `connection`: a lazy one
 * (connects on the first scrape); its queues close after the workers, Redis after them.
 */
export class QueueDepthReader implements OnApplicationShutdown {
  private queues: Queue[] = [];

  constructor(
    private readonly connection: RedisClient,
    private readonly keyPrefix: string,
  ) {}

  async counts(): Promise<Record<string, number>> {
    if (this.queues.length === 0) {
      const prefix = bullPrefix(this.keyPrefix);
      this.queues = [CHUNK_QUEUE, JOB_QUEUE].map(
        (name) => new Queue(name, { prefix, connection: this.connection }),
      );
    }
    const out: Record<string, number> = {};
    for (const q of this.queues) {
      const counts = await q.getJobCounts(...STATES);
      for (const [state, n] of Object.entries(counts)) out[`${q.name}/${state}`] = n;
    }
    return out;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.queues.map((q) => q.close()));
  }
}
