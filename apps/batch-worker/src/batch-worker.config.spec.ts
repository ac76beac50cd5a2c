import { redisEndpointOf } from '@mesh/config';
import { loadBatchWorkerConfig } from './batch-worker.config';

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
