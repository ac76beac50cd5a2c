import { type DynamicModule, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { createRedisClient } from '@mesh/config';
import { JobRepository } from '@mesh/jobs';
import {
  HealthController,
  METRICS_REGISTRY,
  MetricsController,
  READINESS_CHECKS,
  RedisPingCheck,
  createMetricsRegistry,
} from '@mesh/telemetry';
import type Redis from 'ioredis';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { BatchWorkerConfig } from './batch-worker.config';
import type { ChunkInference, PinnedModel } from './core/chunk-inference';
import { ChunkProcessor } from './core/chunk.processor';
import { ChunkRunner } from './core/chunk.runner';
import { JobFinalizer } from './core/job-finalizer';
import { WorkerMetrics } from './core/worker.metrics';
import { BulkQueueWorkers } from './queue/bulk-queue.workers';
import { QueueDepthReader } from './queue/queue-depth.reader';

const REDIS = Symbol('REDIS');
const INFERENCE = Symbol('INFERENCE');
const LOGGER = Symbol('LOGGER');

/** The bulk-job worker: BullMQ chunk and job processors over the shared inference path. */
@Module({})
export class BatchWorkerModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  static register(
    config: BatchWorkerConfig,
    logger: Logger,
    inference: ChunkInference<PinnedModel>,
  ): DynamicModule {
    return {
      module: BatchWorkerModule,
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: LOGGER, useValue: logger },
        { provide: INFERENCE, useValue: inference },
        { provide: REDIS, useFactory: () => createRedisClient(config.REDIS_URL, 'batch-worker') },
        { provide: METRICS_REGISTRY, useValue: createMetricsRegistry('batch-worker') },
        {
          provide: JobRepository,
          inject: [REDIS],
          useFactory: (redis: Redis) =>
            new JobRepository(redis, {
              keyPrefix: config.REDIS_KEY_PREFIX,
              retentionSeconds: config.JOBS_RETENTION_SECONDS,
            }),
        },
        {
          provide: QueueDepthReader,
          useFactory: () => new QueueDepthReader(config.REDIS_URL, config.REDIS_KEY_PREFIX),
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
          provide: BulkQueueWorkers,
          inject: [JobRepository, WorkerMetrics],
          useFactory: (repository: JobRepository, metrics: WorkerMetrics) => {
            const processor = new ChunkProcessor(
              repository,
              inference,
              new ChunkRunner(inference),
              metrics,
              logger,
              {
                inFlightBatches: config.WORKER_INFLIGHT_BATCHES,
                batchRows: config.WORKER_BATCH_ROWS,
              },
            );
            return new BulkQueueWorkers(
              config,
              inference,
              processor,
              new JobFinalizer(repository, metrics, logger),
              logger,
            );
          },
        },
        {
          provide: READINESS_CHECKS,
          inject: [REDIS],
          useFactory: (redis: Redis) => [new RedisPingCheck(redis)],
        },
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

function countByState(jobs: readonly { state: string }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const j of jobs) out[j.state] = (out[j.state] ?? 0) + 1;
  return out;
}
