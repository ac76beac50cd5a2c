import { jobPayloadSchema, type JobRepository } from '@mesh/jobs';
import type { Logger } from 'pino';
import { jobTraceOf, recordJobFinished } from './chunk.trace';
import type { WorkerMetrics } from './worker.metrics';

/**
 * The flow's parent: BullMQ runs it once every chunk has completed, so the job is complete
 * (a job cancelled meanwhile keeps its state: finish only moves unfinished jobs).
 */
export class JobFinalizer {
  constructor(
    private readonly repository: JobRepository,
    private readonly metrics: WorkerMetrics,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async process(data: unknown): Promise<void> {
    const { jobId } = jobPayloadSchema.parse(data);
    const startedAt = this.now();
    const state = await this.repository.finish(jobId, 'completed', startedAt);
    if (state) this.metrics.jobsFinished.inc({ state });
    const record = await this.repository.get(jobId);
    const traceparent = record ? jobTraceOf(record) : undefined;
    if (traceparent !== undefined) recordJobFinished(traceparent, record!, startedAt, this.now());
    this.logger.info(
      {
        event: 'job-finished',
        jobId,
        state,
        total: record?.total,
        succeeded: record?.succeeded,
        failedItems: record?.failedItems,
      },
      'job finished',
    );
  }
}
