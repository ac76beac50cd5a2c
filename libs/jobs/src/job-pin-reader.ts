import type { RedisClient } from '@mesh/config';
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
 * every job in the admin index, then each job's pinned (model, version) and state (one
 * pipelined read per 500 jobs). Read-only, so the coordinator can hold back retiring a version
 * without touching the jobs.
 */
export class JobPinReader {
  private readonly keys: JobKeys;

  constructor(
    private readonly redis: RedisClient,
    keyPrefix: string,
  ) {
    this.keys = new JobKeys(keyPrefix);
  }

  async pinned(model: string, versions: readonly number[], limit = 5): Promise<PinnedJobs> {
    const out: PinnedJobs = { count: 0, jobIds: [] };
    if (versions.length === 0) return out;
    for (const job of await this.unfinished()) {
      if (job.model !== model || !versions.includes(job.version)) continue;
      out.count += 1;
      if (out.jobIds.length < limit) out.jobIds.push(job.id);
    }
    return out;
  }

  /**
   * Every (model, version) an unfinished job is pinned to, once each, ordered by model and
   * version: the placer keeps these resident and never evicts them.
   */
  async allPinned(): Promise<{ model: string; version: number }[]> {
    const seen = new Map<string, { model: string; version: number }>();
    for (const { model, version } of await this.unfinished()) {
      seen.set(`${model}\t${version}`, { model, version });
    }
    return [...seen.values()].sort(
      (a, b) => a.model.localeCompare(b.model) || a.version - b.version,
    );
  }

  /** Every unfinished job of the admin index with its pinned model and version. */
  private async unfinished(): Promise<{ id: string; model: string; version: number }[]> {
    const ids = await this.redis.zrange(this.keys.all(), 0, -1);
    const out: { id: string; model: string; version: number }[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      const page = ids.slice(i, i + 500);
      // One HMGET per job, sent together: the jobs' `{job:<id>}` slots sit on different
      // Cluster primaries, which one pipeline may not span.
      const rows = await Promise.all(
        page.map((id) => this.redis.hmget(this.keys.meta(id), 'model', 'version', 'state')),
      );
      rows.forEach(([model, v, state], j) => {
        // Finished (or expired) jobs no longer run on their version.
        if (!isJobState(state) || TERMINAL_STATES.has(state)) return;
        const version = Number(v);
        if (!model || !Number.isInteger(version)) return;
        out.push({ id: page[j]!, model, version });
      });
    }
    return out;
  }
}
