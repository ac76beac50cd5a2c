import {
  checkRedisServer,
  closeRedis,
  createRedis,
  describeRedisEndpoint,
  RedisSettingsError,
  type RedisEndpoint,
} from '@mesh/config';
import type { Logger } from './logger';

/** Longest the boot check waits for Redis; an unreachable Redis is checked by readiness instead. */
const BOOT_CHECK_TIMEOUT_MS = 5000;

/**
 * Checks the primaries' settings before an app starts (`checkRedisServer`): throws
 * RedisSettingsError when one would evict the mesh's data, warns in one line when persistence
 * is off. A Redis that does not answer is not a reason to refuse the boot (the app's
 * connections wait for it and readiness reports it): the check is skipped with a warning.
 */
export async function checkRedisAtBoot(
  service: string,
  endpoint: RedisEndpoint,
  logger: Logger,
  timeoutMs = BOOT_CHECK_TIMEOUT_MS,
): Promise<void> {
  const probe = createRedis('probe', {
    endpoint,
    name: `${service}-boot-check`,
    commandTimeoutMs: timeoutMs,
  });
  // connect() rejects with "Connection is closed."; the error event says why (ECONNREFUSED...).
  let lastError: Error | undefined;
  probe.on('error', (err: Error) => (lastError = err));
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  let report: Awaited<ReturnType<typeof checkRedisServer>>;
  try {
    report = await Promise.race([probe.connect().then(() => checkRedisServer(probe)), late]);
  } catch (err: unknown) {
    const reason = lastError?.message ?? (err instanceof Error ? err.message : String(err));
    logger.warn(
      { event: 'redis-check-skipped', redis: describeRedisEndpoint(endpoint), reason },
      `redis settings not checked (${describeRedisEndpoint(endpoint)}: ${reason})`,
    );
    return;
  } finally {
    clearTimeout(timer);
    await closeRedis(probe);
  }
  if (report.problems.length > 0) throw new RedisSettingsError(service, report.problems);
  if (report.unpersisted.length > 0) {
    logger.warn(
      { event: 'redis-persistence-off', nodes: report.unpersisted },
      `redis persistence is off on ${report.unpersisted.join(', ')} (no AOF, no RDB save points): queued bulk jobs are lost if Redis restarts`,
    );
  }
}
