import { type DynamicModule, Module } from '@nestjs/common';
import { RedisHealthModule } from '@mesh/telemetry';
import type { BatchWorkerConfig } from './batch-worker.config';

/** The bulk-job worker. BullMQ processing arrives in a later milestone; today it owns health. */
@Module({})
export class BatchWorkerModule {
  static register(config: BatchWorkerConfig): DynamicModule {
    return {
      module: BatchWorkerModule,
      imports: [RedisHealthModule.register('batch-worker', config.REDIS_URL)],
    };
  }
}
