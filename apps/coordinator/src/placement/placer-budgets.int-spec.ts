import { closeRedis, createRedis } from '@mesh/config';
import { PlacementKeys } from '@mesh/placement';
import pino from 'pino';
import { pollUntil } from '../../../../test/support/poll';
import { placerRig } from '../testing/fake-placement';
import { MODEL, rolloutRecord } from '../testing/rollout-fixtures';
import { PlacementAwareFleet } from './placement-aware-fleet';
import { PlacementTrigger } from './placement-trigger';
import { suiteRedis } from '../../../../test/support/suite-redis';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const suite = suiteRedis(__filename, 'test-placer-budgets');
const FILE_PREFIX = suite.prefix;
const A = 'host-a:8001';
const B = 'host-b:8001';
let n = 0;

afterAll(() => suite.close());

/** Two backends of 300 MB each (three 100 MB versions); `prefix` shared to model a new leader. */
function rig(prefix = `${FILE_PREFIX}:${++n}`) {
  return { prefix, ...placerRig(suite.redis, prefix, { budgetMb: () => 300 }) };
}

function route(model: string, version = 1) {
  return { tenant: '*', task: `task-${model}`, model, versions: [{ version, weight: 100 }] };
}

describe('Placer with budgets (real Redis, fake backends)', () => {
  it('loads an asked-for version on the freer backend, clears the demand and announces it', async () => {
    const { placer, backends, sources, demand, repository, registry, prefix } = rig();
    sources.routeList = [route('x'), route('cold')];
    backends.host(A).models.set('x', [1]);
    const sub = createRedis('subscriber', { url: REDIS_URL, name: 'test-placer-loaded' });
    const heard: string[] = [];
    sub.on('message', (_c: string, m: string) => void heard.push(m));
    await sub.subscribe(new PlacementKeys(prefix).loadedChannel());
    await demand.request('cold', 1, 'router-1');

    await placer.reconcile();
    // x stayed resident; cold went to B, which had all 300 MB free.
    expect(backends.calls).toEqual([`serve ${B} cold [1]`]);
    expect(await demand.pending()).toEqual([]);
    await pollUntil(() => (heard.length > 0 ? heard : undefined), { what: 'the loaded notice' });
    expect(heard).toEqual([`cold@1@${B}`]);
    const ledger = await repository.ledgers();
    expect(ledger.get(B)).toMatchObject({
      budgetMb: 300,
      usedMb: 100,
      resident: [{ model: 'cold' }],
    });
    const metrics = await registry.metrics();
    expect(metrics).toContain('mesh_placement_loads_total{reason="demand"} 1');
    expect(metrics).toContain(`mesh_placement_budget_mb{backend="${A}"} 300`);
    await closeRedis(sub);
  });

  it('evicts the least recently used version once resident long enough, and a new leader keeps the clock', async () => {
    const first = rig();
    const { backends, sources, clock } = first;
    sources.routeList = ['a1', 'a2', 'a3', 'b1', 'b2', 'b3', 'cold'].map((m) => route(m));
    for (const m of ['a1', 'a2', 'a3']) backends.host(A).models.set(m, [1]);
    for (const m of ['b1', 'b2', 'b3']) backends.host(B).models.set(m, [1]);
    // Every last use predates the first pass by more than a signal bucket: no copy has served
    // since the ledger started its clock, so even a waiting request waits out the residency.
    sources.traffic = [
      { model: 'a1', version: 1, requests: 30, lastBucketAt: clock.ms - 9_000 },
      { model: 'a2', version: 1, requests: 30, lastBucketAt: clock.ms - 20_000 },
      { model: 'a3', version: 1, requests: 30, lastBucketAt: clock.ms - 10_000 },
      { model: 'b1', version: 1, requests: 30, lastBucketAt: clock.ms - 6_000 },
      { model: 'b2', version: 1, requests: 30, lastBucketAt: clock.ms - 7_000 },
      { model: 'b3', version: 1, requests: 30, lastBucketAt: clock.ms - 8_000 },
    ];
    await first.placer.reconcile(); // the ledger starts every residency clock now
    await first.demand.request('cold', 1, 'worker-1');
    clock.advance(30);
    await first.placer.reconcile();
    expect(backends.calls).toEqual([]); // nothing has been resident for a minute yet

    // Another replica takes over: it reads the residency clocks from the ledger.
    const second = rig(first.prefix);
    second.backends.hosts = backends.hosts;
    second.sources.routeList = sources.routeList;
    second.sources.traffic = sources.traffic;
    second.clock.ms = clock.ms;
    await second.placer.reconcile();
    expect(second.backends.calls).toEqual([]);
    second.clock.advance(31);
    await second.placer.reconcile();
    // a2 was used longest ago: unloaded first (the model's last version: RepositoryModelUnload).
    // It is not put back in the same pass by pushing out another busy version.
    expect(second.backends.calls).toEqual([`unload ${A} a2`, `serve ${A} cold [1]`]);
    const audit = (await second.repository.recentDecisions(10)).reverse();
    expect(audit.map((d) => `${d.action} ${d.model} ${d.reason} ${d.mb}`)).toEqual([
      'unload a2 evict 100',
      'load cold demand 100',
    ]);
    expect(await second.registry.metrics()).toContain('mesh_placement_evictions_total 1');
  });

  it('starts a copy’s residency when its load finished, so a slow load is not evicted unused', async () => {
    const { placer, backends, sources, demand, repository, clock } = rig();
    const busy = ['a1', 'a2', 'a3', 'b1', 'b2', 'b3'];
    sources.routeList = [...busy, 'cold', 'next'].map((m) => route(m));
    for (const m of busy) backends.host(m.startsWith('a') ? A : B).models.set(m, [1]);
    await placer.reconcile(); // every residency clock starts here; both budgets are full
    clock.advance(61);
    // Every resident version carries traffic; `cold`, once loaded, serves nobody yet: the
    // first to go in least-recently-used order as soon as it counts as settled.
    sources.traffic = busy.map((model) => ({
      model,
      version: 1,
      requests: 30,
      lastBucketAt: clock.ms,
    }));
    // Loads take longer than the minimum residency (60 s) from here on.
    const serve = backends.serve.bind(backends);
    backends.serve = async (model, versions, addresses) => {
      clock.advance(70);
      return serve(model, versions, addresses);
    };
    await demand.request('cold', 1, 'router-1');
    await placer.reconcile();
    expect(backends.calls).toEqual([
      expect.stringMatching(/^unload /),
      expect.stringMatching(/ cold \[1\]$/),
    ]);
    const holder = backends.host(A).models.has('cold') ? A : B;
    const copy = (await repository.ledgers()).get(holder)?.resident.find((r) => r.model === 'cold');
    expect(copy?.since).toBe(clock.ms);

    backends.calls = [];
    await demand.request('next', 1, 'router-2');
    await placer.reconcile();
    expect(backends.calls).toEqual([
      expect.stringMatching(/^unload host-[ab]:8001 [ab]\d$/),
      expect.stringMatching(/^serve host-[ab]:8001 next \[1\]$/),
    ]);
    expect(backends.host(holder).models.get('cold')).toEqual([1]);
  });

  it('places a vanished backend’s busy versions on the one left', async () => {
    const { placer, backends, sources, clock } = rig();
    sources.routeList = [route('hot'), route('idle')];
    backends.host(A).models.set('hot', [1]);
    backends.host(B).models.set('idle', [1]);
    sources.traffic = [{ model: 'hot', version: 1, requests: 300, lastBucketAt: clock.ms }];
    await placer.reconcile();
    expect(backends.calls).toEqual([]);
    backends.host(A).alive = false;
    await placer.reconcile();
    expect(backends.calls).toEqual([`serve ${B} hot [1]`]);
    expect(await placer.budgetsByBackend()).toEqual(
      new Map([
        [A, 300],
        [B, 300],
      ]),
    );
  });

  it('takes a budget a backend advertises, and keeps it while the backend is down', async () => {
    const { placer, backends } = placerRig(suite.redis, `${FILE_PREFIX}:${++n}`);
    backends.host(A).advertisedMb = 250;
    await placer.reconcile();
    backends.host(A).alive = false;
    await placer.reconcile();
    expect(await placer.budgetsByBackend()).toEqual(
      new Map([
        [A, 250],
        [B, null],
      ]),
    );
  });

  it('stores the footprint a backend reports after a load for the next passes', async () => {
    const { placer, backends, sources, demand, repository } = rig();
    sources.routeList = [route('m')];
    backends.reported.set('m@1', 140);
    await demand.request('m', 1, 'router-1');
    await placer.reconcile();
    expect((await repository.footprints()).get('m@1')).toBe(140);
  });

  it('runs a pass soon after a demand is announced, on the leader only', async () => {
    const { placer, backends, sources, demand, prefix } = rig();
    sources.routeList = [route('m')];
    let leader = false;
    const sub = createRedis('subscriber', { url: REDIS_URL, name: 'test-placer-trigger' });
    const channel = new PlacementKeys(prefix).demandChannel();
    const trigger = new PlacementTrigger(
      sub,
      channel,
      () => placer.reconcile(),
      () => leader,
      pino({ level: 'silent' }),
      10,
    );
    await trigger.start();
    await demand.request('m', 1, 'router-1');
    leader = true;
    await demand.request('m', 1, 'router-2');
    await pollUntil(() => (backends.calls.length > 0 ? true : undefined), {
      what: 'a pass after the demand',
    });
    expect(backends.calls).toEqual([`serve ${A} m [1]`]);
    await trigger.stop();
    await closeRedis(sub);
  });

  it('a rollout loads its new version where the old one is, checks it there, and retires the old', async () => {
    const { placer, backends, sources } = rig();
    const fleet = new PlacementAwareFleet(
      backends,
      { set: async () => undefined, all: async () => new Map() },
      placer,
    );
    sources.routeList = [route(MODEL)];
    backends.host(B).models.set(MODEL, [1]);
    await placer.reconcile();
    sources.rollouts = [
      rolloutRecord({ state: 'loading', fromVersions: [{ version: 1, weight: 100 }] }),
    ];
    expect(await fleet.readiness(MODEL, 2)).toEqual([
      { address: 'placement', ready: false, problem: 'not placed on any backend yet' },
    ]);
    await fleet.serve(MODEL, [1, 2], ['placement']);
    expect(backends.calls).toEqual([`serve ${B} ${MODEL} [1,2]`]);
    expect(await fleet.readiness(MODEL, 2)).toEqual([
      { address: B, ready: true, sha: `sha-${MODEL}-2` },
    ]);
    // Drained: the route is all on 2 and the rollout retires 1 at once.
    sources.routeList = [route(MODEL, 2)];
    await fleet.serve(MODEL, [2]);
    expect(backends.host(B).models.get(MODEL)).toEqual([2]);
    expect(backends.calls.at(-1)).toBe(`serve ${B} ${MODEL} [2]`);
  });
});
