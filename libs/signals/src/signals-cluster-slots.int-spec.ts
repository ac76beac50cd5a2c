/**
 * The signals lib's MULTIs and pipelines on a real Redis Cluster (3 primaries): a MULTI whose
 * keys span slots fails with CROSSSLOT, a pipeline spanning primaries with ioredis's "same slots
 * allocation group" error, so each call here passing means its keys share a hash tag
 * (`{routers}`, `{signals}`) or it addresses one key.
 */
import { RedisTrafficSignalSource } from './redis-traffic-signal-source';
import { RouterHeartbeatRepository } from './router-heartbeat.repository';
import { TrafficSignalRecorder } from './traffic-signal-recorder';
import { suiteCluster } from '../../../test/support/suite-redis';

const cluster = suiteCluster(__filename, 'int-signals-cluster');
const PREFIX = cluster.prefix;

beforeAll(() => cluster.start());
afterAll(() => cluster.close());

describe('signals on a Redis Cluster', () => {
  it('publishes and reads router heartbeats under {routers}', async () => {
    const heartbeats = new RouterHeartbeatRepository(cluster.redis, { keyPrefix: PREFIX });
    for (const id of ['router-a', 'router-b', 'router-c']) {
      await heartbeats.publish(
        { routerId: id, epoch: 3, at: Date.now(), routable: [], unroutable: [], inFlight: [] },
        30,
      );
    }
    expect((await heartbeats.readLive()).map((h) => h.routerId)).toEqual([
      'router-a',
      'router-b',
      'router-c',
    ]);
  });

  it('records traffic signals in buckets and reads a window of them back', async () => {
    const BUCKET = 5000;
    const T0 = 1_800_000_000_000;
    let now = T0;
    const recorder = new TrafficSignalRecorder(cluster.redis, {
      keyPrefix: PREFIX,
      bucketMs: BUCKET,
      now: () => now,
    });
    const source = new RedisTrafficSignalSource(cluster.redis, {
      keyPrefix: PREFIX,
      bucketMs: BUCKET,
    });
    const sample = { task: 'intent', model: 'intent-zh', version: 3, outcome: 'ok', latencyMs: 4 };
    for (let i = 0; i < 6; i++) {
      recorder.record(sample);
      now += BUCKET;
    }
    await recorder.close();
    const read = await source.read({ task: 'intent', fromMs: T0, toMs: T0 + 6 * BUCKET });
    expect(read.requests).toBe(6);
  });
});
