import { histogramQuantile, LATENCY_BOUNDS_MS, latencyBucket } from './latency-histogram';
import { RedisTrafficSignalSource } from './redis-traffic-signal-source';
import { TrafficSignalRecorder } from './traffic-signal-recorder';
import { suiteRedis } from '../../../test/support/suite-redis';

const suite = suiteRedis(__filename, 'test-traffic-signals');
const FILE_PREFIX = suite.prefix;
const BUCKET = 5000;
// A bucket boundary far from "now", so buckets are chosen by their own timestamps only.
const T0 = 1_800_000_000_000;
let counter = 0;

function setup() {
  counter += 1;
  const keyPrefix = `${FILE_PREFIX}:${counter}`;
  let now = T0;
  const clock = { set: (ms: number) => (now = ms) };
  const recorder = (): TrafficSignalRecorder =>
    new TrafficSignalRecorder(suite.redis, { keyPrefix, bucketMs: BUCKET, now: () => now });
  const source = new RedisTrafficSignalSource(suite.redis, { keyPrefix, bucketMs: BUCKET });
  return { keyPrefix, clock, recorder, source };
}

/** The (lower, upper] bounds of the histogram bucket an injected latency is counted in. */
const sample = (version: number, outcome = 'ok', latencyMs = 4) => ({
  task: 'question-type',
  model: 'question-type-zh',
  version,
  outcome,
  latencyMs,
});

afterAll(() => suite.close());

describe('TrafficSignalRecorder + RedisTrafficSignalSource (real Redis)', () => {
  it('adds two routers’ shadow comparisons per version; requests are not counted twice', async () => {
    const { clock, recorder, source } = setup();
    const a = recorder();
    const b = recorder();
    const shadow = { task: 'question-type', model: 'question-type-zh', version: 2 };
    a.record(sample(1));
    a.recordShadow({ ...shadow, compared: 4, agreed: 3 });
    b.recordShadow({ ...shadow, compared: 6, agreed: 6 });
    b.recordShadow({ ...shadow, compared: 0, agreed: 0 }); // nothing comparable (embeddings)
    clock.set(T0 + BUCKET);
    a.recordShadow({ ...shadow, compared: 10, agreed: 5 });
    await Promise.all([a.close(), b.close()]);

    const q = { task: 'question-type', model: 'question-type-zh', version: 2 };
    expect(await source.readShadow({ ...q, fromMs: T0, toMs: T0 + 1 })).toEqual({
      compared: 10,
      agreed: 9,
      agreement: 0.9,
    });
    expect(await source.readShadow({ ...q, fromMs: T0, toMs: T0 + 2 * BUCKET })).toEqual({
      compared: 20,
      agreed: 14,
      agreement: 0.7,
    });
    expect(await source.readShadow({ ...q, version: 1, fromMs: T0, toMs: T0 + 1 })).toEqual({
      compared: 0,
      agreed: 0,
      agreement: null,
    });
    // Shadow counts are not requests of the shadow version.
    const v2 = await source.read({ ...q, fromMs: T0, toMs: T0 + 2 * BUCKET });
    expect([v2.requests, v2.errors]).toEqual([0, 0]);
    const task = await source.read({ task: 'question-type', fromMs: T0, toMs: T0 + 2 * BUCKET });
    expect(task.requests).toBe(1);
  });

  it('adds two routers’ counts per version, with errors by class', async () => {
    const { recorder, source } = setup();
    const a = recorder();
    const b = recorder();
    for (let i = 0; i < 30; i++) a.record(sample(1));
    for (let i = 0; i < 3; i++) a.record(sample(1, 'BACKEND_UNAVAILABLE'));
    for (let i = 0; i < 20; i++) b.record(sample(1));
    b.record(sample(1, 'BACKEND_TIMEOUT'));
    for (let i = 0; i < 7; i++) b.record(sample(2));
    await Promise.all([a.close(), b.close()]);

    const window = { task: 'question-type', fromMs: T0, toMs: T0 + 10_000 };
    const v1 = await source.read({ ...window, model: 'question-type-zh', version: 1 });
    expect(v1.requests).toBe(54);
    expect(v1.errors).toBe(4);
    expect(v1.errorsByClass).toEqual({ BACKEND_UNAVAILABLE: 3, BACKEND_TIMEOUT: 1 });
    expect(v1.errorRate).toBeCloseTo(4 / 54);
    expect(v1.ratePerSecond).toBeCloseTo(5.4);

    const v2 = await source.read({ ...window, model: 'question-type-zh', version: 2 });
    expect([v2.requests, v2.errors]).toEqual([7, 0]);
    const task = await source.read(window);
    expect(task.requests).toBe(61);
    const other = await source.read({ ...window, task: 'intent' });
    expect(other).toMatchObject({ requests: 0, errors: 0, errorRate: 0, p50Ms: null, p99Ms: null });
  });

  it('client mistakes are listed by class but are not the version’s errors', async () => {
    const { recorder, source } = setup();
    const r = recorder();
    r.record(sample(1, 'TEXT_TOO_LONG'));
    r.record(sample(1, 'INVALID_ARGUMENT'));
    r.record(sample(1, 'INTERNAL'));
    await r.close();
    const s = await source.read({ task: 'question-type', fromMs: T0, toMs: T0 + BUCKET });
    expect(s).toMatchObject({
      requests: 3,
      errors: 1,
      errorsByClass: { INTERNAL: 1, TEXT_TOO_LONG: 1, INVALID_ARGUMENT: 1 },
    });
  });

  it('files each request under the bucket of its own time; a window reads only its buckets', async () => {
    const { recorder, source, clock } = setup();
    const r = recorder();
    clock.set(T0 + 1000);
    r.record(sample(1));
    clock.set(T0 + BUCKET + 10);
    r.record(sample(1));
    r.record(sample(1));
    clock.set(T0 + 3 * BUCKET);
    r.record(sample(1));
    await r.close();
    const read = (fromMs: number, toMs: number) =>
      source.read({ task: 'question-type', fromMs, toMs }).then((s) => s.requests);
    expect(await read(T0, T0 + BUCKET)).toBe(1);
    expect(await read(T0 + BUCKET, T0 + 2 * BUCKET)).toBe(2);
    expect(await read(T0, T0 + 3 * BUCKET)).toBe(3);
    expect(await read(T0, T0 + 4 * BUCKET)).toBe(4);
    expect(await read(T0 + 2 * BUCKET, T0 + 3 * BUCKET)).toBe(0);
  });

  it('reports p50/p99 of successful requests from the merged histogram', async () => {
    const { recorder, source } = setup();
    const a = recorder();
    const b = recorder();
    for (let i = 0; i < 98; i++) (i % 2 ? a : b).record(sample(1, 'ok', 4));
    a.record(sample(1, 'ok', 400));
    b.record(sample(1, 'ok', 450));
    // A slow failure does not move the latency of answers.
    a.record(sample(1, 'BACKEND_TIMEOUT', 9000));
    await Promise.all([a.close(), b.close()]);
    const s = await source.read({ task: 'question-type', fromMs: T0, toMs: T0 + BUCKET });
    // The latencies are injected, not timed: the source must answer exactly the quantiles of
    // the histogram those samples make once both recorders' buckets are merged in Redis.
    const counts = new Array<number>(LATENCY_BOUNDS_MS.length).fill(0);
    for (const ms of [...Array<number>(98).fill(4), 400, 450]) counts[latencyBucket(ms)]! += 1;
    expect(s.p50Ms).toBe(histogramQuantile(0.5, counts));
    expect(s.p99Ms).toBe(histogramQuantile(0.99, counts));
  });

  it('keeps buckets under the prefix with a hash tag and an expiry', async () => {
    const { recorder, keyPrefix } = setup();
    const r = recorder();
    r.record(sample(1));
    await r.close();
    const keys = await suite.redis.keys(`${keyPrefix}:*`);
    expect(keys).toEqual([`${keyPrefix}:{signals}:${T0}`]);
    expect(await suite.redis.pexpiretime(keys[0]!)).toBe(T0 + BUCKET + 3600_000);
  });

  it('lists the versions that served requests in a window, shadow-only ones left out', async () => {
    const { clock, recorder, source } = setup();
    const a = recorder();
    a.record(sample(2));
    a.record({ ...sample(1), task: 'intent', model: 'intent-zh' });
    a.recordShadow({
      task: 'question-type',
      model: 'question-type-zh',
      version: 3,
      compared: 2,
      agreed: 2,
    });
    clock.set(T0 + BUCKET);
    a.record(sample(1, 'INTERNAL'));
    await a.close();
    expect(await source.versionsWithTraffic({ fromMs: T0, toMs: T0 + 2 * BUCKET })).toEqual([
      { task: 'intent', model: 'intent-zh', version: 1 },
      { task: 'question-type', model: 'question-type-zh', version: 1 },
      { task: 'question-type', model: 'question-type-zh', version: 2 },
    ]);
    expect(
      await source.versionsWithTraffic({ fromMs: T0 + BUCKET, toMs: T0 + 2 * BUCKET }),
    ).toEqual([{ task: 'question-type', model: 'question-type-zh', version: 1 }]);
  });

  it('refuses an empty window', async () => {
    const { source } = setup();
    await expect(source.read({ task: 't', fromMs: T0, toMs: T0 })).rejects.toThrow(/empty window/);
  });
});
