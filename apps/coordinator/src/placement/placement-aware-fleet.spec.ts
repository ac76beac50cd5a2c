import { PlacementAwareFleet } from './placement-aware-fleet';

/** The plain fleet's calls, and a placer whose last pass found the given budgets. */
function setup(budgets: [string, number | null][], hosts: string[] = []) {
  const calls: string[] = [];
  const fleet = {
    readiness: async (model: string, version: number, addresses?: readonly string[]) => {
      calls.push(`readiness ${model} ${version} ${addresses?.join(',') ?? 'all'}`);
      return (addresses ?? budgets.map(([a]) => a)).map((address) => ({ address, ready: true }));
    },
    serve: async (model: string, versions: number[], addresses?: string[]) => {
      calls.push(`serve ${model} [${versions.join(',')}] ${addresses?.join(',') ?? 'all'}`);
    },
  };
  const placer = {
    budgetsByBackend: async () => new Map(budgets),
    hostsOf: () => hosts,
    skipReason: () => 'needs 900 MB, more than every budget (largest 300 MB)',
    reconcile: async () => {
      calls.push('pass');
      return 0;
    },
    retire: async (model: string, keep: readonly number[], addresses: readonly string[]) => {
      calls.push(`retire ${model} keep [${keep.join(',')}] on ${addresses.join(',')}`);
    },
  };
  const desired = { set: async () => undefined, all: async () => new Map<string, number[]>() };
  return { calls, fleet: new PlacementAwareFleet(fleet, desired, placer) };
}

describe('PlacementAwareFleet', () => {
  it('is the plain fleet when no backend has a budget (every version everywhere, as before)', async () => {
    const { calls, fleet } = setup([
      ['a', null],
      ['b', null],
    ]);
    await fleet.readiness('m', 2);
    await fleet.serve('m', [1, 2], ['b']);
    await fleet.serve('m', [2]);
    expect(calls).toEqual(['readiness m 2 all', 'serve m [1,2] b', 'serve m [2] all']);
  });

  it('checks readiness only where the version was placed, and says why when it is nowhere', async () => {
    const placed = setup(
      [
        ['a', 300],
        ['b', 300],
      ],
      ['b'],
    );
    expect(await placed.fleet.readiness('m', 2)).toEqual([{ address: 'b', ready: true }]);
    const nowhere = setup([['a', 300]]);
    expect(await nowhere.fleet.readiness('m', 2)).toEqual([
      {
        address: 'placement',
        ready: false,
        problem: 'needs 900 MB, more than every budget (largest 300 MB)',
      },
    ]);
  });

  it('loads through a placement pass and retires on budgeted backends at once', async () => {
    const { calls, fleet } = setup([
      ['a', 300],
      ['plain', null],
    ]);
    await fleet.serve('m', [1, 2], ['placement', 'plain']);
    await fleet.serve('m', [2]);
    expect(calls).toEqual([
      'serve m [1,2] plain',
      'pass',
      'serve m [2] plain',
      'pass',
      'retire m keep [2] on a',
    ]);
  });
});
