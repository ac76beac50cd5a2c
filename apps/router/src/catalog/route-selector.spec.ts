import type { BackendDirectory, ServableVersion, VersionCatalog } from '@mesh/inference';
import {
  NoRoutableVersionError,
  WeightedVersionPicker,
  type Route,
  type RoutingTableCache,
  type Tenant,
} from '@mesh/routing';
import { RouteSelector } from './route-selector';

const tenant = { name: 'acme' } as Tenant;
const version = (v: number) =>
  ({ model: 'm', version: v, kind: 'classification' }) as ServableVersion;
const versions = [version(1), version(2), version(3)];

/** v1 served; v2 and v3 unroutable: `cold` says which of them is merely resident nowhere. */
function selector(route: Partial<Route>, cold: number[], random = () => 0.99) {
  const full: Route = {
    tenant: '*',
    task: 't',
    model: 'm',
    versions: [
      { version: 1, weight: 1 },
      { version: 2, weight: 1 },
    ],
    ...route,
  };
  const catalog = {
    servable: (_m: string, v: number) => versions.find((x) => x.version === v),
    problem: () => 'not in the repository',
  } as unknown as VersionCatalog;
  const backends = {
    unroutableReason: (v: ServableVersion) =>
      v.version === 1
        ? undefined
        : cold.includes(v.version)
          ? `no backend reports m v${v.version} READY`
          : `model sha256 mismatch for m v${v.version}`,
  } as unknown as BackendDirectory;
  const routes = { resolve: () => ({ tenant, route: full }) } as unknown as RoutingTableCache;
  return {
    route: full,
    selector: new RouteSelector(routes, new WeightedVersionPicker(random), catalog, backends, (v) =>
      cold.includes(v.version),
    ),
  };
}

describe('RouteSelector and versions resident nowhere', () => {
  it('picks a cold version by its weight and marks it cold', () => {
    const { selector: s } = selector({}, [2]);
    const chosen = s.select(tenant, 't', undefined, [{ text: 'a' }], 'single');
    expect([chosen.version.version, chosen.cold]).toEqual([2, true]);
    const { selector: low } = selector({}, [2], () => 0.1);
    expect(low.select(tenant, 't', undefined, [{ text: 'a' }], 'single').cold).toBeUndefined();
  });

  it('never picks a version served with other bytes (not cold, still unroutable)', () => {
    const { selector: s } = selector({}, []);
    expect(s.select(tenant, 't', undefined, [{ text: 'a' }], 'single').version.version).toBe(1);
    const { selector: only } = selector({ versions: [{ version: 2, weight: 1 }] }, []);
    expect(() => only.select(tenant, 't', undefined, [{ text: 'a' }], 'single')).toThrow(
      NoRoutableVersionError,
    );
  });

  it('skips a cold shadow instead of waiting for it', () => {
    const { selector: s } = selector(
      { versions: [{ version: 1, weight: 1 }], shadow: { version: 3 } },
      [3],
    );
    const chosen = s.select(tenant, 't', undefined, [{ text: 'a' }], 'single');
    expect(chosen.shadow).toBeUndefined();
    expect(chosen.cold).toBeUndefined();
  });

  it('pins a bulk job to a cold version (the worker waits for its load)', () => {
    const { selector: s, route } = selector({ versions: [{ version: 2, weight: 1 }] }, [2]);
    expect(s.pinJob(route, undefined, undefined).version).toBe(2);
  });

  it('keeps the reason a version is unroutable for the admin views', () => {
    const { selector: s } = selector({}, [2]);
    expect(s.unroutableReason('m', 2)).toBe('no backend reports m v2 READY');
  });
});
