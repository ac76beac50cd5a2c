import { RedisSettingsError, createRedis, closeRedis } from '@mesh/config';
import { StandaloneRedis } from '../../../test/support/redis-servers';
import type { Logger } from './logger';
import { checkRedisAtBoot } from './redis-boot.check';

/** A logger that keeps what was warned. */
function recordingLogger(): { logger: Logger; warnings: { fields: object; msg: string }[] } {
  const warnings: { fields: object; msg: string }[] = [];
  const logger = {
    warn: (fields: object, msg: string) => warnings.push({ fields, msg }),
  } as unknown as Logger;
  return { logger, warnings };
}

let redis: StandaloneRedis;

beforeAll(async () => {
  redis = await StandaloneRedis.start();
});

afterAll(async () => {
  await redis?.stop();
});

async function setPolicy(policy: string): Promise<void> {
  const client = createRedis('commands', { endpoint: redis.endpoint, name: 'boot-check-setup' });
  try {
    await client.config('SET', 'maxmemory-policy', policy);
  } finally {
    await closeRedis(client);
  }
}

describe('checkRedisAtBoot', () => {
  it('warns in one line when persistence is off, and starts', async () => {
    const { logger, warnings } = recordingLogger();
    await checkRedisAtBoot('router', redis.endpoint, logger);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toBe(
      `redis persistence is off on 127.0.0.1:${redis.server.port} (no AOF, no RDB save points): queued bulk jobs are lost if Redis restarts`,
    );
    expect(warnings[0]?.msg).not.toContain('\n');
  });

  it('refuses to start on an evicting maxmemory-policy, naming the setting and the server', async () => {
    await setPolicy('allkeys-lru');
    try {
      const { logger } = recordingLogger();
      const failure = checkRedisAtBoot('batch-worker', redis.endpoint, logger);
      await expect(failure).rejects.toBeInstanceOf(RedisSettingsError);
      await expect(failure).rejects.toThrow(
        `batch-worker: refusing to start: Redis settings (docs/redis.md):\n  - 127.0.0.1:${redis.server.port}: maxmemory-policy is allkeys-lru, must be noeviction`,
      );
    } finally {
      await setPolicy('noeviction');
    }
  });

  it('skips the check with a warning when Redis does not answer', async () => {
    const { logger, warnings } = recordingLogger();
    await checkRedisAtBoot(
      'coordinator',
      { mode: 'standalone', url: 'redis://127.0.0.1:1', tls: false },
      logger,
      1000,
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toMatch(
      /^redis settings not checked \(standalone redis:\/\/127\.0\.0\.1:1: .*ECONNREFUSED/,
    );
  });
});
