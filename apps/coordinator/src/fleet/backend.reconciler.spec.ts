import pino from 'pino';
import type { Route } from '@mesh/routing';
import { BackendReconciler } from './backend.reconciler';

/** Backends as the repository index reports them; loads are recorded, optionally failing. */
class FakeFleet {
  ready = new Map<string, number[] | Error>();
  loads: { model: string; versions: number[]; addresses?: string[] }[] = [];
  failLoads = false;

  async readyVersions(): Promise<Map<string, number[] | Error>> {
    return new Map(this.ready);
  }

  async serve(model: string, versions: number[], addresses?: string[]): Promise<void> {
    this.loads.push({ model, versions, ...(addresses ? { addresses } : {}) });
    if (this.failLoads) throw new Error('load failed on host-b:8001: deadline exceeded');
    for (const a of addresses ?? []) this.ready.set(a, [...versions]);
  }
}

function setup(desired: Record<string, number[]>, routes: Route[] = []) {
  const fleet = new FakeFleet();
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const store = { set: async () => undefined, all: async () => new Map(Object.entries(desired)) };
  const routeStore = {
    routesOfModel: async (model: string) => routes.filter((r) => r.model === model),
  };
  return { fleet, lines, reconciler: new BackendReconciler(fleet, store, routeStore, logger) };
}

describe('BackendReconciler', () => {
  it('reloads only the backends whose READY versions drifted from the desired set', async () => {
    const { fleet, lines, reconciler } = setup({ 'question-type-zh': [2, 4] });
    fleet.ready.set('host-a:8001', [2, 4]);
    // Restarted: came back with every version its config lists.
    fleet.ready.set('host-b:8001', [1, 2, 3, 4]);
    expect(await reconciler.reconcile()).toBe(1);
    expect(fleet.loads).toEqual([
      { model: 'question-type-zh', versions: [2, 4], addresses: ['host-b:8001'] },
    ]);
    expect(lines.filter((l) => l.event === 'reconcile')).toEqual([
      expect.objectContaining({ backend: 'host-b:8001', serving: [1, 2, 3, 4], desired: [2, 4] }),
    ]);
    // Converged: the next pass loads nothing.
    expect(await reconciler.reconcile()).toBe(0);
    expect(fleet.loads).toHaveLength(1);
  });

  it('loads again a retired version that a route names once more (a reseed after a rollout)', async () => {
    // A rollout retired version 1 (desired [2]); a reseed then put the seeded weights back.
    const { fleet, reconciler } = setup({ 'question-type-zh': [2] }, [
      {
        tenant: 'acme',
        task: 'question-type',
        model: 'question-type-zh',
        versions: [
          { version: 1, weight: 90 },
          { version: 2, weight: 10 },
        ],
      },
      {
        tenant: 'globex',
        task: 'question-type',
        model: 'question-type-zh',
        versions: [{ version: 2, weight: 100 }],
        shadow: { version: 3, percent: 5 },
      },
      {
        tenant: 'acme',
        task: 'intent',
        model: 'intent-zh',
        versions: [{ version: 7, weight: 100 }],
      },
    ]);
    fleet.ready.set('host-a:8001', [2]);
    fleet.ready.set('host-b:8001', [1, 2, 3]);
    expect(await reconciler.reconcile()).toBe(1);
    expect(fleet.loads).toEqual([
      { model: 'question-type-zh', versions: [1, 2, 3], addresses: ['host-a:8001'] },
    ]);
  });

  it('reloads a backend that came back with nothing, and leaves an unreachable one alone', async () => {
    const { fleet, reconciler } = setup({ 'question-type-zh': [2] });
    fleet.ready.set('host-a:8001', []);
    fleet.ready.set('host-b:8001', new Error('14 UNAVAILABLE: connection refused'));
    expect(await reconciler.reconcile()).toBe(1);
    expect(fleet.loads.map((l) => l.addresses)).toEqual([['host-a:8001']]);
  });

  it('a failed load is logged and retried on the next pass', async () => {
    const { fleet, lines, reconciler } = setup({ 'intent-zh': [3] });
    fleet.ready.set('host-b:8001', [2]);
    fleet.failLoads = true;
    expect(await reconciler.reconcile()).toBe(0);
    expect(lines.some((l) => l.msg === 'reconcile load failed; retrying on the next pass')).toBe(
      true,
    );
    fleet.failLoads = false;
    expect(await reconciler.reconcile()).toBe(1);
    expect(fleet.ready.get('host-b:8001')).toEqual([3]);
  });
});
