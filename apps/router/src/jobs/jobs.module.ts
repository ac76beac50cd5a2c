import { Module, type OnApplicationShutdown } from '@nestjs/common';
import { redisEndpointOf, waitForReplicas, type RedisClient } from '@mesh/config';
import {
  bullPrefix,
  JobChangeFeed,
  JobFlowProducer,
  JobKeys,
  JobReader,
  JobRepository,
  replicaAckOf,
  retryPolicyOf,
} from '@mesh/jobs';
import { RoutingTableCache } from '@mesh/routing';
import { OpenStreamsRegistry } from '@mesh/telemetry';
import { RouteSelector } from '../catalog/route-selector';
import { RoutingTableModule } from '../catalog/routing-table.module';
import { GrpcErrorFilter } from '../grpc/grpc-error.hook';
import type { RouterConfig } from '@mesh/app-config';
import { JOB_CHANGES_SUBSCRIBER, REDIS, ROUTER_CONFIG } from '../router-tokens';
import { JobQueryService } from './job-query.service';
import { JobSubmissionService } from './job-submission.service';
import { JOB_UPLOAD_LIMITS, type JobUploadLimits } from './job-upload-limits';
import { JobsController } from './jobs.controller';
import { JobsGrpcController } from './jobs-grpc.controller';

const STORE = [ROUTER_CONFIG, REDIS];

function uploadLimits(config: RouterConfig): JobUploadLimits {
  return { maxBytes: config.JOBS_MAX_UPLOAD_BYTES, maxLineBytes: config.JOBS_MAX_LINE_BYTES };
}

function jobRepository(config: RouterConfig, redis: RedisClient): JobRepository {
  return new JobRepository(redis, {
    keyPrefix: config.REDIS_KEY_PREFIX,
    retentionSeconds: config.JOBS_RETENTION_SECONDS,
  });
}

function flowProducer(config: RouterConfig, redis: RedisClient): JobFlowProducer {
  return new JobFlowProducer(redis, config.REDIS_KEY_PREFIX, retryPolicyOf(config));
}

function changeFeed(config: RouterConfig, subscriber: RedisClient): JobChangeFeed {
  return new JobChangeFeed(subscriber, config.REDIS_KEY_PREFIX, config.JOBS_STREAM_POLL_MS);
}

function submissions(
  config: RouterConfig,
  redis: RedisClient,
  routes: RoutingTableCache,
  selector: RouteSelector,
  repository: JobRepository,
  flows: JobFlowProducer,
): JobSubmissionService {
  const ack = replicaAckOf(config, redisEndpointOf(config).mode);
  const keys = new JobKeys(config.REDIS_KEY_PREFIX);
  // The job's keys and its flow (BullMQ, same connection): WAIT on each primary that took them.
  const confirmDurable = (jobId: string) =>
    waitForReplicas(redis, [keys.meta(jobId), bullPrefix(config.REDIS_KEY_PREFIX)], ack);
  return new JobSubmissionService(
    routes,
    selector,
    repository,
    flows,
    {
      maxItems: config.JOBS_MAX_ITEMS,
      chunkSize: config.JOBS_CHUNK_SIZE,
      maxQueuedItems: config.JOBS_DEFAULT_MAX_QUEUED_ITEMS,
      maxConcurrentJobs: config.JOBS_DEFAULT_MAX_CONCURRENT_JOBS,
    },
    confirmDurable,
  );
}

/**
 * The bulk-job API: the job store, the flow producer (on the shared connection, so a
 * submission's wait stays bounded by its command timeout), submission, queries and streams.
 */
@Module({
  imports: [RoutingTableModule],
  controllers: [JobsController, JobsGrpcController],
  providers: [
    OpenStreamsRegistry,
    GrpcErrorFilter,
    { provide: JOB_UPLOAD_LIMITS, inject: [ROUTER_CONFIG], useFactory: uploadLimits },
    { provide: JobRepository, inject: STORE, useFactory: jobRepository },
    { provide: JobFlowProducer, inject: STORE, useFactory: flowProducer },
    {
      provide: JobSubmissionService,
      inject: [
        ROUTER_CONFIG,
        REDIS,
        RoutingTableCache,
        RouteSelector,
        JobRepository,
        JobFlowProducer,
      ],
      useFactory: submissions,
    },
    {
      provide: JobChangeFeed,
      inject: [ROUTER_CONFIG, JOB_CHANGES_SUBSCRIBER],
      useFactory: changeFeed,
    },
    {
      provide: JobQueryService,
      inject: [JobRepository, JobChangeFeed],
      useFactory: (repository: JobRepository, changes: JobChangeFeed) =>
        new JobQueryService(new JobReader(repository, { changes })),
    },
  ],
})
export class JobsModule implements OnApplicationShutdown {
  constructor(
    private readonly flows: JobFlowProducer,
    private readonly changes: JobChangeFeed,
  ) {}

  /** After the module's streams ended; RedisModule closes the connections afterwards. */
  async onApplicationShutdown(): Promise<void> {
    await this.flows.close();
    this.changes.close();
  }
}
