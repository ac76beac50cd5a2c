import { RedisTrafficSignalSource } from './redis-traffic-signal-source';
import { TrafficSignalRecorder } from './traffic-signal-recorder';
import { suiteRedis } from '../../../test/support/suite-redis';

const suite = suiteRedis(__filename, 'test-signal-versions');
const PREFIX = suite.prefix;
const BUCKET = 5000;
// A bucket boundary far from "now", so buckets are chosen by their own timestamps only.
const T0 = 1_800_000_000_000;

afterAll(() => suite.close());

describe('RedisTrafficSignalSource.requestsByVersion (real Redis)', () => {
  it('sums requests per version over tasks and buckets, with the latest bucket used', async () => {
    let now = T0;
    const recorder = new TrafficSignalRecorder(suite.redis, {
      keyPrefix: PREFIX,
      bucketMs: BUCKET,
      now: () => now,
    });
    const sample = (task: string, model: string, version: number, outcome = 'ok') => ({
      task,
      model,
      version,
      outcome,
      latencyMs: 3,
    });
    recorder.record(sample('question-type', 'qt', 1));
    recorder.record(sample('intent', 'qt', 1, 'INTERNAL'));
    recorder.record(sample('question-type', 'qt', 2));
    now = T0 + 2 * BUCKET;
    recorder.record(sample('question-type', 'qt', 1));
    recorder.recordShadow({
      task: 'question-type',
      model: 'qt',
      version: 3,
      compared: 4,
      agreed: 4,
    });
    now = T0 + 4 * BUCKET; // outside the window read below
    recorder.record(sample('question-type', 'qt', 2));
    await recorder.close();

    const source = new RedisTrafficSignalSource(suite.redis, {
      keyPrefix: PREFIX,
      bucketMs: BUCKET,
    });
    expect(await source.requestsByVersion({ fromMs: T0, toMs: T0 + 3 * BUCKET })).toEqual([
      { model: 'qt', version: 1, requests: 3, lastBucketAt: T0 + 2 * BUCKET },
      { model: 'qt', version: 2, requests: 1, lastBucketAt: T0 },
    ]);
    expect(
      await source.requestsByVersion({ fromMs: T0 + 5 * BUCKET, toMs: T0 + 6 * BUCKET }),
    ).toEqual([]);
  });
});

describe('TrafficSignalRecorder last use (real Redis)', () => {
  it("writes each version's latest request time at the flush, not the bucket's start", async () => {
    let now = T0 + 1234;
    const key = `${PREFIX}:{placement}:last-use`;
    const recorder = new TrafficSignalRecorder(suite.redis, {
      keyPrefix: PREFIX,
      bucketMs: BUCKET,
      now: () => now,
      lastUseKey: key,
    });
    const sample = (version: number) => ({
      task: 't',
      model: 'lu',
      version,
      outcome: 'ok',
      latencyMs: 3,
    });
    recorder.record(sample(1));
    now += 700;
    recorder.record(sample(1));
    recorder.record(sample(2));
    await recorder.flush();
    expect(await suite.redis.hgetall(key)).toEqual({
      'lu@1': String(T0 + 1934),
      'lu@2': String(T0 + 1934),
    });
    now += 5_000;
    recorder.record(sample(2));
    await recorder.close();
    expect(await suite.redis.hget(key, 'lu@2')).toBe(String(T0 + 6934));
    expect(await suite.redis.hget(key, 'lu@1')).toBe(String(T0 + 1934));
  });
});
