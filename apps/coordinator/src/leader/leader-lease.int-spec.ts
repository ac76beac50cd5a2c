import { FencedWriteError, RoutingTableRepository, routingKeys } from '@mesh/routing';
import { LeaderLease } from './leader-lease';
import { suiteRedis } from '../../../../test/support/suite-redis';
import { pollUntil } from '../../../../test/support/poll';

const suite = suiteRedis(__filename, 'test-leader-lease');
const PREFIX = suite.prefix;
let n = 0;

afterAll(() => suite.close());

function fresh() {
  n += 1;
  const prefix = `${PREFIX}:${n}`;
  const keys = routingKeys(prefix);
  return { prefix, keys, table: new RoutingTableRepository(suite.redis, { keyPrefix: prefix }) };
}

const route = {
  tenant: '*',
  task: 'question-type',
  model: 'question-type-zh',
  versions: [{ version: 1, weight: 100 }],
};

describe('LeaderLease (real Redis)', () => {
  it('keys share the routing table hash tag', () => {
    const { keys } = fresh();
    const tag = (k: string) => /\{[^}]+\}/.exec(k)?.[0];
    expect(tag(keys.leaderLease)).toBe(tag(keys.table));
    expect(tag(keys.fencingCounter)).toBe('{routes}');
  });

  it('one holder at a time; renewing keeps the token; a new holder gets a larger token', async () => {
    const { keys } = fresh();
    const a = new LeaderLease(suite.redis, keys, 'coordinator-a', 300);
    const b = new LeaderLease(suite.redis, keys, 'coordinator-b', 300);
    const first = await a.tryAcquire();
    expect(first?.token).toBeGreaterThan(0);
    await expect(b.tryAcquire()).resolves.toBeUndefined();
    await expect(a.tryAcquire()).resolves.toEqual(first);
    // a stops renewing; b takes over once the lease lapses.
    const taken = await pollFor(() => b.tryAcquire());
    expect(taken.token).toBeGreaterThan(first?.token ?? Infinity);
    await expect(a.tryAcquire()).resolves.toBeUndefined();
  });

  it('release hands the lease over at once, but only the holder can release it', async () => {
    const { keys } = fresh();
    const a = new LeaderLease(suite.redis, keys, 'a', 60_000);
    const b = new LeaderLease(suite.redis, keys, 'b', 60_000);
    await a.tryAcquire();
    await b.release();
    await expect(b.tryAcquire()).resolves.toBeUndefined();
    await a.release();
    await expect(b.tryAcquire()).resolves.toBeDefined();
  });

  it("the routing table's compare-and-swap refuses a stale leader's write atomically", async () => {
    const { keys, table } = fresh();
    await table.seedIfAbsent({ tenants: [], routes: [route] }, 'test');
    const a = new LeaderLease(suite.redis, keys, 'a', 200);
    const b = new LeaderLease(suite.redis, keys, 'b', 60_000);
    const staleFence = await a.tryAcquire();
    if (!staleFence) throw new Error('a did not get the lease');
    const ok = await table.upsertRoute(
      {
        ...route,
        versions: [
          { version: 1, weight: 90 },
          { version: 2, weight: 10 },
        ],
      },
      { who: 'rollout:a', fence: staleFence },
    );
    const newFence = await pollFor(() => b.tryAcquire());
    await expect(
      table.upsertRoute(
        { ...route, versions: [{ version: 2, weight: 100 }] },
        { who: 'rollout:a', expectedEpoch: ok.epoch, fence: staleFence },
      ),
    ).rejects.toBeInstanceOf(FencedWriteError);
    const after = await table.load();
    expect(after?.epoch).toBe(ok.epoch);
    expect(after?.routes[0]?.versions).toEqual([
      { version: 1, weight: 90 },
      { version: 2, weight: 10 },
    ]);
    expect((await table.auditLog()).map((e) => e.who)).toEqual(['rollout:a', 'test']);
    // The new leader writes with its own token.
    await expect(
      table.upsertRoute(route, { who: 'rollout:b', expectedEpoch: ok.epoch, fence: newFence }),
    ).resolves.toMatchObject({ epoch: ok.epoch + 1 });
  });

  it('a fenced write with no lease at all is refused too', async () => {
    const { keys, table } = fresh();
    await table.seedIfAbsent({ tenants: [], routes: [route] }, 'test');
    await expect(
      table.upsertRoute(route, { who: 'x', fence: { leaseKey: keys.leaderLease, token: 1 } }),
    ).rejects.toBeInstanceOf(FencedWriteError);
  });
});

function pollFor<T>(fn: () => Promise<T | undefined>): Promise<T> {
  return pollUntil(fn, { timeoutMs: 10_000, what: 'the lease condition' });
}
