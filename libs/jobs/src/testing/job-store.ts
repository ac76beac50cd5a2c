import { closeRedis, createRedis, type RedisClient, type RedisEndpoint } from '@mesh/config';
import { JobChangeFeed } from '../job-change-feed';
import { JobRepository, type JobRepositoryOptions } from '../job.repository';

/** Where a spec's Redis is: the shared one by URL, or the endpoint of a server it started. */
export type SpecRedis =
  { url: string; endpoint?: undefined } | { endpoint: RedisEndpoint; url?: undefined };

/** Longer than any test: a feed wait that ends did so on a notice (or an abort), not the fallback. */
export const NEVER_MS = 3_600_000;

/** The job store's options for a spec: its key prefix, an hour's retention, and `more`. */
export function jobStoreOptions(
  prefix: string,
  more: Partial<JobRepositoryOptions> = {},
): JobRepositoryOptions {
  return { keyPrefix: prefix, retentionSeconds: 3600, ...more };
}

/** A commands connection named `name` and the job store on it, under `prefix`. */
export interface JobStore {
  redis: RedisClient;
  repo: JobRepository;
}

export function openJobStore(prefix: string, where: SpecRedis, name: string): JobStore {
  const redis = createRedis('commands', { ...where, name });
  return { redis, repo: new JobRepository(redis, jobStoreOptions(prefix)) };
}

/** A job store and a change feed on a subscriber connection of its own. */
export interface FeedRig extends JobStore {
  subscriber: RedisClient;
  /** Waits only for notices (fallback `NEVER_MS`) and unsubscribes at once (no linger). */
  feed: JobChangeFeed;
}

/**
 * Opens a job store and a change feed; the subscriber connection is named `<name>-changes`.
 * `quiet` ignores connection errors, for specs that kill or fail over the servers.
 */
export function openFeedRig(
  prefix: string,
  where: SpecRedis,
  name: string,
  { quiet = false } = {},
): FeedRig {
  const store = openJobStore(prefix, where, name);
  const subscriber = createRedis('subscriber', { ...where, name: `${name}-changes` });
  if (quiet) for (const client of [store.redis, subscriber]) client.on('error', () => undefined);
  return { ...store, subscriber, feed: new JobChangeFeed(subscriber, prefix, NEVER_MS, 0) };
}

/** Closes the feed and connections that were opened (none when set-up failed before them). */
export async function closeJobStore(rig: Partial<FeedRig> | undefined): Promise<void> {
  rig?.feed?.close();
  const clients = [rig?.subscriber, rig?.redis].filter((c): c is RedisClient => c !== undefined);
  await Promise.all(clients.map((c) => closeRedis(c)));
}
