/**
 * The tenant rate limiter's window script on a real Redis Cluster (3 primaries): a script whose
 * keys span slots fails with CROSSSLOT, so passing means it addresses one key per call.
 */
import { closeRedis, createRedis, type RedisClient } from '@mesh/config';
import { RedisClusterHarness } from '../../../test/support/redis-servers';
import { TenantRateLimiter } from './tenant-rate-limiter';
import { uniquePrefix } from '../../../test/support/redis-prefix';

const PREFIX = uniquePrefix(__filename, undefined, { ownServer: true });

let cluster: RedisClusterHarness;
let redis: RedisClient;

beforeAll(async () => {
  cluster = await RedisClusterHarness.start();
  redis = createRedis('commands', { endpoint: cluster.endpoint, name: 'int-tenancy-cluster' });
  redis.on('error', () => undefined);
});

afterAll(async () => {
  if (redis) await closeRedis(redis);
  await cluster?.stop();
});

describe('tenancy on a Redis Cluster', () => {
  it('rate-limits tenants through the shared window script', async () => {
    const limiter = new TenantRateLimiter(redis, { keyPrefix: PREFIX });
    const tight = { name: 'globex', rateLimit: { requestsPerSecond: 2, burst: 3 } };
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter.consume(tight));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
  });
});
