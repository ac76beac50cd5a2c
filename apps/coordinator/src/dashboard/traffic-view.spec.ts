import type { Route } from '@mesh/routing';
import type {
  TrafficSignalQuery,
  TrafficSignalSource,
  TrafficVersionRef,
  TrafficVersionsSource,
  VersionSignals,
} from '@mesh/signals';
import { EMPTY_SIGNALS, FakeClock, signals } from '../testing/fake-mesh';
import { TrafficViewReader, trafficVersions } from './traffic-view';

const MODEL = 'question-type-zh';
const route = (versions: number[], shadow?: number): Route => ({
  tenant: '*',
  task: 'question-type',
  model: MODEL,
  versions: versions.map((version) => ({ version, weight: 100 / versions.length })),
  ...(shadow === undefined ? {} : { shadow: { version: shadow } }),
});
const ref = (version: number, task = 'question-type', model = MODEL): TrafficVersionRef => ({
  task,
  model,
  version,
});

describe('trafficVersions (which versions the Traffic view shows)', () => {
  it('keeps a version a rollout retired while it had traffic in the window, marked retired', () => {
    // After 1 → 2: the route names only v2, but v1 served requests earlier in the window.
    expect(trafficVersions({ routes: [route([2])] }, [ref(1), ref(2)])).toEqual([
      { ...ref(2), retired: false },
      { ...ref(1), retired: true },
    ]);
  });

  it('shows every routed or shadowed version, traffic or not, in table order', () => {
    const intent = { ...route([1]), task: 'intent', model: 'intent-zh' };
    expect(trafficVersions({ routes: [route([2, 1], 3), intent] }, [])).toEqual([
      { ...ref(2), retired: false },
      { ...ref(1), retired: false },
      { ...ref(3), retired: false },
      { ...ref(1, 'intent', 'intent-zh'), retired: false },
    ]);
  });

  it('lists a version routed by two tenants once', () => {
    const tenantRoute = { ...route([1]), tenant: 'acme' };
    expect(trafficVersions({ routes: [route([1]), tenantRoute] }, [ref(1)])).toEqual([
      { ...ref(1), retired: false },
    ]);
  });

  it('shows the traffic of a task whose route is gone, and nothing without a table or traffic', () => {
    expect(trafficVersions(null, [ref(1, 'intent', 'intent-zh')])).toEqual([
      { ...ref(1, 'intent', 'intent-zh'), retired: true },
    ]);
    expect(trafficVersions(null, [])).toEqual([]);
  });
});

/** Signals per version over any window, and the versions that had traffic. */
class FakeSignals implements TrafficSignalSource, TrafficVersionsSource {
  readonly byVersion = new Map<number, VersionSignals>();
  readonly windows: { fromMs: number; toMs: number }[] = [];

  read(q: TrafficSignalQuery): Promise<VersionSignals> {
    return Promise.resolve(this.byVersion.get(q.version ?? -1) ?? EMPTY_SIGNALS);
  }

  versionsWithTraffic(window: { fromMs: number; toMs: number }): Promise<TrafficVersionRef[]> {
    this.windows.push(window);
    return Promise.resolve([...this.byVersion.keys()].map((v) => ref(v)));
  }
}

describe('TrafficViewReader', () => {
  const NOW = Date.parse('2026-12-01T02:00:03Z');

  function reader(routes: Route[], fake: FakeSignals) {
    const table = { load: () => Promise.resolve({ epoch: 3, tenants: [], routes }) };
    return new TrafficViewReader(fake, table, new FakeClock(NOW), {
      windowMs: 60_000,
      stepMs: 30_000,
    });
  }

  it('reads the retired version’s signals beside the routed one’s', async () => {
    const fake = new FakeSignals();
    fake.byVersion.set(1, signals({ requests: 600, ratePerSecond: 10 }));
    fake.byVersion.set(2, signals({ requests: 60, ratePerSecond: 1 }));
    const view = await reader([route([2])], fake).read();
    expect(view.rows.map((r) => [r.version, r.retired, r.summary.requests])).toEqual([
      [2, false, 60],
      [1, true, 600],
    ]);
    // The versions are looked up over the view's own window (ending at the last whole bucket).
    expect(fake.windows).toEqual([{ fromMs: view.fromMs, toMs: view.toMs }]);
    expect(view.toMs).toBe(Date.parse('2026-12-01T02:00:00Z'));
  });

  it('rounds the numbers it sends for people: totals and series', async () => {
    const fake = new FakeSignals();
    fake.byVersion.set(
      1,
      signals({
        requests: 7,
        errors: 1,
        errorRate: 1 / 7,
        ratePerSecond: 7 / 60,
        p50Ms: 4.050000000000001,
        p99Ms: 14.149999999999991,
      }),
    );
    const [row] = (await reader([route([1])], fake).read()).rows;
    expect(row?.summary).toMatchObject({
      requests: 7,
      errors: 1,
      errorRate: 0.143,
      ratePerSecond: 0.117,
      p50Ms: 4.05,
      p99Ms: 14.1,
    });
    expect(row?.series).toEqual({
      ratePerSecond: [0.117, 0.117],
      errorRate: [0.143, 0.143],
      p50Ms: [4.05, 4.05],
      p99Ms: [14.1, 14.1],
    });
  });

  it('keeps a missing percentile null', async () => {
    const fake = new FakeSignals();
    fake.byVersion.set(1, signals({ requests: 0 }));
    const [row] = (await reader([route([1])], fake).read()).rows;
    expect([row?.summary.p99Ms, row?.series.p99Ms]).toEqual([null, [null, null]]);
  });
});
