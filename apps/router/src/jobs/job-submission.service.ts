import { randomUUID } from 'node:crypto';
import {
  JobQuotaExceededError,
  JobTooLargeError,
  type JobFlowProducer,
  type JobRecord,
  type JobRepository,
  JobUploadWriter,
} from '@mesh/jobs';
import { PipelineRegistry } from '@mesh/preprocessing';
import {
  requireInputCapability,
  type RoutingTableCache,
  type Tenant,
  type WeightedVersionPicker,
} from '@mesh/routing';
import type { RouteSelector } from '../core/route.selector';
import type { VersionCatalog } from '@mesh/inference';
import type { SubmitJobCommand, SubmittedJob } from './job.commands';
import { quotaOf, type QuotaDefaults } from './job-quota';

export interface SubmissionLimits extends QuotaDefaults {
  maxItems: number;
  chunkSize: number;
}

/**
 * Accepts a bulk job: checks the route and the tenant's quota before reading any item,
 * streams the items into the job store, pins the job to one (model, version, pipeline) able
 * to serve every item, then makes it visible and enqueues its flow. Anything refused on the
 * way leaves nothing stored.
 */
export class JobSubmissionService {
  private readonly pipelines = new PipelineRegistry();

  constructor(
    private readonly routes: RoutingTableCache,
    private readonly picker: WeightedVersionPicker,
    private readonly selector: RouteSelector,
    private readonly catalog: VersionCatalog,
    private readonly repository: JobRepository,
    private readonly flows: JobFlowProducer,
    private readonly limits: SubmissionLimits,
    private readonly now: () => number = Date.now,
  ) {}

  async submit(tenant: Tenant, cmd: SubmitJobCommand): Promise<SubmittedJob> {
    // Unknown or forbidden task: refused before a byte of the upload is read.
    const { route } = this.routes.resolve(tenant.name, cmd.task);
    if (cmd.idempotencyKey !== undefined) {
      const replay = await this.replay(tenant, cmd.idempotencyKey);
      if (replay) {
        await cmd.discard?.();
        return replay;
      }
    }
    const maxItems = await this.admissibleItems(tenant);
    const jobId = randomUUID();
    const writer = new JobUploadWriter(this.repository, this.limits.chunkSize);
    let summary;
    try {
      summary = await writer.write(jobId, cmd.items(maxItems));
    } catch (err: unknown) {
      if (
        err instanceof JobTooLargeError &&
        err.unit === 'items' &&
        maxItems < this.limits.maxItems
      ) {
        throw new JobQuotaExceededError(
          'maxQueuedItems',
          quotaOf(tenant, this.limits).maxQueuedItems,
          `tenant '${tenant.name}' may have at most ${quotaOf(tenant, this.limits).maxQueuedItems} queued items; ${maxItems} remain`,
        );
      }
      throw err;
    }
    let record: JobRecord;
    try {
      const picked = this.picker.pick(route, {
        ...(cmd.stickyKey === undefined ? {} : { stickyKey: cmd.stickyKey }),
        unroutableReason: requireInputCapability(
          (m, v) => this.selector.unroutableReason(m, v),
          { pairs: summary.hasPairs },
          (m, v) => this.pairsProblem(m, v),
        ),
      });
      const version = this.catalog.servable(picked.model, picked.version);
      if (!version) throw new Error(`catalog lost ${picked.model} v${picked.version}`);
      record = {
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
      };
      if (cmd.idempotencyKey !== undefined) {
        const bound = await this.repository.claimIdempotency(
          tenant.name,
          cmd.idempotencyKey,
          jobId,
        );
        if (bound !== jobId) {
          await this.repository.discard(jobId, summary.chunks);
          const other = await this.replay(tenant, cmd.idempotencyKey);
          if (other) return other;
        }
      }
    } catch (err: unknown) {
      await this.repository.discard(jobId, summary.chunks);
      throw err;
    }
    await this.repository.commit(record);
    await this.flows.enqueue(record);
    return {
      jobId,
      model: record.model,
      version: record.version,
      pipeline: record.pipeline,
      total: record.total,
    };
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

  /** Items this upload may hold: the job cap, lowered to what the tenant's quota leaves. */
  private async admissibleItems(tenant: Tenant): Promise<number> {
    const quota = quotaOf(tenant, this.limits);
    const active = await this.repository.active(tenant.name);
    if (active.length >= quota.maxConcurrentJobs) {
      throw new JobQuotaExceededError(
        'maxConcurrentJobs',
        quota.maxConcurrentJobs,
        `tenant '${tenant.name}' already has ${active.length} unfinished jobs (limit ${quota.maxConcurrentJobs})`,
      );
    }
    const queued = active.reduce((sum, j) => sum + (j.total - j.processed), 0);
    const left = quota.maxQueuedItems - queued;
    if (left <= 0) {
      throw new JobQuotaExceededError(
        'maxQueuedItems',
        quota.maxQueuedItems,
        `tenant '${tenant.name}' already has ${queued} queued items (limit ${quota.maxQueuedItems})`,
      );
    }
    return Math.min(this.limits.maxItems, left);
  }

  /** Why (model, version) cannot take text pairs, or undefined when it can. */
  private pairsProblem(model: string, version: number): string | undefined {
    const v = this.catalog.servable(model, version);
    if (!v) return undefined;
    if (v.kind === 'embedding') return `${model} v${version} is an embedding model: no text pairs`;
    const [name = '', n = '0'] = v.pipeline.split('@');
    return this.pipelines.get(name, Number(n))?.pairs
      ? undefined
      : `${model} v${version}: pipeline ${v.pipeline} takes single texts only`;
  }
}
