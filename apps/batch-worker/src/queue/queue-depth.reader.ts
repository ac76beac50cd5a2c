import type { BeforeApplicationShutdown } from '@nestjs/common';
import { createRedisClient } from '@mesh/config';
import { CHUNK_QUEUE, JOB_QUEUE, bullPrefix } from '@mesh/jobs';
import { Queue } from 'bullmq';
import type Redis from 'ioredis';

const STATES = [
  'waiting',
  'prioritized',
  'active',
  'delayed',
  'waiting-children',
  'failed',
] as const;

/** Job counts of the bulk queues by state, for the queue-depth gauge (opened on first scrape). */
export class QueueDepthReader implements BeforeApplicationShutdown {
  private queues: Queue[] = [];
  private connection?: Redis;

  constructor(
    private readonly redisUrl: string,
    private readonly keyPrefix: string,
  ) {}

  async counts(): Promise<Record<string, number>> {
    if (!this.connection) {
      this.connection = createRedisClient(this.redisUrl, 'worker-queue-depth');
      const prefix = bullPrefix(this.keyPrefix);
      this.queues = [CHUNK_QUEUE, JOB_QUEUE].map(
        (name) => new Queue(name, { prefix, connection: this.connection! }),
      );
    }
    const out: Record<string, number> = {};
    for (const q of this.queues) {
      const counts = await q.getJobCounts(...STATES);
      for (const [state, n] of Object.entries(counts)) out[`${q.name}/${state}`] = n;
    }
    return out;
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.queues.map((q) => q.close()));
    await this.connection?.quit().catch(() => this.connection?.disconnect());
  }
}
