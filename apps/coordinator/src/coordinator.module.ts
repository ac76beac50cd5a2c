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
import type { CoordinatorConfig } from './coordinator.config';

const REDIS = Symbol('REDIS');

/** The version-switch coordinator. Rollout plans arrive in a later milestone; today it owns health. */
@Module({})
export class CoordinatorModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  static register(config: CoordinatorConfig): DynamicModule {
    return {
      module: CoordinatorModule,
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: REDIS, useFactory: () => createRedisClient(config.REDIS_URL, 'coordinator') },
        { provide: METRICS_REGISTRY, useValue: createMetricsRegistry('coordinator') },
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
