import { join } from 'node:path';
import type { RoutingTableData } from '@mesh/routing';
import { seededVersions } from './mesh-reset';
import { DEMO_SEED, isLoopbackRedis, resetRefusal } from './reset-cli.command';

describe('isLoopbackRedis', () => {
  it.each([
    ['redis://127.0.0.1:6379', true],
    ['redis://localhost', true],
    ['rediss://user:secret@LOCALHOST:6380/2', true],
    ['redis://[::1]:6379', true],
    ['redis://10.0.0.5:6379', false],
    ['redis://redis.prod.internal:6379', false],
    ['redis://127.0.0.2:6379', false],
    ['not a url', false],
  ])('%s → %s', (url, loopback) => {
    expect(isLoopbackRedis(url)).toBe(loopback);
  });
});

describe('resetRefusal', () => {
  const ok = { redisUrl: 'redis://127.0.0.1:6379', seedFile: DEMO_SEED, demoSeed: DEMO_SEED };

  it('lets a loopback Redis seeded from the demo file be reset', () => {
    expect(resetRefusal({ ...ok, prefixGiven: false })).toBeUndefined();
    // The same file by another path.
    const relative = join(DEMO_SEED, '..', '..', 'config', 'mesh.yaml');
    expect(resetRefusal({ ...ok, seedFile: relative, prefixGiven: false })).toBeUndefined();
  });

  it('names every reason it refuses, without the URL credentials', () => {
    const why = resetRefusal({
      redisUrl: 'redis://:hunter2@10.0.0.5:6379',
      seedFile: 'deploy/config/prod.yaml',
      demoSeed: DEMO_SEED,
      prefixGiven: false,
    });
    expect(why).toContain('REDIS_URL is not on this machine (10.0.0.5:6379');
    expect(why).toContain('MESH_CONFIG (deploy/config/prod.yaml) is not the demo');
    expect(why).toContain('--prefix <p> --yes');
    expect(why).not.toContain('hunter2');
  });

  it('lets an explicit --prefix through', () => {
    const remote = { redisUrl: 'redis://10.0.0.5:6379', seedFile: 'x.yaml', demoSeed: DEMO_SEED };
    expect(resetRefusal({ ...remote, prefixGiven: true })).toBeUndefined();
  });
});

describe('seededVersions', () => {
  it('collects the versions and shadow versions every route of a model names', () => {
    const data = {
      tenants: [],
      routes: [
        { tenant: '*', task: 'a', model: 'm', versions: [{ version: 3, weight: 100 }] },
        {
          tenant: 'acme',
          task: 'a',
          model: 'm',
          versions: [{ version: 1, weight: 100 }],
          shadow: { version: 4 },
        },
        { tenant: '*', task: 'b', model: 'n', versions: [{ version: 1, weight: 0 }] },
      ],
    } as RoutingTableData;
    expect(seededVersions(data)).toEqual(
      new Map([
        ['m', [1, 3, 4]],
        ['n', [1]],
      ]),
    );
  });
});
