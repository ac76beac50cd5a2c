import { SpanStatusCode } from '@opentelemetry/api';
import { tracingEnabled } from '@mesh/telemetry';
import type { RolloutPlan } from '@mesh/rollout-contract';
import { FakeClock, FakeMesh, signals } from '../testing/fake-mesh';
import {
  InMemoryTracing,
  childNamed,
  childrenOf,
  type ReadableSpan,
} from '../../../../libs/telemetry/src/testing/in-memory-tracing';
import { T0, machineWith, meshWithRoute, rolloutRecord } from '../testing/rollout-fixtures';
import type { RolloutMachine } from './rollout-machine';
import type { RolloutRecord } from './rollout.types';

const healthy = signals({ requests: 500, errors: 0, errorRate: 0, p99Ms: 20, ratePerSecond: 5 });
const baseline = signals({ requests: 4500, errors: 1, errorRate: 0.0002, p99Ms: 18 });

function setup(plan: Partial<RolloutPlan> = {}) {
  const clock = new FakeClock(T0);
  const mesh = meshWithRoute();
  mesh.signals.set(1, baseline);
  return { clock, mesh, machine: machineWith(mesh, clock), record: rolloutRecord({ plan }) };
}

/** Advances until `until` holds (routers follow the table each tick), seconds of clock per tick. */
async function runUntil(
  { machine, mesh, clock }: { machine: RolloutMachine; mesh: FakeMesh; clock: FakeClock },
  record: RolloutRecord,
  until: (r: RolloutRecord) => boolean,
  tickSeconds = 5,
): Promise<RolloutRecord> {
  let r = record;
  for (let i = 0; i < 500 && !until(r); i++) {
    mesh.syncRouters();
    r = await machine.advance(r);
    clock.advance(tickSeconds);
  }
  if (!until(r)) throw new Error(`stuck in ${r.state} step ${r.step}`);
  return r;
}

const roots = (spans: ReadableSpan[]) => spans.filter((s) => s.name === 'rollout.step');
const outcome = (s: ReadableSpan) => s.attributes['mesh.rollout.outcome'];

describe('RolloutMachine, traced', () => {
  let tracing: InMemoryTracing;

  beforeEach(() => {
    tracing = new InMemoryTracing();
  });

  afterEach(async () => {
    expect(await tracing.shutdown()).toBe(false); // the module's tracer is cleared
    expect(tracingEnabled()).toBe(false);
  });

  it('makes one trace per step that moved or wrote, none for the ticks of a hold', async () => {
    const rig = setup({ warmup: { requests: 3 } });
    rig.mesh.signals.set(2, healthy);
    const done = await runUntil(rig, rig.record, (r) => r.state === 'completed');
    const spans = await tracing.spans();
    const steps = roots(spans);

    for (const s of steps) expect(s.parentSpanContext).toBeUndefined();
    expect(new Set(steps.map((s) => s.spanContext().traceId)).size).toBe(steps.length);
    // Every transition, plus the two ticks that wrote without moving (the load asked of the
    // backends, the drain's final weights); the 12 ticks of each 60 s hold and the bake only
    // looked.
    expect(steps.filter((s) => outcome(s) !== 'waiting').map(outcome)).toEqual(
      done.timeline.map((t) => t.to),
    );
    const wrote = steps.filter((s) => outcome(s) === 'waiting');
    expect(wrote.map((s) => s.attributes['mesh.rollout.state.from'])).toEqual([
      'loading',
      'draining',
    ]);
    expect(childrenOf(spans, wrote[1]!).map((s) => s.name)).toEqual(['rollout.shift']);
    for (const s of steps) {
      expect(s.attributes).toMatchObject({
        'mesh.rollout.id': 'ro-1',
        'mesh.model': 'question-type-zh',
        'mesh.version.from': '1',
        'mesh.version.to': 2,
        'mesh.outcome': 'ok',
      });
    }
  });

  it('a load step shows the readiness checks and the load asked of the backends', async () => {
    const rig = setup();
    let r = await rig.machine.advance(rig.record); // pending → loading
    r = await rig.machine.advance(r); // nothing loaded yet: asks for it
    expect(r.state).toBe('loading');
    const spans = await tracing.spans();
    const [, asked] = roots(spans);
    expect(asked!.attributes).toMatchObject({
      'mesh.rollout.outcome': 'waiting',
      'mesh.rollout.state.from': 'loading',
      'mesh.rollout.state.to': 'loading',
    });
    expect(childNamed(spans, asked!, 'rollout.ready').attributes).toMatchObject({
      'mesh.version': 2,
      'mesh.backends': 2,
      'mesh.backends.ready': 0,
      'mesh.backends.waiting': 'host-a:8001: not loaded; host-b:8001: not loaded',
    });
    expect(childNamed(spans, asked!, 'rollout.load').attributes).toMatchObject({
      'mesh.model': 'question-type-zh',
      'mesh.versions': '1,2',
      'mesh.backends': 'host-a:8001,host-b:8001',
      'mesh.outcome': 'ok',
    });
  });

  it('a canary step carries the gate it passed and the weight shift with its epoch', async () => {
    const rig = setup();
    rig.mesh.signals.set(2, healthy);
    const done = await runUntil(rig, rig.record, (r) => r.state === 'canary' && r.step === 2);
    const spans = await tracing.spans();
    const step = roots(spans).at(-1)!;
    expect(step.attributes).toMatchObject({
      'mesh.rollout.outcome': 'canary',
      'mesh.rollout.state.from': 'canary',
      'mesh.rollout.step': 2,
      'mesh.rollout.weight': 50,
      'mesh.rollout.epoch': done.appliedEpoch,
      'mesh.rollout.reason': 'step 1 held: gates passed; step 2: 50% on version 2',
      'mesh.rollout.metric.p99_ms': 20,
    });
    const gate = childNamed(spans, step, 'rollout.gate');
    expect(gate.attributes).toMatchObject({
      'mesh.gate.verdict': 'pass',
      'mesh.gate.requests': 500,
      'mesh.gate.error_rate': 0,
      'mesh.gate.p99_ms': 20,
      'mesh.gate.baseline.p99_ms': 18,
      'mesh.gate.baseline.error_rate': 0.0002,
      'mesh.gate.max_error_rate': 0.01,
      'mesh.gate.max_p99_ratio': 2,
      'mesh.gate.min_requests': 10,
      'mesh.gate.window_s': 60,
    });
    expect(gate.attributes['mesh.gate.max_p99_ms']).toBeUndefined(); // not in the plan
    expect(childNamed(spans, step, 'rollout.shift').attributes).toMatchObject({
      'mesh.rollout.weights': '1:50,2:50',
      'mesh.rollout.weight': 50,
      'mesh.routing.expected_epoch': done.appliedEpoch - 1,
      'mesh.routing.epoch': done.appliedEpoch,
    });
  });

  it('sends the warm-up span as the traceparent of the warm-up inferences', async () => {
    const rig = setup({ warmup: { requests: 3 } });
    await runUntil(rig, rig.record, (r) => r.state === 'canary');
    const spans = await tracing.spans();
    const step = roots(spans).at(-1)!;
    expect(step.attributes['mesh.rollout.state.from']).toBe('warming');
    const warm = childNamed(spans, step, 'rollout.warm');
    expect(warm.attributes).toMatchObject({
      'mesh.warmup.requests': 3,
      'mesh.warmup.ok': 3,
      'mesh.warmup.failed': 0,
    });
    const { traceId, spanId } = warm.spanContext();
    expect(rig.mesh.warmTraceparents).toEqual([`00-${traceId}-${spanId}-01`]);
    expect(childrenOf(spans, step).map((s) => s.name)).toEqual(['rollout.warm', 'rollout.shift']);
  });

  it('shows a failed gate with its numbers, then the rollback as a span restoring the weights', async () => {
    const rig = setup();
    rig.mesh.signals.set(2, signals({ requests: 40, errors: 40, errorRate: 1, p99Ms: 5 }));
    const done = await runUntil(rig, rig.record, (r) => r.state === 'rolled_back', 1);
    const spans = await tracing.spans();
    const [failing, restoring] = roots(spans).slice(-2);

    expect(failing!.attributes).toMatchObject({
      'mesh.rollout.outcome': 'rolling_back',
      'mesh.rollout.reason': 'gate maxErrorRate failed: error rate 1 > 0.01',
    });
    const gate = childNamed(spans, failing!, 'rollout.gate');
    expect(gate.attributes).toMatchObject({
      'mesh.gate.verdict': 'fail',
      'mesh.gate.error_rate': 1,
      'mesh.gate.errors': 40,
      'mesh.outcome': 'gate_failed',
    });
    expect(gate.status.code).toBe(SpanStatusCode.ERROR);

    expect(restoring!.attributes).toMatchObject({
      'mesh.rollout.outcome': 'rolled_back',
      'mesh.rollout.weight': 0,
      'mesh.rollout.epoch': done.appliedEpoch,
    });
    const rollback = childNamed(spans, restoring!, 'rollout.rollback');
    expect(rollback.attributes['mesh.rollout.restore']).toBe('1:100');
    expect(childNamed(spans, rollback, 'rollout.shift').attributes).toMatchObject({
      'mesh.rollout.weights': '1:100',
      'mesh.routing.epoch': done.appliedEpoch,
    });
  });

  it('traces an operator abort with its command and the restore', async () => {
    const rig = setup();
    rig.mesh.signals.set(2, healthy);
    const canary = await runUntil(rig, rig.record, (r) => r.state === 'canary');
    const aborted = await rig.machine.advance({ ...canary, command: { kind: 'abort', at: T0 } });
    expect(aborted.state).toBe('aborted');
    const spans = await tracing.spans();
    const step = roots(spans).at(-1)!;
    expect(step.attributes).toMatchObject({
      'mesh.rollout.command': 'abort',
      'mesh.rollout.outcome': 'aborted',
    });
    const rollback = childNamed(spans, step, 'rollout.rollback');
    expect(childNamed(spans, rollback, 'rollout.shift').attributes['mesh.rollout.weights']).toBe(
      '1:100',
    );
  });

  it('a write that throws ends its span and the step with the error; the step still throws', async () => {
    const rig = setup();
    rig.mesh.signals.set(2, healthy);
    const ready = await runUntil(rig, rig.record, (r) => r.state === 'waiting_for_window');
    rig.mesh.failNextWrite = new Error('fenced: not the leader');
    await expect(rig.machine.advance(ready)).rejects.toThrow('fenced');
    const spans = await tracing.spans();
    const step = roots(spans).at(-1)!;
    expect(step.attributes).toMatchObject({
      'mesh.rollout.outcome': 'error',
      'mesh.outcome': 'error',
    });
    expect(step.status).toEqual({ code: SpanStatusCode.ERROR, message: 'fenced: not the leader' });
    const shift = childNamed(spans, step, 'rollout.shift');
    expect(shift.status.code).toBe(SpanStatusCode.ERROR);
  });
});

describe('RolloutMachine, tracing off', () => {
  it('creates no span and walks the same steps, writes and timeline as when traced', async () => {
    const plan = { warmup: { requests: 2 } };
    const traced = setup(plan);
    traced.mesh.signals.set(2, healthy);
    const tracing = new InMemoryTracing();
    const withTracing = await runUntil(traced, traced.record, (r) => r.state === 'completed');
    expect(roots(await tracing.spans()).length).toBeGreaterThan(0);
    expect(await tracing.shutdown()).toBe(false);

    const plain = setup(plan);
    plain.mesh.signals.set(2, healthy);
    expect(tracingEnabled()).toBe(false);
    // With tracing off any span creation throws ("tracing is off"): finishing proves none.
    const without = await runUntil(plain, plain.record, (r) => r.state === 'completed');
    expect(without).toEqual(withTracing);
    expect(plain.mesh.audit).toEqual(traced.mesh.audit);
    expect(plain.mesh.loads).toEqual(traced.mesh.loads);
    expect(plain.mesh.warmTraceparents).toEqual([undefined]);
  });
});
