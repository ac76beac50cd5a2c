import { hostname } from 'node:os';
import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { redisEndpointOf, type RedisClient } from '@mesh/config';
import { LoadedVersionsFeed } from '@mesh/inference';
import { JobRepository, replicaAckOf } from '@mesh/jobs';
import { PlacementDemand } from '@mesh/placement';
import {
  HealthController,
  METRICS_REGISTRY,
  MetricsController,
  READINESS_CHECKS,
  RedisModule,
  RedisPingCheck,
  createMetricsRegistry,
  type RedisConnectionSpec,
} from '@mesh/telemetry';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { BatchWorkerConfig } from '@mesh/app-config';
import type { ChunkInference, PinnedModel } from './core/chunk-inference';
import { ChunkProcessor } from './core/chunk-processor';
import { ChunkRunner } from './core/chunk-runner';
import { ColdStartRequester } from './core/cold-start-requester';
import { JobFinalizer } from './core/job-finalizer';
import { WorkerMetrics } from './core/worker.metrics';
import { BulkQueueWorkers } from './queue/bulk-queue-workers';
import { PlacementLoadedListener } from './queue/placement-loaded-listener';
import { QueueDepthReader } from './queue/queue-depth-reader';

const REDIS = Symbol('REDIS');
const CHUNKS_REDIS = Symbol('CHUNKS_REDIS');
const JOBS_REDIS = Symbol('JOBS_REDIS');
const QUEUE_DEPTH_REDIS = Symbol('QUEUE_DEPTH_REDIS');
const PLACEMENT_SUBSCRIBER = Symbol('PLACEMENT_SUBSCRIBER');

const CONNECTIONS: RedisConnectionSpec[] = [
  { token: REDIS, role: 'commands', name: 'batch-worker' },
  { token: CHUNKS_REDIS, role: 'bullmq', name: 'worker-chunks' },
  { token: JOBS_REDIS, role: 'bullmq', name: 'worker-jobs' },
  // Opened on the first scrape of the queue-depth gauge.
  { token: QUEUE_DEPTH_REDIS, role: 'bullmq', name: 'worker-queue-depth', lazyConnect: true },
  { token: PLACEMENT_SUBSCRIBER, role: 'subscriber', name: 'worker-placement' },
];

/**
 * The bulk-job worker: BullMQ chunk and job processors over the shared inference path.
 * Shutdown order: the workers finish their chunks (beforeApplicationShutdown), then the
 * queue-depth queues close, then RedisModule closes every connection.
 */
@Module({})
export class BatchWorkerModule {
  static register(
    config: BatchWorkerConfig,
    logger: Logger,
    inference: ChunkInference<PinnedModel>,
  ): DynamicModule {
    return {
      module: BatchWorkerModule,
      imports: [
        RedisModule.register({ endpoint: redisEndpointOf(config), connections: CONNECTIONS }),
      ],
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: METRICS_REGISTRY, useValue: createMetricsRegistry('batch-worker') },
        {
          provide: JobRepository,
          inject: [REDIS],
          useFactory: (redis: RedisClient) =>
            new JobRepository(redis, {
              keyPrefix: config.REDIS_KEY_PREFIX,
              retentionSeconds: config.JOBS_RETENTION_SECONDS,
              // A chunk completes in the queue only once its results survive a failover.
              replicaAck: replicaAckOf(config, redisEndpointOf(config).mode),
            }),
        },
        {
          provide: READINESS_CHECKS,
          inject: [REDIS],
          useFactory: (redis: RedisClient) => [new RedisPingCheck(redis)],
        },
        ...queueProviders(config, logger, inference),
      ],
    };
  }
}

/** The queue side: depth reader, metrics, and the workers over the chunk processor. */
function queueProviders(
  config: BatchWorkerConfig,
  logger: Logger,
  inference: ChunkInference<PinnedModel>,
): Provider[] {
  return [
    {
      provide: QueueDepthReader,
      inject: [QUEUE_DEPTH_REDIS],
      useFactory: (redis: RedisClient) => new QueueDepthReader(redis, config.REDIS_KEY_PREFIX),
    },
    {
      provide: WorkerMetrics,
      inject: [METRICS_REGISTRY, JobRepository, QueueDepthReader],
      useFactory: (registry: Registry, repository: JobRepository, depth: QueueDepthReader) =>
        new WorkerMetrics(registry, async () => ({
          depth: await depth.counts(),
          jobs: countByState(await repository.list({ limit: 1000 })),
        })),
    },
    {
      provide: PlacementLoadedListener,
      inject: [PLACEMENT_SUBSCRIBER],
      useFactory: (subscriber: RedisClient) =>
        new PlacementLoadedListener(
          new LoadedVersionsFeed(subscriber, config.REDIS_KEY_PREFIX),
          inference,
          logger,
        ),
    },
    bulkQueueWorkers(config, logger, inference),
  ];
}

/** Cold-start asks of parked chunks, renewed once per version wait while the chunks wait. */
function coldStartRequester(
  config: BatchWorkerConfig,
  logger: Logger,
  redis: RedisClient,
): ColdStartRequester {
  const demand = new PlacementDemand(redis, config.REDIS_KEY_PREFIX);
  const by = `batch-worker-${hostname()}-${process.pid}`;
  return new ColdStartRequester(
    (model, version) => demand.request(model, version, by),
    config.WORKER_VERSION_WAIT_MS,
    (fields, message) => logger.warn(fields, message),
  );
}

/** The chunk and job workers: one chunk processor and one job finalizer over the repository. */
function bulkQueueWorkers(
  config: BatchWorkerConfig,
  logger: Logger,
  inference: ChunkInference<PinnedModel>,
): Provider {
  return {
    provide: BulkQueueWorkers,
    inject: [JobRepository, WorkerMetrics, CHUNKS_REDIS, JOBS_REDIS, REDIS],
    useFactory: (
      repository: JobRepository,
      metrics: WorkerMetrics,
      chunks: RedisClient,
      jobs: RedisClient,
      redis: RedisClient,
    ) => {
      const { WORKER_INFLIGHT_BATCHES: inFlightBatches, WORKER_BATCH_ROWS: batchRows } = config;
      const runner = new ChunkRunner(inference);
      const processor = new ChunkProcessor(
        repository,
        inference,
        runner,
        metrics,
        logger,
        { inFlightBatches, batchRows },
        coldStartRequester(config, logger, redis),
      );
      const finalizer = new JobFinalizer(repository, metrics, logger);
      return new BulkQueueWorkers(config, inference, processor, finalizer, logger, {
        chunks,
        jobs,
      });
    },
  };
}

function countByState(jobs: readonly { state: string }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const j of jobs) out[j.state] = (out[j.state] ?? 0) + 1;
  return out;
}
