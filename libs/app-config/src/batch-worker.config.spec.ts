import { redisEndpointOf } from '@mesh/config';
import { loadBatchWorkerConfig } from './batch-worker.config';

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
  it('is the local standalone Redis by default, Sentinels when named', () => {
    expect(redisEndpointOf(loadBatchWorkerConfig({}))).toEqual({
      mode: 'standalone',
      url: 'redis://127.0.0.1:6379',
      tls: false,
    });
    const sentinel = loadBatchWorkerConfig({
      REDIS_SENTINELS: 's1:26379,s2:26379',
      REDIS_SENTINEL_MASTER: 'mesh',
    });
    expect(redisEndpointOf(sentinel)).toMatchObject({ mode: 'sentinel', masterName: 'mesh' });
  });

  it('refuses two modes at once, naming both variables', () => {
    expect(() =>
      loadBatchWorkerConfig({ REDIS_URL: 'redis://a:6379', REDIS_CLUSTER_NODES: 'b:6379' }),
    ).toThrow('REDIS_URL and REDIS_CLUSTER_NODES: name one Redis mode');
  });
});
