import type { RedisClient } from '@mesh/config';
import { histogramQuantile, LATENCY_BOUNDS_MS } from './latency-histogram';
import {
  parseSignalField,
  SHADOW_AGREED,
  SHADOW_COMPARED,
  signalBucketKey,
  type SignalField,
} from './traffic-signal.keys';
import {
  versionErrors,
  type ShadowAgreement,
  type ShadowAgreementSource,
  type TrafficSignalQuery,
  type TrafficSignalSource,
  type TrafficVersionRef,
  type TrafficVersionsSource,
  type VersionSignals,
} from './traffic-signal.types';

/** Requests of one version over a window (every task and router), and when it was last used. */
export interface VersionRequests {
  model: string;
  version: number;
  requests: number;
  /** Start (unix ms) of the latest bucket in the window with requests of the version. */
  lastBucketAt: number;
}

export interface RedisTrafficSignalSourceOptions {
  /** `REDIS_KEY_PREFIX`. */
  keyPrefix: string;
  /** Bucket length the routers write with (TrafficSignalRecorder's `bucketMs`). Default 5 s. */
  bucketMs?: number;
}

/**
 * Reads the routers' signal buckets for a window. A bucket counts when its start lies in
 * [fromMs, toMs) rounded down to the bucket length, so the window's resolution is one bucket;
 * buckets are chosen by their own timestamps, so a caller with an injected clock reads exactly
 * the buckets it means.
 */
export class RedisTrafficSignalSource
  implements TrafficSignalSource, ShadowAgreementSource, TrafficVersionsSource
{
  private readonly bucketMs: number;

  constructor(
    private readonly redis: RedisClient,
    private readonly options: RedisTrafficSignalSourceOptions,
  ) {
    this.bucketMs = options.bucketMs ?? 5000;
  }

  async read(q: TrafficSignalQuery): Promise<VersionSignals> {
    let requests = 0;
    const errorsByClass: Record<string, number> = {};
    const latency = new Array<number>(LATENCY_BOUNDS_MS.length).fill(0);
    for (const { metric, n } of await this.fields(q)) {
      if (metric === 'r') requests += n;
      else if (metric.startsWith('e:')) {
        const code = metric.slice(2);
        errorsByClass[code] = (errorsByClass[code] ?? 0) + n;
      } else if (metric.startsWith('l:')) {
        const i = Number(metric.slice(2));
        if (i >= 0 && i < latency.length) latency[i]! += n;
      }
    }
    const errors = versionErrors(errorsByClass);
    return {
      requests,
      errors,
      errorsByClass,
      errorRate: requests > 0 ? errors / requests : 0,
      ratePerSecond: requests / ((q.toMs - q.fromMs) / 1000),
      p50Ms: histogramQuantile(0.5, latency),
      p99Ms: histogramQuantile(0.99, latency),
    };
  }

  async readShadow(q: TrafficSignalQuery): Promise<ShadowAgreement> {
    let compared = 0;
    let agreed = 0;
    for (const { metric, n } of await this.fields(q)) {
      if (metric === SHADOW_COMPARED) compared += n;
      else if (metric === SHADOW_AGREED) agreed += n;
    }
    return { compared, agreed, agreement: compared > 0 ? agreed / compared : null };
  }

  /** Distinct versions with requests in the window, ordered by task, model and version. */
  async versionsWithTraffic(window: {
    fromMs: number;
    toMs: number;
  }): Promise<TrafficVersionRef[]> {
    const seen = new Map<string, TrafficVersionRef>();
    for (const f of await this.window(window.fromMs, window.toMs, (f) => f.metric === 'r')) {
      if (!(f.n > 0)) continue;
      const { task, model, version } = f;
      seen.set(`${task}\t${model}\t${version}`, { task, model, version });
    }
    return [...seen.values()].sort(
      (a, b) =>
        a.task.localeCompare(b.task) || a.model.localeCompare(b.model) || a.version - b.version,
    );
  }

  /** The window's fields that match the query, with their counts. */
  private async fields(q: TrafficSignalQuery): Promise<{ metric: string; n: number }[]> {
    return this.window(
      q.fromMs,
      q.toMs,
      (f) =>
        f.task === q.task &&
        (q.model === undefined || f.model === q.model) &&
        (q.version === undefined || f.version === q.version),
    );
  }

  /**
   * Requests per (model, version) in the window, summed over tasks and routers, with the start
   * of the latest bucket that had any: the placer's request rate and last use of a version.
   * Ordered by model and version.
   */
  async requestsByVersion(window: { fromMs: number; toMs: number }): Promise<VersionRequests[]> {
    const seen = new Map<string, VersionRequests>();
    for (const f of await this.window(window.fromMs, window.toMs, (f) => f.metric === 'r')) {
      if (!(f.n > 0)) continue;
      const key = `${f.model}\t${f.version}`;
      const prior = seen.get(key);
      if (prior) {
        prior.requests += f.n;
        prior.lastBucketAt = Math.max(prior.lastBucketAt, f.bucketAt);
      } else {
        seen.set(key, {
          model: f.model,
          version: f.version,
          requests: f.n,
          lastBucketAt: f.bucketAt,
        });
      }
    }
    return [...seen.values()].sort(
      (a, b) => a.model.localeCompare(b.model) || a.version - b.version,
    );
  }

  /**
   * The fields of the window's buckets that `keep` accepts, parsed, with their counts and the
   * start of the bucket they came from.
   */
  private async window(
    fromMs: number,
    toMs: number,
    keep: (f: SignalField) => boolean,
  ): Promise<(SignalField & { n: number; bucketAt: number })[]> {
    if (!(toMs > fromMs)) throw new RangeError(`empty window: toMs ${toMs} ≤ fromMs ${fromMs}`);
    const pipeline = this.redis.pipeline();
    const starts: number[] = [];
    const first = Math.floor(fromMs / this.bucketMs) * this.bucketMs;
    for (let start = first; start < toMs; start += this.bucketMs) {
      starts.push(start);
      pipeline.hgetall(signalBucketKey(this.options.keyPrefix, start));
    }
    const out: (SignalField & { n: number; bucketAt: number })[] = [];
    for (const [i, [err, hash]] of ((await pipeline.exec()) ?? []).entries()) {
      if (err) throw err;
      for (const [field, value] of Object.entries(hash as Record<string, string>)) {
        const f = parseSignalField(field);
        if (f && keep(f)) out.push({ ...f, n: Number(value), bucketAt: starts[i]! });
      }
    }
    return out;
  }
}
