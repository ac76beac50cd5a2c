/**
 * The signals lib's MULTIs and pipelines on a real Redis Cluster (3 primaries): a MULTI whose
 * keys span slots fails with CROSSSLOT, a pipeline spanning primaries with ioredis's "same slots
 * allocation group" error, so each call here passing means its keys share a hash tag
 * (`{routers}`, `{signals}`) or it addresses one key.
 */
import { closeRedis, createRedis, type RedisClient } from '@mesh/config';
import { RedisClusterHarness } from '../../../test/support/redis-servers';
import { RedisTrafficSignalSource } from './redis-traffic-signal-source';
import { RouterHeartbeatRepository } from './router-heartbeat.repository';
import { TrafficSignalRecorder } from './traffic-signal-recorder';
import { uniquePrefix } from '../../../test/support/redis-prefix';

const PREFIX = uniquePrefix(__filename, undefined, { ownServer: true });

let cluster: RedisClusterHarness;
let redis: RedisClient;

beforeAll(async () => {
  cluster = await RedisClusterHarness.start();
  redis = createRedis('commands', { endpoint: cluster.endpoint, name: 'int-signals-cluster' });
  redis.on('error', () => undefined);
});

afterAll(async () => {
  if (redis) await closeRedis(redis);
  await cluster?.stop();
});

describe('signals on a Redis Cluster', () => {
  it('publishes and reads router heartbeats under {routers}', async () => {
    const heartbeats = new RouterHeartbeatRepository(redis, { keyPrefix: PREFIX });
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
    const recorder = new TrafficSignalRecorder(redis, {
      keyPrefix: PREFIX,
      bucketMs: BUCKET,
      now: () => now,
    });
    const source = new RedisTrafficSignalSource(redis, { keyPrefix: PREFIX, bucketMs: BUCKET });
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
