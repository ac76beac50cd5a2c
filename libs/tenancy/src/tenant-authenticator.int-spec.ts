import { RoutingTableCache, RoutingTableRepository, type Tenant } from '@mesh/routing';
import { pollUntil } from '../../../test/support/poll';
import { sha256Hex } from './api-key';
import { TenantAuthenticator } from './tenant-authenticator';
import { seededTable } from '../../routing/src/testing/routing-fixtures';
import { suiteRedis } from '../../../test/support/suite-redis';

const suite = suiteRedis(__filename, 'test-tenant-authenticator');
const keyPrefix = suite.prefix;
let cache: RoutingTableCache | undefined;

const seed = seededTable();
const [acme] = seed.tenants as [Tenant];

afterAll(async () => {
  await cache?.close();
  await suite.close();
});

describe('TenantAuthenticator over a live routing table cache (real Redis)', () => {
  it('sees a new tenant key as soon as the cache has it', async () => {
    const repository = new RoutingTableRepository(suite.connect(), { keyPrefix });
    await repository.seedIfAbsent(seed, 'router');
    // A 60 s refresh timer: reaching epoch 2 within the poll's deadline means pub/sub delivered it.
    cache = new RoutingTableCache(
      new RoutingTableRepository(suite.connect(), { keyPrefix }),
      suite.connect(),
      {
        refreshIntervalMs: 60_000,
      },
    );
    await cache.start();
    const auth = new TenantAuthenticator(cache);
    await repository.upsertTenant({ ...acme, keySha256: [sha256Hex('rotated')] }, { who: 'admin' });
    await pollUntil(() => (cache!.current().epoch >= 2 ? true : undefined), {
      timeoutMs: 15_000,
      intervalMs: 10,
      what: 'epoch 2',
    });
    expect(auth.authenticate('Bearer rotated').name).toBe('acme');
    expect(() => auth.authenticate('Bearer acme-key')).toThrow(
      expect.objectContaining({ code: 'UNAUTHENTICATED' }),
    );
  });
});
