/**
 * The tenant rate limiter's window script on a real Redis Cluster (3 primaries): a script whose
 * keys span slots fails with CROSSSLOT, so passing means it addresses one key per call.
 */
import { TenantRateLimiter } from './tenant-rate-limiter';
import { suiteCluster } from '../../../test/support/suite-redis';

const cluster = suiteCluster(__filename, 'int-tenancy-cluster');
const PREFIX = cluster.prefix;

beforeAll(() => cluster.start());
afterAll(() => cluster.close());

describe('tenancy on a Redis Cluster', () => {
  it('rate-limits tenants through the shared window script', async () => {
    const limiter = new TenantRateLimiter(cluster.redis, { keyPrefix: PREFIX });
    const tight = { name: 'globex', rateLimit: { requestsPerSecond: 2, burst: 3 } };
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter.consume(tight));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
  });
});
