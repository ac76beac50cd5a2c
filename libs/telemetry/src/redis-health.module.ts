import { type DynamicModule, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { createRedisClient } from '@mesh/config';
import type Redis from 'ioredis';
import type { Registry } from 'prom-client';
import { HealthController } from './health.controller';
import { createMetricsRegistry } from './metrics.registry';
import { MetricsController } from './metrics.controller';
import { RedisPingCheck } from './redis-ping.check';
import { METRICS_REGISTRY, READINESS_CHECKS } from './telemetry.tokens';

const HEALTH_REDIS = Symbol('HEALTH_REDIS');

/**
 * `/healthz/*` and `/metrics` for an app whose only readiness dependency is Redis; owns the
 * Redis connection it pings and closes it on shutdown.
 */
@Module({})
export class RedisHealthModule implements OnApplicationShutdown {
  constructor(@Inject(HEALTH_REDIS) private readonly redis: Redis) {}

  /** `registry`: the app's own, when it registers metrics of its own (default: a new one). */
  static register(
    service: string,
    redisUrl: string,
    registry: Registry = createMetricsRegistry(service),
  ): DynamicModule {
    return {
      module: RedisHealthModule,
      controllers: [HealthController, MetricsController],
      providers: [
        {
          provide: HEALTH_REDIS,
          useFactory: () => createRedisClient(redisUrl, `${service}-health`),
        },
        { provide: METRICS_REGISTRY, useValue: registry },
        {
          provide: READINESS_CHECKS,
          inject: [HEALTH_REDIS],
          useFactory: (redis: Redis) => [new RedisPingCheck(redis)],
        },
      ],
      exports: [METRICS_REGISTRY],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
