import { type DynamicModule, Module } from '@nestjs/common';
import { RedisHealthModule } from '@mesh/telemetry';
import type { CoordinatorConfig } from './coordinator.config';

/** The version-switch coordinator. Rollout plans arrive in a later milestone; today it owns health. */
@Module({})
export class CoordinatorModule {
  static register(config: CoordinatorConfig): DynamicModule {
    return {
      module: CoordinatorModule,
      imports: [RedisHealthModule.register('coordinator', config.REDIS_URL)],
    };
  }
}
