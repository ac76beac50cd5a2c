import { closeRedis, createRedis, type RedisClient } from '@mesh/config';
import { LoadedVersionsFeed } from '@mesh/inference';
import { PlacementDemand, PlacementKeys } from '@mesh/placement';
import { pollUntil } from '../../../../test/support/poll';
import { ColdStartWaiter } from './cold-start-waiter';
import { uniquePrefix } from '../../../../test/support/redis-prefix';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = uniquePrefix(__filename);
const clients: RedisClient[] = [];

function connect(role: 'commands' | 'subscriber'): RedisClient {
  const client = createRedis(role, { url: REDIS_URL, name: `test-cold-start-${role}` });
  clients.push(client);
  return client;
}

afterAll(async () => {
  const redis = connect('commands');
  const keys = new PlacementKeys(PREFIX);
  await redis.del(keys.demand());
  await Promise.all(clients.map((c) => closeRedis(c)));
});

/**
 * The round trip a cold request makes through Redis: the router's demand reaches a placer on
 * the demand channel, the placer "loads" the version, announces it on the loaded channel and
 * clears the demand, and the waiting request resolves on that notice (its own discovery
 * period is far longer than the test, so only the notice can end the wait).
 */
describe('cold starts through Redis (demand and loaded channels)', () => {
  it('one demand for concurrent requests; the loaded notice ends their wait', async () => {
    const keys = new PlacementKeys(PREFIX);
    const demand = new PlacementDemand(connect('commands'), PREFIX);
    const served = new Set<string>();
    let refreshes = 0;

    // The placer's side: hears demands, loads, announces, clears.
    const placerSub = connect('subscriber');
    const placerRedis = connect('commands');
    const heard: string[] = [];
    placerSub.on('message', (channel: string, field: string) => {
      if (channel === keys.demandChannel()) heard.push(field);
    });
    await placerSub.subscribe(keys.demandChannel());

    // The router's side: a waiter fed by the loaded channel.
    const waiter = new ColdStartWaiter(
      {
        isReady: (m, v) => served.has(`${m}@${v}`),
        refresh: async () => {
          refreshes += 1;
        },
        demand: (m, v) => demand.request(m, v, 'router-a'),
        observe: () => undefined,
        warn: () => undefined,
      },
      { waitMs: 60_000, refreshEveryMs: 60_000, askAgainEveryMs: 60_000 },
    );
    const feed = new LoadedVersionsFeed(connect('subscriber'), PREFIX);
    feed.onLoaded((m, v) => waiter.loaded(m, v));
    await feed.start();

    const waits = [1, 2, 3].map(() => waiter.wait('sentiment-en', 3));
    await pollUntil(() => (heard.length > 0 ? true : undefined), { what: 'the demand notice' });
    const pending = await demand.pending();
    expect(pending).toEqual([
      expect.objectContaining({ model: 'sentiment-en', version: 3, by: 'router-a' }),
    ]);
    expect(heard).toEqual(['sentiment-en@3']);

    served.add('sentiment-en@3');
    await placerRedis.publish(keys.loadedChannel(), 'sentiment-en@3@127.0.0.1:8001');
    await demand.clear('sentiment-en', 3);
    await Promise.all(waits);
    expect(refreshes).toBe(1);
    expect(waiter.pending()).toEqual([]);
    expect(await demand.pending()).toEqual([]);
    await feed.close();
  });

  it('passes the backend and model names holding @ through the loaded notice', async () => {
    const keys = new PlacementKeys(PREFIX);
    const feed = new LoadedVersionsFeed(connect('subscriber'), PREFIX);
    const seen: string[] = [];
    feed.onLoaded((m, v, b) => seen.push(`${m}|${v}|${b}`));
    await feed.start();
    const pub = connect('commands');
    await pub.publish(keys.loadedChannel(), 'not-a-notice');
    await pub.publish(keys.loadedChannel(), 'org@m@2@10.0.0.5:8001');
    await pollUntil(() => (seen.length > 0 ? true : undefined), { what: 'the loaded notice' });
    expect(seen).toEqual(['org@m|2|10.0.0.5:8001']);
    await feed.close();
  });
});
