import { randomUUID } from 'node:crypto';
import {
  type JobFlowProducer,
  type JobRecord,
  type JobRepository,
  JobUploadWriter,
} from '@mesh/jobs';
import type { RoutingTableCache, Tenant } from '@mesh/routing';
import { traceparentOf } from '@mesh/telemetry';
import type { RouteSelector } from '../catalog/route-selector';
import type { SubmitJobCommand, SubmittedJob } from './job-commands';
import { QuotaHold, type QuotaDefaults } from './job-quota';
import { recordSubmitCaller, recordSubmittedJob } from './job.trace';

export interface SubmissionLimits extends QuotaDefaults {
  maxItems: number;
  chunkSize: number;
}

/**
 * Confirms a stored job is safe from a failover before it is acknowledged (Redis WAIT for
 * replicas); throws a store-unavailable error when it cannot be confirmed in time.
 */
export type ConfirmDurable = (jobId: string) => Promise<void>;

/**
 * Accepts a bulk job: checks the route and takes a slot of the tenant's quota before reading
 * any item, streams the items into the job store (reserving the quota's items chunk by chunk),
 * pins the job to one (model, version, pipeline) able to serve every item, then makes it
 * visible and enqueues its flow. Anything refused on the way leaves nothing stored and gives
 * its quota back.
 */
export class JobSubmissionService {
  constructor(
    private readonly routes: RoutingTableCache,
    private readonly selector: RouteSelector,
    private readonly repository: JobRepository,
    private readonly flows: JobFlowProducer,
    private readonly limits: SubmissionLimits,
    private readonly confirmDurable: ConfirmDurable,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Stores and enqueues the job, then confirms it on the replicas before answering. A job that
   * could not be confirmed stays stored and queued (it may well run): the 503 tells the caller
   * to retry with the same Idempotency-Key, which answers that job instead of a second one.
   */
  async submit(tenant: Tenant, cmd: SubmitJobCommand): Promise<SubmittedJob> {
    recordSubmitCaller(cmd.span, tenant.name, cmd.task);
    const submitted = await this.store(tenant, cmd);
    await this.confirmDurable(submitted.jobId);
    return submitted;
  }

  private async store(tenant: Tenant, cmd: SubmitJobCommand): Promise<SubmittedJob> {
    // Unknown or forbidden task: refused before a byte of the upload is read.
    const { route } = this.routes.resolve(tenant.name, cmd.task);
    if (cmd.idempotencyKey !== undefined) {
      const replay = await this.replay(tenant, cmd.idempotencyKey);
      if (replay) {
        await cmd.discard?.();
        recordSubmittedJob(cmd.span, replay, true);
        return replay;
      }
    }
    const jobId = randomUUID();
    const hold = await QuotaHold.take(
      this.repository.quota,
      (id) => this.repository.isOver(id),
      tenant,
      jobId,
      this.limits,
    );
    let chunks = 0;
    try {
      const writer = new JobUploadWriter(this.repository, this.limits.chunkSize, (n) =>
        hold.items(n),
      );
      const summary = await writer.write(jobId, cmd.items(this.limits.maxItems));
      chunks = summary.chunks;
      const version = this.selector.pinJob(route, cmd.stickyKey, summary.firstPair);
      const record: JobRecord = {
        id: jobId,
        tenant: tenant.name,
        task: cmd.task,
        model: version.model,
        version: version.version,
        pipeline: version.pipeline,
        state: 'queued',
        total: summary.total,
        chunkSize: this.limits.chunkSize,
        chunks: summary.chunks,
        processed: 0,
        succeeded: 0,
        failedItems: 0,
        createdAt: this.now(),
        // The worker continues the job's trace from the span that accepted it.
        ...(cmd.span ? { traceparent: traceparentOf(cmd.span) } : {}),
      };
      if (cmd.idempotencyKey !== undefined) {
        const bound = await this.repository.claimIdempotency(
          tenant.name,
          cmd.idempotencyKey,
          jobId,
        );
        if (bound !== jobId) {
          // A concurrent retry with the same key won the race: answer its job, drop ours.
          const other = await this.replay(tenant, cmd.idempotencyKey);
          if (other) {
            await this.abandon(hold, jobId, chunks);
            recordSubmittedJob(cmd.span, other, true);
            return other;
          }
        }
      }
      await this.repository.commit(record);
      await this.flows.enqueue(record);
      const submitted = {
        jobId,
        model: record.model,
        version: record.version,
        pipeline: record.pipeline,
        total: record.total,
      };
      recordSubmittedJob(cmd.span, submitted, false);
      cmd.span?.setAttribute('mesh.job.chunks', record.chunks);
      return submitted;
    } catch (err: unknown) {
      await this.abandon(hold, jobId, chunks);
      throw err;
    }
  }

  /** A submission that does not become a job: its items are deleted, its quota given back. */
  private async abandon(hold: QuotaHold, jobId: string, chunks: number): Promise<void> {
    await this.repository.discard(jobId, chunks);
    await hold.release();
  }

  private async replay(tenant: Tenant, key: string): Promise<SubmittedJob | undefined> {
    const id = await this.repository.idempotentJob(tenant.name, key);
    const job = id === undefined ? undefined : await this.repository.get(id);
    if (!job || job.tenant !== tenant.name) return undefined;
    return {
      jobId: job.id,
      model: job.model,
      version: job.version,
      pipeline: job.pipeline,
      total: job.total,
    };
  }
}
