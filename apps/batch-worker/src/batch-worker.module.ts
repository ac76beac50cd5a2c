import { type DynamicModule, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { createRedisClient } from '@mesh/config';
import {
  HealthController,
  METRICS_REGISTRY,
  MetricsController,
  READINESS_CHECKS,
  RedisPingCheck,
  createMetricsRegistry,
} from '@mesh/telemetry';
import type Redis from 'ioredis';
import type { BatchWorkerConfig } from './batch-worker.config';

const REDIS = Symbol('REDIS');

/** The bulk-job worker. BullMQ processing arrives in a later milestone; today it owns health. */
@Module({})
export class BatchWorkerModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  static register(config: BatchWorkerConfig): DynamicModule {
    return {
      module: BatchWorkerModule,
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: REDIS, useFactory: () => createRedisClient(config.REDIS_URL, 'batch-worker') },
        { provide: METRICS_REGISTRY, useValue: createMetricsRegistry('batch-worker') },
        {
          provide: READINESS_CHECKS,
          inject: [REDIS],
          useFactory: (r: Redis) => [new RedisPingCheck(r)],
        },
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit();
  }
}
