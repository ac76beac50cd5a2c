import type { RedisClient } from '@mesh/config';
import { RoutingTableRepository } from './routing-table.repository';
import { EpochConflictError } from './routing.errors';
import type { Route, RoutingTableData } from './routing.types';

const route: Route = {
  tenant: '*',
  task: 'intent',
  model: 'intent-zh',
  versions: [{ version: 3, weight: 100 }],
};
const table: RoutingTableData = { tenants: [], routes: [route] };

/**
 * A store another writer keeps beating: each commit script call loses its compare-and-set
 * (another edit lands first and bumps the epoch), until `losses` races have been lost.
 */
function contestedStore(losses: number) {
  const store = { epoch: 1, commits: 0 };
  const redis = {
    mget: async () => [JSON.stringify(table), String(store.epoch)],
    eval: async () => {
      store.commits += 1;
      store.epoch += 1;
      return [store.commits > losses ? 1 : 0, store.epoch];
    },
  };
  return { store, redis: redis as unknown as RedisClient };
}

const edit = { ...route, model: 'intent-zh-2' };

describe('RoutingTableRepository: edits racing other edits', () => {
  it('tries a lost compare-and-set again on a fresh read and lands it', async () => {
    const { store, redis } = contestedStore(2);
    const repo = new RoutingTableRepository(redis, { keyPrefix: 'p', maxRetries: 5 });
    const result = await repo.upsertRoute(edit, { who: 'a' });
    expect(store.commits).toBe(3);
    expect(result.epoch).toBe(4);
    expect(result.table.routes).toEqual([edit]);
  });

  it('gives up after maxRetries lost races with the epochs of the last one', async () => {
    const { store, redis } = contestedStore(Infinity);
    const repo = new RoutingTableRepository(redis, { keyPrefix: 'p', maxRetries: 3 });
    const err = await repo.upsertRoute(edit, { who: 'a' }).catch((e: unknown) => e);
    expect(store.commits).toBe(4);
    expect(err).toBeInstanceOf(EpochConflictError);
    expect(err).toMatchObject({ expectedEpoch: 4, actualEpoch: 5 });
  });

  it('never retries when the caller expected an epoch: the race is its conflict', async () => {
    const { store, redis } = contestedStore(Infinity);
    const repo = new RoutingTableRepository(redis, { keyPrefix: 'p', maxRetries: 5 });
    const err = await repo
      .upsertRoute(edit, { who: 'a', expectedEpoch: 1 })
      .catch((e: unknown) => e);
    expect(store.commits).toBe(1);
    expect(err).toMatchObject({ code: 'EPOCH_CONFLICT', expectedEpoch: 1, actualEpoch: 2 });
  });
});
