/**
 * The one place a test file gets its Redis key prefix from. Every prefix handed out is recorded
 * for the running test file; the test environment (test/support/redis-clean-environment.js)
 * scans each recorded prefix once the file's tests and hooks are done and fails the file if any
 * key is left under it. So a suite owns everything under its prefixes (BullMQ queues, streams,
 * heartbeats its processes write) and removes it, e.g. with `dropPrefix` in `afterAll`.
 */
import Redis from 'ioredis';

/** Where the shared Redis of the test run answers (a path like `/2` selects a DB). */
export const SHARED_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** What the environment reads back; kept on the test file's global, which it can see. */
export const REGISTRY_KEY = '__meshTestRedisPrefixes';

export interface RegisteredPrefix {
  prefix: string;
  /** Redis URL the keys live on; absent when they live on a server the suite starts and stops. */
  url?: string;
}

export interface PrefixOptions {
  /** Redis URL the keys live on; defaults to the shared one. */
  url?: string;
  /**
   * The keys live on a Redis the suite starts and stops itself (test/support/redis-servers.ts),
   * so nothing under the prefix can outlive the file and there is nothing left to scan.
   */
  ownServer?: boolean;
}

function registry(): RegisteredPrefix[] {
  const store = globalThis as unknown as Record<string, RegisteredPrefix[] | undefined>;
  return (store[REGISTRY_KEY] ??= []);
}

/**
 * A key prefix unique to one test file run, so suites can share one Redis in parallel. `label`
 * tells apart several prefixes of one file (`test-<file>-<label>-<pid>-<random>`).
 */
export function uniquePrefix(file: string, label?: string, options: PrefixOptions = {}): string {
  const base = file.replace(/^.*[\\/]/, '').replace(/\W+/g, '-');
  const tag = label === undefined ? '' : `-${label.replace(/\W+/g, '-')}`;
  const prefix = `test-${base}${tag}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  registry().push({
    prefix,
    ...(options.ownServer ? {} : { url: options.url ?? SHARED_REDIS_URL }),
  });
  return prefix;
}

/** `prefix*` as a SCAN MATCH pattern, the prefix's own glob characters taken literally. */
export function prefixPattern(prefix: string): string {
  return `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
}

/** Every key under `prefix`, by SCAN (never KEYS), on a client the caller owns. */
export async function keysUnder(redis: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', prefixPattern(prefix), 'COUNT', 1000);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}

/**
 * Removes every key under `prefix` on the shared Redis (or `url`), on a connection of its own so
 * it works after the suite closed its clients. Call it after the processes writing there stopped.
 */
export async function dropPrefix(prefix: string, url: string = SHARED_REDIS_URL): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const keys = await keysUnder(redis, prefix);
    for (let i = 0; i < keys.length; i += 500) await redis.unlink(...keys.slice(i, i + 500));
  } finally {
    redis.disconnect();
  }
}
