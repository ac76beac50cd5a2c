import type { Redis } from 'ioredis';
import { JobKeys } from './job.keys';
import { TERMINAL_STATES, isJobState } from './job.types';

/** Unfinished jobs pinned to one version of a model. */
export interface PinnedJobs {
  count: number;
  /** Ids of the pinned jobs (at most `limit` of them, for messages). */
  jobIds: string[];
}

/**
 * Answers "does any unfinished bulk job still run on this model version?" from the job store:
 * every tenant's active set, then each job's pinned (model, version) and state. Read-only, so
 * the coordinator can hold back retiring a version without touching the jobs.
 */
export class JobPinReader {
  private readonly keys: JobKeys;

  constructor(
    private readonly redis: Redis,
    keyPrefix: string,
  ) {
    this.keys = new JobKeys(keyPrefix);
  }

  async pinned(model: string, versions: readonly number[], limit = 5): Promise<PinnedJobs> {
    const out: PinnedJobs = { count: 0, jobIds: [] };
    if (versions.length === 0) return out;
    for (const id of await this.activeJobIds()) {
      const [m, v, state] = await this.redis.hmget(this.keys.meta(id), 'model', 'version', 'state');
      // A record that expired or ended still sits in the set until the quota path trims it.
      if (!isJobState(state) || TERMINAL_STATES.has(state)) continue;
      if (m !== model || !versions.includes(Number(v))) continue;
      out.count += 1;
      if (out.jobIds.length < limit) out.jobIds.push(id);
    }
    return out;
  }

  /** Members of every tenant's active-job set (SCAN, so a large keyspace is not blocked). */
  private async activeJobIds(): Promise<string[]> {
    const ids = new Set<string>();
    const pattern = this.keys.active('*');
    let cursor = '0';
    do {
      const [next, found] = await this.redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      for (const key of found) for (const id of await this.redis.smembers(key)) ids.add(id);
    } while (cursor !== '0');
    return [...ids].sort();
  }
}
