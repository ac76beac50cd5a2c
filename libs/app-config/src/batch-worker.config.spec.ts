import { loadBatchWorkerConfig } from './batch-worker.config';
import { itReadsTheRedisMode } from './testing/redis-mode-cases';

describe('batch-worker config: backend channels', () => {
  it('gives each inference call 30 s by default (bulk batches are larger), KSERVE_DEADLINE_MS when set', () => {
    expect(loadBatchWorkerConfig({}).KSERVE_DEADLINE_MS).toBe(30_000);
    expect(loadBatchWorkerConfig({ KSERVE_DEADLINE_MS: '' }).KSERVE_DEADLINE_MS).toBe(30_000);
    expect(loadBatchWorkerConfig({ KSERVE_DEADLINE_MS: '900' }).KSERVE_DEADLINE_MS).toBe(900);
  });

  it('no longer reads the names it had before the KSERVE_* set', () => {
    const config = loadBatchWorkerConfig({
      GRPC_MAX_MESSAGE_BYTES: '1048576',
      WORKER_INFER_TIMEOUT_MS: '2500',
      WORKER_DISCOVERY_INTERVAL_MS: '300',
    });
    expect(config).toMatchObject({
      KSERVE_MAX_MESSAGE_BYTES: 64 * 1024 * 1024,
      KSERVE_DEADLINE_MS: 30_000,
      KSERVE_HEALTH_INTERVAL_MS: 2000,
    });
  });
});

describe('batch-worker config: Redis mode', () => {
  itReadsTheRedisMode(loadBatchWorkerConfig);
});
