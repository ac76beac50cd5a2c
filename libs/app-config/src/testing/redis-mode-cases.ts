import { redisEndpointOf, type RedisEnvValues } from '@mesh/config';

/**
 * The Redis-mode cases every service's config passes, as `it`s for the caller's describe: the
 * local standalone Redis by default, Sentinels when named, two modes at once refused.
 */
export function itReadsTheRedisMode(load: (env: Record<string, string>) => RedisEnvValues): void {
  it('is the local standalone Redis by default, Sentinels when named', () => {
    expect(redisEndpointOf(load({}))).toEqual({
      mode: 'standalone',
      url: 'redis://127.0.0.1:6379',
      tls: false,
    });
    const sentinel = load({ REDIS_SENTINELS: 's1:26379,s2:26379', REDIS_SENTINEL_MASTER: 'mesh' });
    expect(redisEndpointOf(sentinel)).toMatchObject({ mode: 'sentinel', masterName: 'mesh' });
  });

  it('refuses two modes at once, naming both variables', () => {
    expect(() => load({ REDIS_URL: 'redis://a:6379', REDIS_CLUSTER_NODES: 'b:6379' })).toThrow(
      'REDIS_URL and REDIS_CLUSTER_NODES: name one Redis mode',
    );
  });
}
