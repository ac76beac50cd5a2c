import { type DynamicModule, Module } from '@nestjs/common';
import type { RedisClient } from '@mesh/config';
import type { Registry } from 'prom-client';
import { HealthController } from './health.controller';
import { createMetricsRegistry } from './metrics-registry';
import { MetricsController } from './metrics.controller';
import { RedisPingCheck } from './redis-ping.check';
import { METRICS_REGISTRY, READINESS_CHECKS } from './telemetry-tokens';

/**
 * `/healthz/*` and `/metrics` for an app whose only readiness dependency is Redis. `redis`: the
 * token of the connection it pings, from the app's RedisModule (which closes it).
 */
@Module({})
export class RedisHealthModule {
  /** `registry`: the app's own, when it registers metrics of its own (default: a new one). */
  static register(
    service: string,
    redis: symbol,
    registry: Registry = createMetricsRegistry(service),
  ): DynamicModule {
    return {
      module: RedisHealthModule,
      controllers: [HealthController, MetricsController],
      providers: [
        { provide: METRICS_REGISTRY, useValue: registry },
        {
          provide: READINESS_CHECKS,
          inject: [redis],
          useFactory: (client: RedisClient) => [new RedisPingCheck(client)],
        },
      ],
      exports: [METRICS_REGISTRY],
    };
  }
}
