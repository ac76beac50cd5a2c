import { closeRedis, createRedis, type RedisClient } from '@mesh/config';
import { PlacementAudit } from './placement-audit';
import type { PlacementDecision } from './placement.types';
import { uniquePrefix } from '../../../test/support/redis-prefix';

const prefix = uniquePrefix(__filename);
let redis: RedisClient;

beforeAll(() => {
  redis = createRedis('commands', {
    url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    name: 'placement-audit-spec',
  });
});

afterAll(async () => {
  const stale = await redis.keys(`${prefix}*`);
  if (stale.length > 0) await redis.del(...stale);
  await closeRedis(redis);
});

const decision = (i: number): PlacementDecision => ({
  at: 1_000 + i,
  action: i % 2 === 0 ? 'load' : 'unload',
  model: `m-${i}`,
  version: 1,
  backend: 'host-a:8001',
  reason: i % 2 === 0 ? 'demand' : 'evict',
  mb: 40,
});

describe('PlacementAudit', () => {
  it('reads back the newest decisions first, as written', async () => {
    const audit = new PlacementAudit(redis, prefix);
    for (let i = 0; i < 5; i++) await audit.append(decision(i));
    const recent = await audit.recent(3);
    expect(recent).toEqual([decision(4), decision(3), decision(2)]);
  });

  it('reads every decision from a time on, oldest first', async () => {
    const audit = new PlacementAudit(redis, `${prefix}-since`);
    for (let i = 1; i <= 3; i++) await audit.append(decision(i));
    expect((await audit.since(0)).map((d) => d.model)).toEqual(['m-1', 'm-2', 'm-3']);
    // Stream ids start with the append's unix ms: nothing was appended in the far future.
    expect(await audit.since(Date.now() + 3_600_000)).toEqual([]);
  });

  it('skips an entry it cannot read instead of failing the others', async () => {
    const audit = new PlacementAudit(redis, `${prefix}-bad`);
    await redis.xadd(`${prefix}-bad:{placement}:audit`, '*', 'json', '{not json');
    await audit.append(decision(6));
    expect(await audit.recent(10)).toEqual([decision(6)]);
  });
});
