import { join } from 'node:path';
import type { RoutingTableData } from '@mesh/routing';
import { seededVersions } from './mesh-reset';
import { standaloneEndpoint } from '@mesh/config';
import { DEMO_SEED, isLoopbackEndpoint, isLoopbackRedis, resetRefusal } from './reset-cli.command';

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

describe('isLoopbackEndpoint', () => {
  const node = (host: string, port: number) => ({ host, port });

  it('needs every seed node or Sentinel on this machine', () => {
    const cluster = (...hosts: string[]) => ({
      mode: 'cluster' as const,
      nodes: hosts.map((h, i) => node(h, 7000 + i)),
      tls: false,
    });
    expect(isLoopbackEndpoint(cluster('127.0.0.1', 'localhost', '::1'))).toBe(true);
    expect(isLoopbackEndpoint(cluster('127.0.0.1', '10.0.0.5'))).toBe(false);
    expect(
      isLoopbackEndpoint({
        mode: 'sentinel',
        sentinels: [node('127.0.0.1', 26379)],
        masterName: 'mesh',
        tls: false,
      }),
    ).toBe(true);
  });

  it('names the cluster variable when it refuses a remote cluster', () => {
    const why = resetRefusal({
      redis: { mode: 'cluster', nodes: [node('10.0.0.5', 7000), node('::1', 7001)], tls: false },
      seedFile: DEMO_SEED,
      demoSeed: DEMO_SEED,
      prefixGiven: false,
    });
    expect(why).toContain('REDIS_CLUSTER_NODES is not on this machine (10.0.0.5:7000,[::1]:7001;');
  });
});

describe('resetRefusal', () => {
  const ok = {
    redis: standaloneEndpoint('redis://127.0.0.1:6379'),
    seedFile: DEMO_SEED,
    demoSeed: DEMO_SEED,
  };

  it('lets a loopback Redis seeded from the demo file be reset', () => {
    expect(resetRefusal({ ...ok, prefixGiven: false })).toBeUndefined();
    // The same file by another path.
    const relative = join(DEMO_SEED, '..', '..', 'config', 'mesh.yaml');
    expect(resetRefusal({ ...ok, seedFile: relative, prefixGiven: false })).toBeUndefined();
  });

  it('names every reason it refuses, without the URL credentials', () => {
    const why = resetRefusal({
      redis: standaloneEndpoint('redis://:hunter2@10.0.0.5:6379'),
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
    const remote = {
      redis: standaloneEndpoint('redis://10.0.0.5:6379'),
      seedFile: 'x.yaml',
      demoSeed: DEMO_SEED,
    };
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
