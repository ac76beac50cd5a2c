import { PlacementPolicy } from './placement-policy';
import type {
  PlacementSnapshot,
  PlannedChange,
  SnapshotBackend,
  SnapshotVersion,
} from './placement-policy.types';

const NOW = 1_800_000_000_000;
const MIN_RESIDENCY = 60_000;
const policy = new PlacementPolicy({ minResidencyMs: MIN_RESIDENCY, ratePerCopy: 50 });
/** Resident long enough to be removed. */
const OLD = NOW - MIN_RESIDENCY;

function backend(
  address: string,
  budgetMb: number | null,
  resident: [string, number, number][] = [],
  extra: Partial<SnapshotBackend> = {},
): SnapshotBackend {
  return {
    address,
    alive: true,
    budgetMb,
    resident: resident.map(([model, mb, since]) => ({ model, version: 1, mb, since })),
    previously: [],
    known: true,
    ...extra,
  };
}

function version(model: string, partial: Partial<SnapshotVersion> = {}): SnapshotVersion {
  return {
    model,
    version: 1,
    mb: 100,
    wanted: ['route'],
    listed: false,
    rate: 0,
    lastUsedAt: 0,
    inFlight: 0,
    ...partial,
  };
}

function snapshot(
  backends: SnapshotBackend[],
  versions: SnapshotVersion[],
  managedModels: string[] = [],
): PlacementSnapshot {
  return { now: NOW, backends, versions, managedModels };
}

const brief = (c: PlannedChange) => `${c.action} ${c.model} ${c.backend} ${c.reason}`;

describe('PlacementPolicy without budgets', () => {
  it('serves every listed version on every backend and retires the unlisted ones at once', () => {
    const plan = policy.plan(
      snapshot(
        [backend('a', null, [['m', 100, NOW]]), backend('b', null, [], { known: false })],
        [version('m', { listed: false, wanted: [] }), version('n', { listed: true })],
        ['m', 'n'],
      ),
    );
    expect(plan.changes.map(brief)).toEqual([
      'unload m a retire', // just loaded, yet retired: no hysteresis without a budget
      'load n a wanted',
      'load n b restore', // a backend that just appeared
    ]);
  });

  it('does not restore a retired version for the traffic it had before its retirement', () => {
    const plan = policy.plan(
      snapshot(
        [backend('a', null, [['m', 100, NOW]])],
        [version('m', { listed: false, wanted: [], rate: 5, lastUsedAt: NOW - 1000 })],
        ['m'],
      ),
    );
    expect(plan.changes.map(brief)).toEqual(['unload m a retire']);
  });

  it('leaves models without a desired set as their config selects', () => {
    const plan = policy.plan(snapshot([backend('a', null, [['untouched', 100, OLD]])], [], []));
    expect(plan.changes).toEqual([]);
  });

  it('loads an asked-for version everywhere, as a demand where it is resident nowhere', () => {
    const plan = policy.plan(
      snapshot([backend('a', null), backend('b', null)], [version('m', { wanted: ['demand'] })]),
    );
    expect(plan.changes.map(brief)).toEqual(['load m a demand', 'load m b wanted']);
  });
});

describe('PlacementPolicy with budgets', () => {
  it('evicts the least recently used versions first, before the load that needs the room', () => {
    const plan = policy.plan(
      snapshot(
        [
          backend('a', 300, [
            ['x', 100, OLD],
            ['y', 100, OLD],
            ['z', 100, OLD],
          ]),
        ],
        [
          version('x', { lastUsedAt: NOW - 300 }),
          version('y', { lastUsedAt: NOW - 100 }),
          version('z', { lastUsedAt: NOW - 200 }),
          version('new', { mb: 200, wanted: ['route', 'demand'] }),
        ],
      ),
    );
    expect(plan.changes.map(brief)).toEqual([
      'unload x a evict',
      'unload z a evict',
      'load new a demand',
    ]);
  });

  it('lets a waiting request evict a young copy that has served since its load, never an unused one', () => {
    const young = NOW - 10_000; // well within the minimum residency
    const plan = policy.plan(
      snapshot(
        [
          backend('a', 200, [
            ['served', 100, young],
            ['unused', 100, young],
          ]),
        ],
        [
          version('served', { lastUsedAt: NOW - 5_000, rate: 1 }),
          version('unused', { lastUsedAt: 0 }),
          version('new', { wanted: ['route', 'demand'] }),
        ],
      ),
    );
    expect(plan.changes.map(brief)).toEqual(['unload served a evict', 'load new a demand']);
  });

  it('never counts a use of an earlier copy as a use of a copy loaded after it', () => {
    // `back` served at NOW - 1 500, was evicted, and was loaded again at NOW - 1 000 for a
    // waiting request that has not reached it yet: a new cold start must not take its room.
    const plan = policy.plan(
      snapshot(
        [backend('a', 100, [['back', 100, NOW - 1_000]])],
        [
          version('back', { lastUsedAt: NOW - 1_500, rate: 1 }),
          version('new', { wanted: ['route', 'demand'] }),
        ],
      ),
    );
    expect(plan.changes).toEqual([]);
    expect(plan.skipped.map((x) => x.model)).toEqual(['new']);
  });

  it('keeps young copies for loads that only follow traffic (no waiting request)', () => {
    const young = NOW - 10_000;
    const plan = policy.plan(
      snapshot(
        [backend('a', 100, [['served', 100, young]])],
        [
          version('served', { lastUsedAt: NOW - 5_000, rate: 1 }),
          version('busy', { rate: 40, lastUsedAt: NOW }),
        ],
      ),
    );
    expect(plan.changes).toEqual([]);
  });

  it('under a miss storm keeps a steady version over a tail one used more recently', () => {
    const plan = policy.plan(
      snapshot(
        [
          backend('a', 200, [
            ['steady', 100, OLD],
            ['tail', 100, OLD],
          ]),
        ],
        [
          version('steady', { lastUsedAt: NOW - 3_000, rate: 0.5 }),
          version('tail', { lastUsedAt: NOW - 500, rate: 0.03 }),
          version('new', { wanted: ['route', 'demand'] }),
        ],
      ),
    );
    expect(plan.changes.map(brief)).toEqual(['unload tail a evict', 'load new a demand']);
  });

  it('on a tie in last use (same signal bucket) evicts the quieter version, not the oldest', () => {
    const sameBucket = NOW - 5_000;
    const plan = policy.plan(
      snapshot(
        [
          backend('a', 200, [
            ['hot', 100, OLD - 10_000], // loaded first: the oldest resident
            ['quiet', 100, OLD],
          ]),
        ],
        [
          version('hot', { lastUsedAt: sameBucket, rate: 20 }),
          version('quiet', { lastUsedAt: sameBucket, rate: 1 }),
          version('new', { wanted: ['route', 'demand'] }),
        ],
      ),
    );
    expect(plan.changes.map(brief)).toEqual(['unload quiet a evict', 'load new a demand']);
  });

  it('removes nothing resident for less than the minimum residency (and says why it skipped)', () => {
    const plan = policy.plan(
      snapshot(
        [
          backend('a', 200, [
            ['x', 100, NOW - 1000],
            ['gone', 100, NOW - 1000],
          ]),
        ],
        [version('x'), version('new', { wanted: ['demand'] })],
      ),
    );
    expect(plan.changes).toEqual([]);
    expect(plan.skipped).toEqual([
      expect.objectContaining({ model: 'new', reason: expect.stringContaining('needs 100 MB') }),
    ]);
  });

  it('never evicts a version in flight, pinned by a bulk job, in a rollout or asked for', () => {
    const guarded = (newMb: number) =>
      snapshot(
        [
          backend('a', 500, [
            ['busy', 100, OLD],
            ['pinned', 100, OLD],
            ['rolling', 100, OLD],
            ['asked', 100, OLD],
            ['free', 100, OLD],
          ]),
        ],
        [
          version('busy', { inFlight: 2 }),
          version('pinned', { wanted: ['pin'] }),
          version('rolling', { wanted: ['rollout'] }),
          version('asked', { wanted: ['demand'] }),
          version('free', { lastUsedAt: NOW }),
          version('new', { mb: newMb, wanted: ['demand'] }),
        ],
      );
    const tooBig = policy.plan(guarded(200));
    expect(tooBig.changes).toEqual([]);
    expect(tooBig.skipped.map((s) => s.model)).toEqual(['new']);
    // Only the unguarded version makes room, recently used or not.
    const fits = policy.plan(guarded(100));
    expect(fits.changes.map(brief)).toEqual(['unload free a evict', 'load new a demand']);
  });

  it('retires what nobody wants only after the minimum residency', () => {
    const fresh = snapshot([backend('a', 500, [['old', 100, NOW - 10]])], []);
    expect(policy.plan(fresh).changes).toEqual([]);
    const settled = snapshot([backend('a', 500, [['old', 100, OLD]])], []);
    expect(policy.plan(settled).changes.map(brief)).toEqual(['unload old a retire']);
  });

  it('adds copies as the rate grows and removes them after the residency as it falls', () => {
    const backends = () => [
      backend('a', 500, [['hot', 100, OLD]]),
      backend('b', 500),
      backend('c', 500, [['other', 100, OLD]]),
    ];
    const up = policy.plan(snapshot(backends(), [version('hot', { rate: 120 }), version('other')]));
    // ceil(120 / 50) = 3 copies; the empty backend first.
    expect(up.changes.map(brief)).toEqual(['load hot b scale_up', 'load hot c scale_up']);

    const three = [
      backend('a', 500, [['hot', 100, OLD]]),
      backend('b', 500, [['hot', 100, NOW - 5]]),
      backend('c', 500, [['hot', 100, OLD]]),
    ];
    const down = policy.plan(snapshot(three, [version('hot', { rate: 10 })]));
    // One copy is enough for 10 req/s: b's, too young to go, stays.
    expect(down.changes.map(brief)).toEqual(['unload hot a scale_down', 'unload hot c scale_down']);
  });

  it('places the copies of a vanished backend on the others', () => {
    const plan = policy.plan(
      snapshot(
        [
          backend('a', 300, [['hot', 100, OLD]], { alive: false }),
          backend('b', 300, [
            ['cold', 100, OLD],
            ['cold2', 100, OLD],
            ['cold3', 100, OLD],
          ]),
        ],
        [
          version('hot', { rate: 20, lastUsedAt: NOW }),
          version('cold', { lastUsedAt: NOW - 50 }),
          version('cold2', { lastUsedAt: NOW - 90 }),
          version('cold3', { lastUsedAt: NOW - 70 }),
        ],
      ),
    );
    expect(plan.changes.map(brief)).toEqual(['unload cold2 b evict', 'load hot b replace']);
  });

  it('sends a new load to a backend that just appeared (most free, then least load)', () => {
    const plan = policy.plan(
      snapshot(
        [
          backend('a', 400, [['x', 100, OLD]]),
          backend('b', 400, [], { known: false }),
          backend('c', 400, [], { known: false }),
        ],
        [version('x', { rate: 30 }), version('y', { rate: 40 }), version('z', { rate: 5 })],
      ),
    );
    expect(plan.changes.map(brief)).toEqual(['load y b wanted', 'load z c wanted']);
  });

  it('places an incoming rollout version with its predecessor', () => {
    const plan = policy.plan(
      snapshot(
        [
          backend('a', 400, [['m', 100, OLD]]),
          backend('b', 400),
          backend('c', 400, [['m', 100, OLD]]),
        ],
        [
          version('m', { rate: 1, wanted: ['route', 'rollout'] }),
          { ...version('m', { wanted: ['rollout'], placeWith: ['a', 'c'] }), version: 2 },
        ],
      ),
    );
    expect(plan.changes.map((c) => `${c.action} v${c.version} ${c.backend}`)).toEqual([
      'load v2 a',
      'load v2 c',
    ]);
  });

  it('does not swap equally busy versions: the one evicted for a demand waits for its own', () => {
    const plan = policy.plan(
      snapshot(
        [
          backend('a', 200, [
            ['p', 100, OLD],
            ['q', 100, OLD],
          ]),
        ],
        [
          version('p', { rate: 1, lastUsedAt: NOW - 10 }),
          version('q', { rate: 1, lastUsedAt: NOW - 20 }),
          version('cold', { wanted: ['route', 'demand'] }),
        ],
      ),
    );
    expect(plan.changes.map(brief)).toEqual(['unload q a evict', 'load cold a demand']);
    expect(plan.skipped.map((s) => s.model)).toEqual(['q']);
  });

  it('skips a version larger than every budget with the numbers', () => {
    const plan = policy.plan(
      snapshot([backend('a', 300)], [version('huge', { mb: 900, wanted: ['demand'] })]),
    );
    expect(plan.changes).toEqual([]);
    expect(plan.skipped[0]?.reason).toBe('needs 900 MB, more than every budget (largest 300 MB)');
  });

  it('never leaves a backend above its budget, at any step (random snapshots)', () => {
    let seed = 7;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let round = 0; round < 300; round++) {
      const models = Array.from({ length: 3 + rnd(8) }, (_, i) => `m${i}`);
      const versions = models.map((m) =>
        version(m, {
          mb: 50 + rnd(250),
          rate: rnd(3) === 0 ? 0 : rnd(200),
          lastUsedAt: NOW - rnd(100_000),
          inFlight: rnd(6) === 0 ? 1 : 0,
          wanted: [[], ['route'], ['route', 'demand'], ['pin'], ['rollout']][
            rnd(5)
          ] as SnapshotVersion['wanted'],
        }),
      );
      const backends = Array.from({ length: 1 + rnd(4) }, (_, i) => {
        const budget = 200 + rnd(800);
        const resident: [string, number, number][] = [];
        let used = 0;
        for (const v of versions) {
          if (rnd(3) === 0 && used + v.mb <= budget) {
            resident.push([v.model, v.mb, NOW - rnd(2 * MIN_RESIDENCY)]);
            used += v.mb;
          }
        }
        return backend(`b${i}`, budget, resident, { alive: rnd(6) !== 0 });
      });
      const plan = policy.plan(snapshot(backends, versions));
      const used = new Map(
        backends.map((b) => [b.address, b.resident.reduce((s, r) => s + r.mb, 0)]),
      );
      for (const c of plan.changes) {
        const b = backends.find((x) => x.address === c.backend)!;
        expect(b.alive).toBe(true);
        used.set(c.backend, used.get(c.backend)! + (c.action === 'load' ? c.mb : -c.mb));
        expect(used.get(c.backend)!).toBeLessThanOrEqual(b.budgetMb!);
        if (c.action === 'unload') {
          const v = versions.find((x) => x.model === c.model)!;
          expect(v.inFlight).toBe(0);
          expect(v.wanted.some((w) => w === 'pin' || w === 'rollout' || w === 'demand')).toBe(
            false,
          );
        }
      }
    }
  });
});
