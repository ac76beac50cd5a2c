import { pollUntil } from '../../../test/support/poll';
import { RoutingTableCache } from './routing-table-cache';
import { RoutingTableRepository } from './routing-table.repository';
import { seededTable } from './testing/routing-fixtures';
import { RouteNotFoundError } from './routing.errors';
import type { Route, RoutingTable, RoutingTableData, Tenant } from './routing.types';
import { suiteRedis } from '../../../test/support/suite-redis';

const suite = suiteRedis(__filename, 'test-routing-table.cache');
const FILE_PREFIX = suite.prefix;
const caches: RoutingTableCache[] = [];
let counter = 0;

function setup(refreshIntervalMs = 60_000) {
  counter += 1;
  const keyPrefix = `${FILE_PREFIX}:${counter}`;
  const redis = suite.connect();
  const repository = new RoutingTableRepository(redis, { keyPrefix });
  const newCache = () => {
    const cache = new RoutingTableCache(
      new RoutingTableRepository(suite.connect(), { keyPrefix }),
      suite.connect(),
      {
        refreshIntervalMs,
      },
    );
    caches.push(cache);
    return cache;
  };
  return { redis, repository, newCache };
}

const seed = seededTable();
const [acme] = seed.tenants as [Tenant];
const [intent] = seed.routes as [Route];

/**
 * Resolves once `cache` holds at least `epoch`. The deadline is generous for a busy machine yet
 * far below the caches' 60 s refresh timer, so reaching it proves pub/sub delivered the change.
 */
function reachesEpoch(cache: RoutingTableCache, epoch: number): Promise<number> {
  return pollUntil(() => (cache.current().epoch >= epoch ? cache.current().epoch : undefined), {
    timeoutMs: 15_000,
    intervalMs: 10,
    what: `epoch ${epoch}`,
  });
}

afterAll(async () => {
  await Promise.all(caches.map((c) => c.close()));
  await suite.close();
});

describe('RoutingTableCache (real Redis)', () => {
  it('loads the seeded table at start and resolves routes from memory', async () => {
    const { repository, newCache } = setup();
    await repository.seedIfAbsent(seed, 'router');
    const cache = newCache();
    await cache.start();
    expect(cache.isLoaded()).toBe(true);
    expect(cache.current()).toEqual({ epoch: 1, ...seed });
    expect(cache.resolve('acme', 'intent').route).toEqual(intent);
    expect(cache.tasksFor('acme')).toEqual([intent]);
  });

  it('delivers a change to a second running cache through pub/sub, not the refresh timer', async () => {
    const { repository, newCache } = setup();
    await repository.seedIfAbsent(seed, 'router');
    const [a, b] = [newCache(), newCache()];
    await Promise.all([a.start(), b.start()]);
    const changed: Array<[number, number]> = [];
    b.onChange((table, previous) => changed.push([previous.epoch, table.epoch]));

    await repository.upsertRoute(
      { ...intent, versions: [{ version: 2, weight: 1 }] },
      { who: 'admin' },
    );
    await Promise.all([reachesEpoch(a, 2), reachesEpoch(b, 2)]);
    expect(b.resolve('acme', 'intent').route.versions).toEqual([{ version: 2, weight: 1 }]);
    expect(changed).toEqual([[1, 2]]);
  });

  it('starts empty when nothing is seeded and picks the table up once it is', async () => {
    const { repository, newCache } = setup();
    const cache = newCache();
    await cache.start();
    expect(cache.isLoaded()).toBe(false);
    expect(() => cache.resolve('acme', 'intent')).toThrow(
      expect.objectContaining({ code: 'UNAUTHENTICATED' }),
    );
    await repository.seedIfAbsent(seed, 'router');
    await reachesEpoch(cache, 1);
    expect(cache.isLoaded()).toBe(true);
  });

  it('falls back to the timer when a change was never announced', async () => {
    const { redis, repository, newCache } = setup(100);
    await repository.seedIfAbsent(seed, 'router');
    const cache = newCache();
    await cache.start();
    // Write a newer table behind the repository's back: no pub/sub message is sent.
    const next: RoutingTableData = { tenants: [{ ...acme, allowedTasks: [] }], routes: [intent] };
    await redis.mset(repository.keys.table, JSON.stringify(next), repository.keys.epoch, '7');
    await reachesEpoch(cache, 7);
    expect(() => cache.resolve('acme', 'intent')).toThrow(RouteNotFoundError);
  });

  it('never goes back to an older epoch, whatever the channel or Redis say', async () => {
    const { redis, repository, newCache } = setup();
    await repository.seedIfAbsent(seed, 'router');
    await repository.upsertRoute({ ...intent, model: 'newer' }, { who: 'admin' });
    const cache = newCache();
    await cache.start();
    const listener = jest.fn<void, [RoutingTable, RoutingTable]>();
    cache.onChange(listener);
    await redis.mset(repository.keys.table, JSON.stringify(seed), repository.keys.epoch, '1');
    await redis.publish(repository.keys.channel, '1');
    await cache.refresh();
    expect(cache.current().epoch).toBe(2);
    expect(cache.current().routes[0]?.model).toBe('newer');
    expect(listener).not.toHaveBeenCalled();
  });

  it('keeps serving the last good table when Redis holds an invalid one', async () => {
    const warnings: object[] = [];
    const { redis, repository } = setup();
    await repository.seedIfAbsent(seed, 'router');
    const cache = new RoutingTableCache(repository, suite.connect(), {
      refreshIntervalMs: 60_000,
      logger: { warn: (obj) => warnings.push(obj) },
    });
    caches.push(cache);
    await cache.start();
    await redis.mset(
      repository.keys.table,
      '{"tenants":[],"routes":[{"task":1}]}',
      repository.keys.epoch,
      '9',
    );
    await redis.publish(repository.keys.channel, '9');
    await pollUntil(() => (warnings.length > 0 ? true : undefined), {
      timeoutMs: 1000,
      what: 'a warning',
    });
    expect(cache.current().epoch).toBe(1);
    expect(warnings[0]).toMatchObject({ trigger: 'message', epoch: 1 });

    await redis.mset(repository.keys.table, 'not json', repository.keys.epoch, '10');
    await expect(cache.refresh()).rejects.toThrow(/not JSON/);
    expect(cache.resolve('acme', 'intent').route).toEqual(intent);
  });

  it('stops following changes after close', async () => {
    const { repository, newCache } = setup();
    await repository.seedIfAbsent(seed, 'router');
    const [closed, open] = [newCache(), newCache()];
    await Promise.all([closed.start(), open.start()]);
    await closed.close();
    await repository.reseed(seed, 'admin');
    await reachesEpoch(open, 2);
    expect(closed.current().epoch).toBe(1);
  });
});
