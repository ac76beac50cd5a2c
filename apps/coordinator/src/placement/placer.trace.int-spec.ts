import { SpanStatusCode } from '@opentelemetry/api';
import { tracingEnabled } from '@mesh/telemetry';
import { placerRig } from '../testing/fake-placement';
import {
  childrenOf,
  InMemoryTracing,
  type ReadableSpan,
} from '../../../../libs/telemetry/src/testing/in-memory-tracing';
import { suiteRedis } from '../../../../test/support/suite-redis';

const suite = suiteRedis(__filename, 'test-placer-trace');
const FILE_PREFIX = suite.prefix;
const A = 'host-a:8001';
const B = 'host-b:8001';
let n = 0;

afterAll(() => suite.close());

function rig(options: { budgetMb?: (address: string) => number | null } = {}) {
  return placerRig(suite.redis, `${FILE_PREFIX}:${++n}`, options);
}

const passes = (spans: ReadableSpan[], name = 'placement.pass') =>
  spans.filter((s) => s.name === name);
const change = (s: ReadableSpan) =>
  [s.name, s.attributes['mesh.backend'], s.attributes['mesh.model'], s.attributes['mesh.version']]
    .map(String)
    .join(' ');

describe('Placer, traced (real Redis, fake backends)', () => {
  let tracing: InMemoryTracing;

  beforeEach(() => {
    tracing = new InMemoryTracing();
  });

  afterEach(async () => {
    expect(await tracing.shutdown()).toBe(false);
    expect(tracingEnabled()).toBe(false);
  });

  it('a pass that decides changes is a span with a child per load and unload; a converged pass none', async () => {
    const { placer, backends, sources } = rig();
    sources.desiredMap.set('question-type-zh', [2, 4]);
    backends.host(A).models.set('question-type-zh', [2, 4]);
    backends.host(B).models.set('question-type-zh', [1, 2, 3, 4]);
    await placer.reconcile();
    await placer.reconcile(); // converged: decides nothing
    await placer.reconcile();

    const spans = await tracing.spans();
    const [pass, ...more] = passes(spans);
    expect(more).toEqual([]);
    expect(pass!.parentSpanContext).toBeUndefined();
    expect(pass!.attributes).toMatchObject({
      'mesh.placement.loads': 0,
      'mesh.placement.unloads': 2,
      'mesh.placement.failed': 0,
      'mesh.placement.skipped': 0,
      'mesh.backends': 2,
      'mesh.outcome': 'ok',
    });
    const children = childrenOf(spans, pass!);
    expect(children.map(change).sort()).toEqual([
      `placement.unload ${B} question-type-zh 1`,
      `placement.unload ${B} question-type-zh 3`,
    ]);
    expect(children[0]!.attributes).toMatchObject({
      'mesh.model': 'question-type-zh',
      'mesh.placement.reason': 'retire',
      'mesh.placement.mb': 100,
      'mesh.outcome': 'ok',
    });
    expect(spans).toHaveLength(3);
    expect(backends.calls).toEqual([`serve ${B} question-type-zh [2,4]`]);
  });

  it('a failed call marks its changes and the pass with the error', async () => {
    const { placer, backends, sources } = rig();
    sources.desiredMap.set('intent-zh', [3]);
    backends.host(A).models.set('intent-zh', [3]);
    backends.host(B).models.set('intent-zh', [2]);
    backends.failing.add(B);
    expect(await placer.reconcile()).toBe(0);

    const spans = await tracing.spans();
    const [pass] = passes(spans);
    expect(pass!.attributes).toMatchObject({
      'mesh.placement.loads': 1,
      'mesh.placement.unloads': 1,
      'mesh.placement.failed': 2,
      'mesh.outcome': 'placement_failed',
    });
    expect(pass!.status.code).toBe(SpanStatusCode.ERROR);
    const load = childrenOf(spans, pass!).find((s) => s.name === 'placement.load')!;
    expect(load.attributes).toMatchObject({
      'mesh.backend': B,
      'mesh.model': 'intent-zh',
      'mesh.version': 3,
      'mesh.placement.reason': 'restore',
      'mesh.placement.mb': 100,
      'mesh.outcome': 'error',
    });
    expect(load.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: `load failed on ${B}: deadline exceeded`,
    });
  });

  it("under budgets an eviction and the load it made room for are children of one pass; a rollout's retire is its own span", async () => {
    const { placer, backends, sources, demand, clock } = rig({ budgetMb: () => 200 });
    sources.routeList = ['a1', 'a2'].map((m) => ({
      tenant: '*',
      task: `task-${m}`,
      model: m,
      versions: [{ version: 1, weight: 100 }],
    }));
    backends.host(A).models.set('a1', [1]);
    backends.host(A).models.set('a2', [1]);
    backends.host(B).models.set('a1', [1]);
    backends.host(B).models.set('a2', [1]);
    await placer.reconcile(); // starts the residency clocks
    clock.advance(120);
    await demand.request('cold', 1, 'worker-1');
    await placer.reconcile();
    await placer.retire('a1', [], [A, B]);

    const spans = await tracing.spans();
    const [pass] = passes(spans);
    // The evictions that made room, then the load they made room for, as the calls went.
    expect(backends.calls).toEqual([
      `unload ${A} a1`,
      `unload ${B} a2`,
      `serve ${A} cold [1]`,
      `unload ${B} a1`,
    ]);
    expect(childrenOf(spans, pass!).map(change)).toEqual([
      `placement.unload ${A} a1 1`,
      `placement.unload ${B} a2 1`,
      `placement.load ${A} cold 1`,
    ]);
    const load = childrenOf(spans, pass!).find((s) => s.name === 'placement.load')!;
    expect(load.attributes).toMatchObject({
      'mesh.placement.reason': 'demand',
      'mesh.placement.mb': 100,
      'mesh.outcome': 'ok',
    });

    const [retire] = passes(spans, 'placement.retire');
    expect(retire!.attributes).toMatchObject({
      'mesh.model': 'a1',
      'mesh.placement.unloads': 1,
      'mesh.outcome': 'ok',
    });
    const [retired] = childrenOf(spans, retire!);
    expect(change(retired!)).toBe(`placement.unload ${B} a1 1`);
    expect(retired!.attributes['mesh.placement.reason']).toBe('retire');
  });
});

describe('Placer, tracing off', () => {
  it('makes the same calls with no tracer', async () => {
    expect(tracingEnabled()).toBe(false);
    const { placer, backends, sources } = rig();
    sources.desiredMap.set('question-type-zh', [2, 4]);
    backends.host(A).models.set('question-type-zh', [2, 4]);
    backends.host(B).models.set('question-type-zh', [1, 2, 3, 4]);
    expect(await placer.reconcile()).toBe(0);
    expect(await placer.reconcile()).toBe(0);
    // As in the traced pass above.
    expect(backends.calls).toEqual([`serve ${B} question-type-zh [2,4]`]);
  });
});
