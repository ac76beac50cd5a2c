import { FlowProducer } from 'bullmq';
import type { RedisClient } from '@mesh/config';
import { bullPrefix, chunkJobSpec, parentJobSpec, type RetryPolicy } from './job-queue-contracts';
import type { JobRecord } from './job.types';

/**
 * Enqueues one BullMQ flow per job: a parent in the job queue and one child per chunk in the
 * chunk queue. The parent runs once every child has completed (chunks that fail for good
 * still complete, with item errors), so it can mark the job finished.
 */
export class JobFlowProducer {
  private readonly flows: FlowProducer;

  constructor(
    connection: RedisClient,
    keyPrefix: string,
    private readonly retry: RetryPolicy,
  ) {
    this.flows = new FlowProducer({ connection, prefix: bullPrefix(keyPrefix) });
  }

  async enqueue(record: JobRecord): Promise<void> {
    const children = [];
    for (let chunk = 0; chunk < record.chunks; chunk++) {
      children.push(chunkJobSpec({ jobId: record.id, tenant: record.tenant, chunk }, this.retry));
    }
    await this.flows.add({
      ...parentJobSpec({ jobId: record.id, tenant: record.tenant }, this.retry),
      children,
    });
  }

  async close(): Promise<void> {
    await this.flows.close();
  }
}
