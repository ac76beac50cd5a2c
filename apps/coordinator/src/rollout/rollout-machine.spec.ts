import type { RolloutPlan, RolloutState } from '@mesh/rollout-contract';
import { FakeClock, FakeMesh, signals } from '../testing/fake-mesh';
import {
  T0,
  TEN_FIFTY_HUNDRED_ROUTES,
  machineWith,
  meshWithRoute,
  rolloutRecord,
} from '../testing/rollout-fixtures';
import type { RolloutMachine } from './rollout-machine';
import type { RolloutRecord } from './rollout.types';

function setup(overrides: Partial<RolloutPlan> = {}) {
  const clock = new FakeClock(T0);
  const mesh = meshWithRoute();
  const machine = machineWith(mesh, clock);
  const record = rolloutRecord({ plan: overrides });
  return { clock, mesh, machine, record };
}

/** Advances until `state` (routers follow the table each tick), seconds of clock per tick. */
async function runUntil(
  machine: RolloutMachine,
  mesh: FakeMesh,
  clock: FakeClock,
  record: RolloutRecord,
  until: (r: RolloutRecord) => boolean,
  tickSeconds = 5,
  maxTicks = 500,
): Promise<RolloutRecord> {
  let r = record;
  for (let i = 0; i < maxTicks && !until(r); i++) {
    mesh.syncRouters();
    r = await machine.advance(r);
    clock.advance(tickSeconds);
  }
  if (!until(r)) throw new Error(`stuck in ${r.state} step ${r.step}`);
  return r;
}

const healthy = signals({ requests: 500, errors: 0, errorRate: 0, p99Ms: 20, ratePerSecond: 5 });
const baseline = signals({ requests: 4500, errors: 1, errorRate: 0.0002, p99Ms: 18 });

const states = (r: RolloutRecord): RolloutState[] => r.timeline.map((t) => t.to);

describe('RolloutMachine', () => {
  it('walks pending → … → completed: loads everywhere, steps 10/50/100, bakes, drains, retires v1', async () => {
    const { clock, mesh, machine, record } = setup();
    mesh.signals.set(2, healthy);
    mesh.signals.set(1, baseline);
    const done = await runUntil(machine, mesh, clock, record, (r) => r.state === 'completed');

    expect(states(done)).toEqual([
      'loading',
      'waiting_for_window',
      'canary',
      'canary',
      'canary',
      'baking',
      'promoted',
      'draining',
      'completed',
    ]);
    expect(done.timeline.filter((t) => t.to === 'canary').map((t) => t.step)).toEqual([1, 2, 3]);
    // One audited compare-and-swap per step plus the final clean-up, all by the rollout.
    expect(mesh.audit.map((a) => a.versions)).toEqual(TEN_FIFTY_HUNDRED_ROUTES);
    expect(new Set(mesh.audit.map((a) => a.who))).toEqual(new Set(['rollout:ro-1']));
    // Loaded with both versions, then retired to version 2 only, on both backends.
    expect(mesh.loads.filter((l) => l.versions.join() === '1,2')).toHaveLength(2);
    expect(mesh.loads.slice(-2).map((l) => l.versions)).toEqual([[2], [2]]);
    expect(mesh.desiredMap.get('question-type-zh')).toEqual([2]);
    expect(done.weights).toEqual([{ version: 2, weight: 100 }]);
    const completed = done.timeline.at(-1);
    expect(completed?.reason).toBe('retired version 1 on every backend');
  });

  it('does not move traffic until every router can route the version at the current epoch', async () => {
    const { clock, mesh, machine, record } = setup();
    for (const models of mesh.backends.values()) models.set('question-type-zh', [1, 2]);
    mesh.routable = false;
    let r = record;
    for (let i = 0; i < 5; i++) {
      r = await machine.advance(r);
      clock.advance(5);
    }
    expect(r.state).toBe('loading');
    expect(mesh.audit).toHaveLength(0);
    mesh.routable = true;
    mesh.syncRouters();
    r = await machine.advance(r);
    expect(r.state).toBe('waiting_for_window');
    expect(r.timeline.at(-1)?.metrics).toMatchObject({ backends: 2, routers: 2 });
  });

  it('fails the rollout when a backend serves bytes other than the manifest pins', async () => {
    const { clock, mesh, machine, record } = setup();
    for (const models of mesh.backends.values()) models.set('question-type-zh', [1, 2]);
    mesh.sha.set('host-b:8001/question-type-zh/2', 'sha-other');
    const r = await runUntil(machine, mesh, clock, record, (x) => x.state === 'failed');
    expect(r.timeline.at(-1)?.reason).toContain('host-b:8001');
    expect(r.timeline.at(-1)?.reason).toContain('sha-other');
    expect(mesh.audit).toHaveLength(0);
  });

  it('rolls back in one compare-and-swap when the error-rate gate fails, with the numbers', async () => {
    const { clock, mesh, machine, record } = setup();
    mesh.signals.set(1, baseline);
    mesh.signals.set(2, signals({ requests: 40, errors: 40, errorRate: 1, p99Ms: 5 }));
    const r = await runUntil(machine, mesh, clock, record, (x) => x.state === 'rolled_back', 1);
    expect(states(r).slice(-3)).toEqual(['canary', 'rolling_back', 'rolled_back']);
    const gate = r.timeline.find((t) => t.to === 'rolling_back');
    expect(gate?.reason).toBe('gate maxErrorRate failed: error rate 1 > 0.01');
    expect(gate?.metrics).toMatchObject({ requests: 40, errors: 40, errorRate: 1 });
    // Step 1, then the restore; the table ends where it started.
    expect(mesh.audit).toHaveLength(2);
    expect(mesh.weightsOf('*', 'question-type')).toEqual([{ version: 1, weight: 100 }]);
    // The failure was seen at the first evaluation after the step, not after the 60 s hold.
    const failedAt = Date.parse(gate?.at ?? '');
    const stepAt = Date.parse(r.timeline.find((t) => t.to === 'canary')?.at ?? '');
    expect(failedAt - stepAt).toBeLessThan(60_000);
  });

  it('fails the p99-ratio gate against the old version over the same interval', async () => {
    const { clock, mesh, machine, record } = setup();
    mesh.signals.set(1, baseline);
    mesh.signals.set(2, signals({ requests: 100, errors: 0, errorRate: 0, p99Ms: 90 }));
    const r = await runUntil(machine, mesh, clock, record, (x) => x.state === 'rolled_back', 1);
    const gate = r.timeline.find((t) => t.to === 'rolling_back');
    expect(gate?.reason).toContain('maxP99Ratio');
    expect(gate?.metrics).toMatchObject({ p99Ms: 90, baselineP99Ms: 18 });
    const canary = mesh.queries.filter((q) => q.version === 2);
    const base = mesh.queries.filter((q) => q.version === 1);
    expect(base.at(-1)).toEqual({ ...canary.at(-1), version: 1 });
  });

  it('pauses instead of rolling back when the plan says so, and resumes at the same step', async () => {
    const { clock, mesh, machine, record } = setup({ onFailure: 'pause' });
    mesh.signals.set(1, baseline);
    mesh.signals.set(2, healthy);
    let r = await runUntil(
      machine,
      mesh,
      clock,
      record,
      (x) => x.state === 'canary' && x.step === 2,
    );
    mesh.signals.set(2, signals({ requests: 50, errors: 10, errorRate: 0.2 }));
    r = await runUntil(machine, mesh, clock, r, (x) => x.state === 'paused');
    expect(r.pausedFrom).toEqual({ state: 'canary', step: 2 });
    expect(mesh.weightsOf('*', 'question-type')).toContainEqual({ version: 2, weight: 50 });
    mesh.signals.set(2, healthy);
    r = await machine.advance({ ...r, command: { kind: 'resume', at: clock.now() } });
    expect([r.state, r.step]).toEqual(['canary', 2]);
    const writes = mesh.audit.length;
    r = await runUntil(machine, mesh, clock, r, (x) => x.state === 'completed');
    expect(mesh.audit.length).toBe(writes + 2); // step 3 and the final clean-up
  });

  it('waits for minRequests before a gate can pass', async () => {
    const { clock, mesh, machine, record } = setup();
    mesh.signals.set(2, signals({ requests: 3, errorRate: 0 }));
    let r = await runUntil(machine, mesh, clock, record, (x) => x.state === 'canary');
    clock.advance(600);
    r = await machine.advance(r);
    expect([r.state, r.step]).toEqual(['canary', 1]);
    mesh.signals.set(2, healthy);
    r = await machine.advance(r);
    expect([r.state, r.step]).toEqual(['canary', 2]);
  });

  it('outside its window it waits, and starts at the next opening', async () => {
    // Opens daily at 03:00 Asia/Shanghai (19:00 UTC) for 60 minutes.
    const { clock, mesh, machine, record } = setup({
      window: { cron: '0 3 * * *', timezone: 'Asia/Shanghai', durationMinutes: 60 },
    });
    mesh.signals.set(2, healthy);
    let r = await runUntil(machine, mesh, clock, record, (x) => x.state === 'waiting_for_window');
    for (let i = 0; i < 20; i++) {
      r = await machine.advance(r);
      clock.advance(60);
    }
    expect(r.state).toBe('waiting_for_window');
    clock.ms = Date.parse('2026-12-01T19:00:30Z');
    r = await machine.advance(r);
    expect([r.state, r.step]).toEqual(['canary', 1]);
    expect(r.timeline.at(-1)?.reason).toMatch(/^inside the window; step 1/);
  });

  it('does not start the next step once the window has closed', async () => {
    const { clock, mesh, machine, record } = setup({
      window: { cron: '0 3 * * *', timezone: 'Asia/Shanghai', durationMinutes: 2 },
    });
    mesh.signals.set(2, healthy);
    clock.ms = Date.parse('2026-12-01T19:00:00Z');
    let r = await runUntil(machine, mesh, clock, record, (x) => x.state === 'canary');
    clock.ms = Date.parse('2026-12-01T19:05:00Z');
    r = await machine.advance(r);
    expect([r.state, r.step]).toEqual(['canary', 1]);
    clock.ms = Date.parse('2026-12-02T19:00:10Z');
    r = await machine.advance(r);
    expect([r.state, r.step]).toEqual(['canary', 2]);
  });

  it('with lowLoad waits while the task is busy and starts once it stayed quiet forSeconds', async () => {
    const { clock, mesh, machine, record } = setup({
      lowLoad: { maxRequestsPerSecond: 5, forSeconds: 30 },
    });
    mesh.signals.set(2, healthy);
    mesh.signals.set('task', signals({ ratePerSecond: 40 }));
    let r = await runUntil(machine, mesh, clock, record, (x) => x.state === 'waiting_for_window');
    for (let i = 0; i < 10; i++) {
      r = await machine.advance(r);
      clock.advance(10);
    }
    expect(r.state).toBe('waiting_for_window');
    expect(r.lowLoadSince).toBeUndefined();
    mesh.signals.set('task', signals({ ratePerSecond: 1 }));
    r = await machine.advance(r);
    const quietFrom = r.lowLoadSince;
    expect(quietFrom).toBe(clock.now());
    // A burst resets the quiet period.
    clock.advance(20);
    mesh.signals.set('task', signals({ ratePerSecond: 9 }));
    r = await machine.advance(r);
    expect(r.lowLoadSince).toBeUndefined();
    mesh.signals.set('task', signals({ ratePerSecond: 2 }));
    r = await runUntil(machine, mesh, clock, r, (x) => x.state === 'canary', 10);
    const start = r.timeline.at(-1);
    expect(start?.reason).toMatch(/load below 5 rps for 30 s/);
    expect(start?.metrics?.lowForSeconds).toBeGreaterThanOrEqual(30);
    const taskQuery = mesh.queries.find((q) => q.version === undefined);
    expect(taskQuery).toMatchObject({ task: 'question-type' });
    expect(taskQuery && taskQuery.toMs - taskQuery.fromMs).toBe(10_000);
  });

  it('warms the version up before the first step, and treats failed warm-ups as a failure', async () => {
    const { clock, mesh, machine, record } = setup({ warmup: { requests: 3 } });
    mesh.warmFailures = 1;
    const r = await runUntil(machine, mesh, clock, record, (x) => x.state === 'rolled_back');
    expect(states(r)).toContain('warming');
    expect(r.timeline.find((t) => t.to === 'rolling_back')?.reason).toBe(
      'warm-up failed: 1 of 3 requests',
    );
  });

  it('re-running a step after a crash before the save writes nothing twice', async () => {
    const { clock, mesh, machine, record } = setup();
    mesh.signals.set(2, healthy);
    mesh.signals.set(1, baseline);
    const atStep1 = await runUntil(machine, mesh, clock, record, (x) => x.state === 'canary');
    clock.advance(61);
    const atStep2 = await machine.advance(atStep1);
    expect(atStep2.step).toBe(2);
    const writes = mesh.audit.length;
    // The process died before saving atStep2: the next leader starts again from atStep1.
    const again = await machine.advance(atStep1);
    expect([again.state, again.step]).toEqual(['canary', 2]);
    expect(mesh.audit.length).toBe(writes);
    expect(again.appliedEpoch).toBe(atStep2.appliedEpoch);
  });

  it('a step whose weights were never committed commits them on the next advance', async () => {
    const { clock, mesh, machine, record } = setup();
    mesh.signals.set(2, healthy);
    const r = await runUntil(machine, mesh, clock, record, (x) => x.state === 'canary');
    const uncommitted = { ...r, step: 2 }; // saved as step 2 before the write went through
    const next = await machine.advance(uncommitted);
    expect([next.state, next.step]).toEqual(['canary', 2]);
    expect(mesh.weightsOf('*', 'question-type')).toContainEqual({ version: 2, weight: 50 });
    expect(next.enteredAt).toBe(clock.now());
  });

  it('abort restores the original weights; promote jumps to 100 % and drains', async () => {
    const first = setup();
    first.mesh.signals.set(2, healthy);
    let r = await runUntil(
      first.machine,
      first.mesh,
      first.clock,
      first.record,
      (x) => x.step === 2,
    );
    r = await first.machine.advance({ ...r, command: { kind: 'abort', at: 0 } });
    expect(r.state).toBe('aborted');
    expect(first.mesh.weightsOf('*', 'question-type')).toEqual([{ version: 1, weight: 100 }]);

    const second = setup();
    second.mesh.signals.set(2, healthy);
    r = await runUntil(
      second.machine,
      second.mesh,
      second.clock,
      second.record,
      (x) => x.step === 1,
    );
    r = await second.machine.advance({ ...r, command: { kind: 'promote', at: 0 } });
    expect([r.state, r.step]).toEqual(['promoted', 3]);
    expect(second.mesh.weightsOf('*', 'question-type')).toContainEqual({ version: 2, weight: 100 });
    r = await runUntil(
      second.machine,
      second.mesh,
      second.clock,
      r,
      (x) => x.state === 'completed',
    );
    expect(r.timeline.at(-1)?.reason).toBe('retired version 1 on every backend');
  });

  it('drains only when every router is past the promotion epoch and nothing is in flight', async () => {
    const { clock, mesh, machine, record } = setup({ bakeSeconds: 0 });
    mesh.signals.set(2, healthy);
    let r = await runUntil(machine, mesh, clock, record, (x) => x.state === 'draining');
    mesh.inFlight = 3;
    for (let i = 0; i < 5; i++) {
      mesh.syncRouters();
      r = await machine.advance(r);
    }
    expect(r.state).toBe('draining');
    mesh.inFlight = 0;
    mesh.routerEpoch = 0;
    r = await machine.advance(r);
    expect(r.state).toBe('draining');
    r = await runUntil(machine, mesh, clock, r, (x) => x.state === 'completed');
    expect(r.timeline.at(-1)?.metrics).toMatchObject({ inFlight: 0, retired: '1', serving: '2' });
  });

  it('keeps an old version that another route still uses', async () => {
    const { clock, mesh, machine, record } = setup({ bakeSeconds: 0 });
    mesh.routes.push({
      tenant: 'acme',
      task: 'question-type',
      model: 'question-type-zh',
      versions: [{ version: 1, weight: 100 }],
    });
    mesh.signals.set(2, healthy);
    const r = await runUntil(machine, mesh, clock, record, (x) => x.state === 'completed');
    expect(mesh.desiredMap.get('question-type-zh')).toEqual([1, 2]);
    expect(r.timeline.at(-1)?.reason).toBe(
      'old versions still used by other routes; nothing retired',
    );
  });

  it('says on the timeline, once, why retiring the old version fails, and completes once it works', async () => {
    const { clock, mesh, machine, record } = setup({ bakeSeconds: 0 });
    mesh.signals.set(2, healthy);
    let r = await runUntil(machine, mesh, clock, record, (x) => x.state === 'draining');
    const serve = mesh.serve.bind(mesh);
    mesh.serve = async () => {
      throw new Error(
        'loading question-type-zh versions [2] failed on host-a:8001: explicit model load / unload is not allowed',
      );
    };
    for (let i = 0; i < 5; i++) {
      mesh.syncRouters();
      r = await machine.advance(r);
      clock.advance(5);
    }
    expect(r.state).toBe('draining');
    const failures = r.timeline.filter((t) => t.reason.startsWith('retiring version 1 failed'));
    expect(failures.map((t) => t.reason)).toEqual([
      'retiring version 1 failed, retrying: loading question-type-zh versions [2] failed on host-a:8001: explicit model load / unload is not allowed',
    ]);
    mesh.serve = serve;
    r = await runUntil(machine, mesh, clock, r, (x) => x.state === 'completed');
    expect(r.timeline.at(-1)?.reason).toBe('retired version 1 on every backend');
  });

  it('fails a version that never becomes ready, naming the backend', async () => {
    const { clock, mesh, machine, record } = setup();
    mesh.serve = async () => undefined; // loads never take effect
    const r = await runUntil(machine, mesh, clock, record, (x) => x.state === 'failed', 60);
    expect(r.timeline.at(-1)?.reason).toMatch(/not ready in time \(host-a:8001: not loaded/);
  });

  describe('shadow phase', () => {
    const shadow = { sampleRate: 0.1, holdSeconds: 300, minAgreement: 0.9 };

    it('mirrors for the hold, then moves on to step 1 when the agreement is high enough', async () => {
      const { clock, mesh, machine, record } = setup({ shadow });
      mesh.signals.set(1, baseline);
      mesh.signals.set(2, healthy);
      let r = await runUntil(machine, mesh, clock, record, (x) => x.state === 'shadow');
      // Mirrors 10 %, and no traffic is on version 2 yet.
      expect(mesh.routes[0]?.shadow).toEqual({ version: 2, percent: 10 });
      expect(mesh.weightsOf('*', 'question-type')).toEqual([{ version: 1, weight: 100 }]);
      mesh.agreement = { compared: 180, agreed: 171, agreement: 0.95 };
      // runUntil already moved the clock 5 s past the shadow's start.
      clock.advance(290);
      r = await machine.advance(r);
      expect(r.state).toBe('shadow'); // the hold is not over; agreement alone does not decide
      clock.advance(5);
      r = await machine.advance(r);
      expect([r.state, r.step]).toEqual(['canary', 1]);
      const entry = r.timeline.at(-1);
      expect(entry?.reason).toBe(
        'shadow agreement 0.95 over 180 mirrored items ≥ 0.9; step 1: 10% on version 2',
      );
      expect(entry?.metrics).toMatchObject({
        compared: 180,
        agreed: 171,
        agreement: 0.95,
        minAgreement: 0.9,
        sampleRate: 0.1,
      });
      expect(mesh.routes[0]?.shadow).toBeUndefined();
      // The agreement was read for the shadow version over the whole shadow phase.
      const shadowAt = Date.parse(r.timeline.find((t) => t.to === 'shadow')?.at ?? '');
      expect(mesh.queries.at(-1)).toMatchObject({ version: 2, fromMs: shadowAt });
      r = await runUntil(machine, mesh, clock, r, (x) => x.state === 'completed');
      expect(states(r).slice(0, 4)).toEqual(['loading', 'waiting_for_window', 'shadow', 'canary']);
    });

    it('rolls back below minAgreement, with the numbers, and takes the shadow off the route', async () => {
      const { clock, mesh, machine, record } = setup({ shadow });
      mesh.agreement = { compared: 200, agreed: 120, agreement: 0.6 };
      const r = await runUntil(machine, mesh, clock, record, (x) => x.state === 'rolled_back', 60);
      expect(states(r)).toEqual([
        'loading',
        'waiting_for_window',
        'shadow',
        'rolling_back',
        'rolled_back',
      ]);
      const verdict = r.timeline.find((t) => t.to === 'rolling_back');
      expect(verdict?.reason).toBe('shadow agreement 0.6 over 200 mirrored items < 0.9');
      expect(verdict?.metrics).toMatchObject({ compared: 200, agreed: 120, agreement: 0.6 });
      expect(mesh.routes[0]?.shadow).toBeUndefined();
      expect(mesh.weightsOf('*', 'question-type')).toEqual([{ version: 1, weight: 100 }]);
    });

    it('pauses instead when the plan says so; a resume mirrors again for a fresh hold', async () => {
      const { clock, mesh, machine, record } = setup({ shadow, onFailure: 'pause' });
      mesh.agreement = { compared: 200, agreed: 100, agreement: 0.5 };
      let r = await runUntil(machine, mesh, clock, record, (x) => x.state === 'paused', 60);
      expect(r.pausedFrom).toEqual({ state: 'shadow', step: 0 });
      expect(mesh.routes[0]?.shadow).toBeUndefined();
      r = await machine.advance({ ...r, command: { kind: 'resume', at: clock.now() } });
      r = await machine.advance(r);
      expect(r.state).toBe('shadow');
      expect(mesh.routes[0]?.shadow).toEqual({ version: 2, percent: 10 });
    });

    it('waits past the hold until minRequests items were compared', async () => {
      const { clock, mesh, machine, record } = setup({ shadow });
      let r = await runUntil(machine, mesh, clock, record, (x) => x.state === 'shadow');
      mesh.agreement = { compared: 4, agreed: 4, agreement: 1 };
      clock.advance(3600);
      r = await machine.advance(r);
      expect(r.state).toBe('shadow');
      mesh.agreement = { compared: 10, agreed: 10, agreement: 1 };
      r = await machine.advance(r);
      expect(r.state).toBe('canary');
    });
  });

  it('a terminal record is returned unchanged', async () => {
    const { machine, record } = setup();
    const done = { ...record, state: 'completed' as const };
    await expect(machine.advance(done)).resolves.toBe(done);
  });
});
