import { placerRig } from '../testing/fake-placement';
import { canaryRoute } from '../../../../libs/routing/src/testing/routing-fixtures';
import { suiteRedis } from '../../../../test/support/suite-redis';

const suite = suiteRedis(__filename, 'test-placer');
const FILE_PREFIX = suite.prefix;
let n = 0;

afterAll(() => suite.close());

/** Without budgets the placer does what the reconciler did: desired versions everywhere. */
function rig() {
  n += 1;
  return placerRig(suite.redis, `${FILE_PREFIX}:${n}`);
}

describe('Placer without budgets (the reconciler it replaced)', () => {
  it('reloads only the backends whose READY versions drifted from the desired set', async () => {
    const { placer, backends, sources, lines } = rig();
    sources.desiredMap.set('question-type-zh', [2, 4]);
    backends.host('host-a:8001').models.set('question-type-zh', [2, 4]);
    // Restarted: came back with every version its config lists.
    backends.host('host-b:8001').models.set('question-type-zh', [1, 2, 3, 4]);
    await placer.reconcile();
    expect(backends.calls).toEqual(['serve host-b:8001 question-type-zh [2,4]']);
    expect(lines.filter((l) => l.event === 'reconcile')).toEqual([
      expect.objectContaining({ backend: 'host-b:8001', serving: [1, 2, 3, 4], desired: [2, 4] }),
    ]);
    // Converged: the next pass changes nothing.
    expect(await placer.reconcile()).toBe(0);
    expect(backends.calls).toHaveLength(1);
  });

  it('loads again a retired version that a route names once more (a reseed after a rollout)', async () => {
    const { placer, backends, sources } = rig();
    sources.desiredMap.set('question-type-zh', [2]);
    sources.routeList = [
      canaryRoute({ tenant: 'acme', task: 'question-type', model: 'question-type-zh' }),
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
    ];
    backends.host('host-a:8001').models.set('question-type-zh', [2]);
    backends.host('host-b:8001').models.set('question-type-zh', [1, 2, 3]);
    expect(await placer.reconcile()).toBe(2);
    // A model no rollout touched is left to its config.pbtxt, as before.
    expect(backends.calls).toEqual(['serve host-a:8001 question-type-zh [1,2,3]']);
  });

  it('reloads a backend that came back with nothing, and leaves an unreachable one alone', async () => {
    const { placer, backends, sources } = rig();
    sources.desiredMap.set('question-type-zh', [2]);
    backends.host('host-b:8001').alive = false;
    expect(await placer.reconcile()).toBe(1);
    expect(backends.calls).toEqual(['serve host-a:8001 question-type-zh [2]']);
  });

  it('a failed load is logged, audited and retried on the next pass', async () => {
    const { placer, backends, sources, lines, repository } = rig();
    sources.desiredMap.set('intent-zh', [3]);
    backends.host('host-a:8001').models.set('intent-zh', [3]);
    backends.host('host-b:8001').models.set('intent-zh', [2]);
    backends.failing.add('host-b:8001');
    expect(await placer.reconcile()).toBe(0);
    expect(
      lines.some((l) => l.msg === 'placement load failed' && l.backend === 'host-b:8001'),
    ).toBe(true);
    // One call naming the versions it should end with, as the reconciler made.
    expect(backends.calls).toEqual(['serve host-b:8001 intent-zh [3]']);
    const audit = (await repository.recentDecisions(10)).reverse();
    expect(audit).toEqual([
      expect.objectContaining({
        action: 'unload',
        version: 2,
        reason: 'retire',
        error: expect.stringContaining('load failed'),
      }),
      expect.objectContaining({
        action: 'load',
        version: 3,
        reason: 'restore',
        backend: 'host-b:8001',
        mb: 100,
        error: expect.stringContaining('load failed on host-b:8001'),
      }),
    ]);
    backends.failing.clear();
    expect(await placer.reconcile()).toBe(1);
    expect(backends.host('host-b:8001').models.get('intent-zh')).toEqual([3]);
  });

  it('loads an asked-for version of a model without a desired set and retires nothing of it', async () => {
    const { placer, backends, demand } = rig();
    backends.host('host-a:8001').models.set('x', [1, 2]);
    await demand.request('x', 3, 'router-1');
    await placer.reconcile();
    expect(backends.calls).toEqual(['serve host-a:8001 x [1,2,3]', 'serve host-b:8001 x [3]']);
    expect(await demand.pending()).toEqual([]);
  });

  it('writes each alive backend’s ledger, unbudgeted', async () => {
    const { placer, backends, sources, repository } = rig();
    sources.desiredMap.set('m', [1]);
    backends.host('host-a:8001').models.set('m', [1]);
    await placer.reconcile();
    const ledgers = await repository.ledgers();
    expect(ledgers.get('host-a:8001')).toMatchObject({
      budgetMb: null,
      usedMb: 100,
      resident: [{ model: 'm', version: 1, mb: 100 }],
    });
    expect(ledgers.get('host-b:8001')?.resident).toEqual([
      expect.objectContaining({ model: 'm', version: 1 }),
    ]);
  });
});
