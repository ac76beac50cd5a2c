import { pollUntil } from '../../../test/support/poll';
import { RouterHeartbeatRepository } from './router-heartbeat.repository';
import type { RouterHeartbeat } from './router-heartbeat.types';
import { suiteRedis } from '../../../test/support/suite-redis';

const suite = suiteRedis(__filename, 'test-router-heartbeat.repository');
const FILE_PREFIX = suite.prefix;
let counter = 0;

function repo(): RouterHeartbeatRepository {
  counter += 1;
  return new RouterHeartbeatRepository(suite.redis, { keyPrefix: `${FILE_PREFIX}:${counter}` });
}

function hb(
  routerId: string,
  epoch: number,
  extra: Partial<RouterHeartbeat> = {},
): RouterHeartbeat {
  return {
    routerId,
    epoch,
    at: Date.now(),
    routable: [{ model: 'question-type-zh', version: 1 }],
    unroutable: [{ model: 'question-type-zh', version: 2, reason: 'no backend reports it READY' }],
    inFlight: [],
    ...extra,
  };
}

afterAll(() => suite.close());

describe('RouterHeartbeatRepository (real Redis)', () => {
  it('reads back every live heartbeat, sorted by router id, under one hash tag', async () => {
    const r = repo();
    await r.publish(hb('router-b', 4, { inFlight: [{ model: 'm', version: 1, count: 2 }] }), 30);
    await r.publish(hb('router-a', 3), 30);
    const live = await r.readLive();
    expect(live.map((h) => [h.routerId, h.epoch])).toEqual([
      ['router-a', 3],
      ['router-b', 4],
    ]);
    expect(live[1]!.inFlight).toEqual([{ model: 'm', version: 1, count: 2 }]);
    const keys = await suite.redis.keys(`${FILE_PREFIX}:${counter}:*`);
    expect(keys.every((k) => k.includes(':{routers}:'))).toBe(true);
  });

  it('a heartbeat that is not renewed drops out after its TTL; a renewed one stays', async () => {
    const r = repo();
    await r.publish(hb('stays', 1), 60);
    await r.publish(hb('goes', 1), 0.3);
    await pollUntil(async () => ((await r.readLive()).length === 1 ? true : undefined), {
      what: 'the expired heartbeat to drop out',
    });
    expect((await r.readLive()).map((h) => h.routerId)).toEqual(['stays']);
    // The dead router also left the index.
    expect(await suite.redis.zrange(`${FILE_PREFIX}:${counter}:{routers}:index`, 0, -1)).toEqual([
      'stays',
    ]);
  });

  it('remove() takes a router out at once', async () => {
    const r = repo();
    await r.publish(hb('a', 1), 60);
    await r.publish(hb('b', 1), 60);
    await r.remove('a');
    expect((await r.readLive()).map((h) => h.routerId)).toEqual(['b']);
  });

  it('canAllRoute is ok only when every live router routes the version at the epoch', async () => {
    const r = repo();
    await r.publish(hb('a', 7), 60);
    await r.publish(hb('b', 7), 60);
    expect(await r.canAllRoute('question-type-zh', 1, 7)).toEqual({
      ok: true,
      routers: 2,
      blocking: [],
    });

    await r.publish(hb('b', 6), 60);
    expect(await r.canAllRoute('question-type-zh', 1, 7)).toEqual({
      ok: false,
      routers: 2,
      blocking: [{ routerId: 'b', reason: 'router is at epoch 6, below 7' }],
    });

    const v2 = await r.canAllRoute('question-type-zh', 2, 1);
    expect(v2.ok).toBe(false);
    expect(v2.blocking).toEqual([
      { routerId: 'a', reason: 'no backend reports it READY' },
      { routerId: 'b', reason: 'no backend reports it READY' },
    ]);

    const unknown = await r.canAllRoute('intent-zh', 9, 1);
    expect(unknown.blocking.map((b) => b.reason)).toEqual([
      'router does not know intent-zh v9',
      'router does not know intent-zh v9',
    ]);
  });

  it('with no live router nothing can be routed everywhere', async () => {
    expect(await repo().canAllRoute('question-type-zh', 1, 0)).toEqual({
      ok: false,
      routers: 0,
      blocking: [],
    });
  });

  it('skips an unreadable entry instead of failing the read', async () => {
    const r = repo();
    await r.publish(hb('good', 1), 60);
    await suite.redis.set(`${FILE_PREFIX}:${counter}:{routers}:hb:bad`, '{not json', 'EX', 60);
    await suite.redis.zadd(`${FILE_PREFIX}:${counter}:{routers}:index`, Date.now() + 60_000, 'bad');
    expect((await r.readLive()).map((h) => h.routerId)).toEqual(['good']);
  });
});
