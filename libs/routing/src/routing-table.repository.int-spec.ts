import { join } from 'node:path';
import { seedFromMeshConfig } from './routing-seed';
import { RoutingTableRepository } from './routing-table.repository';
import { seededTable, sha256Hex } from './testing/routing-fixtures';
import {
  RoutingEntryNotFoundError,
  RoutingTableMissingError,
  RoutingValidationError,
} from './routing.errors';
import type { Route, RoutingTableData, Tenant } from './routing.types';
import { suiteRedis } from '../../../test/support/suite-redis';

const suite = suiteRedis(__filename, 'test-routing-table.repository');
const FILE_PREFIX = suite.prefix;
let counter = 0;

/** A fresh prefix per test so tests cannot see each other's tables. */
function freshPrefix(): string {
  counter += 1;
  return `${FILE_PREFIX}:${counter}`;
}

const seed = seededTable();
const [acme] = seed.tenants as [Tenant];
const [intentDefault] = seed.routes as [Route];

afterAll(() => suite.close());

describe('RoutingTableRepository (real Redis)', () => {
  it('seeds exactly once when five routers start at the same time', async () => {
    const prefix = freshPrefix();
    const seeders = Array.from(
      { length: 5 },
      () => new RoutingTableRepository(suite.connect(), { keyPrefix: prefix }),
    );
    const results = await Promise.all(seeders.map((r, i) => r.seedIfAbsent(seed, `router-${i}`)));
    expect(results.filter((r) => r.seeded)).toHaveLength(1);
    expect(results.map((r) => r.epoch)).toEqual([1, 1, 1, 1, 1]);
    const [first] = seeders;
    expect(await first!.load()).toEqual({ epoch: 1, ...seed });
    const audit = await first!.auditLog();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ epoch: 1, action: 'seed', before: null, after: seed });
  });

  it('stores everything under the prefix with the {routes} hash tag', async () => {
    const prefix = freshPrefix();
    const repo = new RoutingTableRepository(suite.connect(), { keyPrefix: prefix });
    await repo.seedIfAbsent(seed, 'test');
    expect((await suite.connect().keys(`${prefix}:*`)).sort()).toEqual([
      `${prefix}:{routes}:audit`,
      `${prefix}:{routes}:epoch`,
      `${prefix}:{routes}:table`,
    ]);
  });

  it('leaves an edited table alone on the next seed, so edits survive restarts', async () => {
    const prefix = freshPrefix();
    const repo = new RoutingTableRepository(suite.connect(), { keyPrefix: prefix });
    await repo.seedIfAbsent(seed, 'router-a');
    const edited = { ...intentDefault, versions: [{ version: 2, weight: 1 }] };
    await repo.upsertRoute(edited, { who: 'admin' });
    const again = await new RoutingTableRepository(suite.connect(), {
      keyPrefix: prefix,
    }).seedIfAbsent(seed, 'router-b');
    expect(again).toEqual({ seeded: false, epoch: 2 });
    expect((await repo.load())?.routes).toEqual([edited]);
  });

  it('reseed replaces the table, bumps the epoch and audits before and after', async () => {
    const prefix = freshPrefix();
    const repo = new RoutingTableRepository(suite.connect(), { keyPrefix: prefix });
    await repo.seedIfAbsent(seed, 'router');
    const next: RoutingTableData = {
      tenants: [acme],
      routes: [{ ...intentDefault, model: 'intent-zh-v2' }],
    };
    const result = await repo.reseed(next, 'mesh-cli');
    expect(result.epoch).toBe(2);
    expect(await repo.load()).toEqual({ epoch: 2, ...next });
    const [latest] = await repo.auditLog(1);
    expect(latest).toMatchObject({
      epoch: 2,
      who: 'mesh-cli',
      action: 'reseed',
      before: seed,
      after: next,
    });
    expect(Date.parse(latest!.when)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('reseed repairs a corrupted stored table', async () => {
    const redis = suite.connect();
    const repo = new RoutingTableRepository(redis, { keyPrefix: freshPrefix() });
    await repo.seedIfAbsent(seed, 'router');
    await redis.set(repo.keys.table, '{"tenants": 1}');
    await expect(repo.load()).rejects.toBeInstanceOf(RoutingValidationError);
    await expect(repo.upsertRoute(intentDefault, { who: 'admin' })).rejects.toBeInstanceOf(
      RoutingValidationError,
    );
    expect((await repo.reseed(seed, 'mesh-cli')).epoch).toBe(2);
    expect(await repo.load()).toEqual({ epoch: 2, ...seed });
    expect((await repo.auditLog(1))[0]).toMatchObject({ action: 'reseed', before: null });
  });

  it('audits every edit with who, when, before, after and a strictly increasing epoch', async () => {
    const prefix = freshPrefix();
    const repo = new RoutingTableRepository(suite.connect(), { keyPrefix: prefix });
    await repo.seedIfAbsent(seed, 'router');
    const acmeRoute: Route = {
      ...intentDefault,
      tenant: 'acme',
      versions: [{ version: 2, weight: 1 }],
    };
    const globex: Tenant = { ...acme, name: 'globex', keySha256: [sha256Hex('globex-key')] };
    await repo.upsertRoute(acmeRoute, { who: 'alice' });
    await repo.upsertTenant(globex, { who: 'bob' });
    await repo.upsertTenant({ ...globex, maxInFlight: 9 }, { who: 'bob' });
    await repo.deleteRoute('acme', 'intent', { who: 'carol' });
    const final = await repo.deleteTenant('globex', { who: 'dave' });
    expect(final.epoch).toBe(6);
    const audit = await repo.auditLog();
    expect(audit.map((e) => [e.epoch, e.action, e.who, e.target])).toEqual([
      [6, 'tenant.delete', 'dave', 'globex'],
      [5, 'route.delete', 'carol', 'acme/intent'],
      [4, 'tenant.upsert', 'bob', 'globex'],
      [3, 'tenant.upsert', 'bob', 'globex'],
      [2, 'route.upsert', 'alice', 'acme/intent'],
      [1, 'seed', 'router', undefined],
    ]);
    expect(audit[2]).toMatchObject({ before: globex, after: { ...globex, maxInFlight: 9 } });
    expect(audit[4]).toMatchObject({ before: null, after: acmeRoute });
    expect(audit[1]).toMatchObject({ before: acmeRoute, after: null });
    expect(await repo.load()).toEqual({ epoch: 6, ...seed });
  });

  it('publishes each new epoch on the change channel', async () => {
    const prefix = freshPrefix();
    const repo = new RoutingTableRepository(suite.connect(), { keyPrefix: prefix });
    const subscriber = suite.connect();
    const received: string[] = [];
    subscriber.on('message', (channel: string, message: string) => {
      if (channel === repo.keys.channel) received.push(message);
    });
    await subscriber.subscribe(`${prefix}:routes:changed`);
    await repo.seedIfAbsent(seed, 'router');
    await repo.seedIfAbsent(seed, 'router');
    await repo.upsertRoute({ ...intentDefault, model: 'm2' }, { who: 'admin' });
    await repo.reseed(seed, 'admin');
    // PUBLISH returns after delivery to the socket; a PING round-trip on the subscriber orders us after it.
    await subscriber.ping();
    expect(received).toEqual(['1', '2', '3']);
  });

  it('refuses an edit made against a stale epoch and changes nothing', async () => {
    const prefix = freshPrefix();
    const repo = new RoutingTableRepository(suite.connect(), { keyPrefix: prefix });
    await repo.seedIfAbsent(seed, 'router');
    await repo.upsertRoute({ ...intentDefault, model: 'm2' }, { who: 'a', expectedEpoch: 1 });
    await expect(
      repo.upsertRoute({ ...intentDefault, model: 'm3' }, { who: 'b', expectedEpoch: 1 }),
    ).rejects.toEqual(
      expect.objectContaining({ code: 'EPOCH_CONFLICT', expectedEpoch: 1, actualEpoch: 2 }),
    );
    expect((await repo.load())?.routes[0]?.model).toBe('m2');
    expect(await repo.currentEpoch()).toBe(2);
  });

  it('lands concurrent edits from separate connections without losing any', async () => {
    const prefix = freshPrefix();
    await new RoutingTableRepository(suite.connect(), { keyPrefix: prefix }).seedIfAbsent(
      seed,
      'router',
    );
    const tasks = ['a', 'b', 'c', 'd'];
    await Promise.all(
      tasks.map((task) =>
        new RoutingTableRepository(suite.connect(), {
          keyPrefix: prefix,
          maxRetries: 20,
        }).upsertRoute({ ...intentDefault, task }, { who: `editor-${task}` }),
      ),
    );
    const table = await new RoutingTableRepository(suite.connect(), { keyPrefix: prefix }).load();
    expect(table?.epoch).toBe(5);
    expect(table?.routes.map((r) => r.task).sort()).toEqual(['a', 'b', 'c', 'd', 'intent']);
  });

  it('rejects invalid edits with field paths and leaves the epoch alone', async () => {
    const prefix = freshPrefix();
    const repo = new RoutingTableRepository(suite.connect(), { keyPrefix: prefix });
    await repo.seedIfAbsent(seed, 'router');
    await expect(
      repo.upsertRoute({ ...intentDefault, versions: [{ version: 1, weight: -1 }] }, { who: 'a' }),
    ).rejects.toThrow('versions[0].weight: must be ≥ 0');
    await expect(
      repo.upsertRoute({ ...intentDefault, tenant: 'nobody' }, { who: 'a' }),
    ).rejects.toThrow("routes[1].tenant: unknown tenant 'nobody'");
    await repo.upsertRoute({ ...intentDefault, tenant: 'acme' }, { who: 'a' });
    await expect(repo.deleteTenant('acme', { who: 'a' })).rejects.toBeInstanceOf(
      RoutingValidationError,
    );
    await expect(repo.deleteRoute('acme', 'nope', { who: 'a' })).rejects.toBeInstanceOf(
      RoutingEntryNotFoundError,
    );
    await expect(repo.upsertRoute(intentDefault, { who: ' ' })).rejects.toThrow('who: is required');
    expect(await repo.currentEpoch()).toBe(2);
  });

  it('refuses edits before the table is seeded', async () => {
    const repo = new RoutingTableRepository(suite.connect(), { keyPrefix: freshPrefix() });
    expect(await repo.load()).toBeNull();
    await expect(repo.upsertRoute(intentDefault, { who: 'a' })).rejects.toBeInstanceOf(
      RoutingTableMissingError,
    );
  });

  it('caps the audit list at the configured size, keeping the newest entries', async () => {
    const repo = new RoutingTableRepository(suite.connect(), {
      keyPrefix: freshPrefix(),
      auditMaxEntries: 3,
    });
    await repo.seedIfAbsent(seed, 'router');
    for (let i = 0; i < 4; i++) await repo.reseed(seed, `admin-${i}`);
    const audit = await repo.auditLog(100);
    expect(audit.map((e) => e.epoch)).toEqual([5, 4, 3]);
  });

  it('keeps epochs increasing even if the table key is lost, so caches never ignore the new table', async () => {
    const prefix = freshPrefix();
    const redis = suite.connect();
    const repo = new RoutingTableRepository(redis, { keyPrefix: prefix });
    await repo.seedIfAbsent(seed, 'router');
    await redis.del(repo.keys.table);
    expect(await repo.seedIfAbsent(seed, 'router')).toEqual({ seeded: true, epoch: 2 });
  });
});

describe('seedFromMeshConfig (real Redis)', () => {
  const file = join(__dirname, '../../../deploy/config/mesh.yaml');

  it('seeds the committed mesh.yaml once and replaces an edited table only when forced', async () => {
    const repo = new RoutingTableRepository(suite.connect(), { keyPrefix: freshPrefix() });
    expect(await seedFromMeshConfig(repo, file, { who: 'router' })).toEqual({
      seeded: true,
      epoch: 1,
    });
    const original = await repo.load();
    await repo.deleteRoute('acme', 'intent', { who: 'admin' });
    expect(await seedFromMeshConfig(repo, file, { who: 'router' })).toEqual({
      seeded: false,
      epoch: 2,
    });
    expect(await seedFromMeshConfig(repo, file, { who: 'mesh-cli', force: true })).toEqual({
      seeded: true,
      epoch: 3,
    });
    expect(await repo.load()).toEqual({ ...original, epoch: 3 });
    expect((await repo.auditLog(1))[0]).toMatchObject({ action: 'reseed', who: 'mesh-cli' });
  });

  it('fails on a broken file even when a table already exists', async () => {
    const repo = new RoutingTableRepository(suite.connect(), { keyPrefix: freshPrefix() });
    await seedFromMeshConfig(repo, file, { who: 'router' });
    await expect(
      seedFromMeshConfig(repo, join(__dirname, 'no-such.yaml'), { who: 'router' }),
    ).rejects.toThrow(/ENOENT/);
  });
});
