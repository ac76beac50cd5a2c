import type { Redis } from 'ioredis';
import { histogramQuantile, LATENCY_BOUNDS_MS } from './latency-histogram';
import {
  parseSignalField,
  SHADOW_AGREED,
  SHADOW_COMPARED,
  signalBucketKey,
} from './traffic-signal.keys';
import {
  versionErrors,
  type ShadowAgreement,
  type ShadowAgreementSource,
  type TrafficSignalQuery,
  type TrafficSignalSource,
  type VersionSignals,
} from './traffic-signal.types';

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
export class RedisTrafficSignalSource implements TrafficSignalSource, ShadowAgreementSource {
  private readonly bucketMs: number;

  constructor(
    private readonly redis: Redis,
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

  /** The window's fields that match the query, with their counts. */
  private async fields(q: TrafficSignalQuery): Promise<{ metric: string; n: number }[]> {
    if (!(q.toMs > q.fromMs))
      throw new RangeError(`empty window: toMs ${q.toMs} ≤ fromMs ${q.fromMs}`);
    const pipeline = this.redis.pipeline();
    const first = Math.floor(q.fromMs / this.bucketMs) * this.bucketMs;
    for (let start = first; start < q.toMs; start += this.bucketMs) {
      pipeline.hgetall(signalBucketKey(this.options.keyPrefix, start));
    }
    const out: { metric: string; n: number }[] = [];
    for (const [err, hash] of (await pipeline.exec()) ?? []) {
      if (err) throw err;
      for (const [field, value] of Object.entries(hash as Record<string, string>)) {
        const f = parseSignalField(field);
        if (!f || f.task !== q.task) continue;
        if (q.model !== undefined && f.model !== q.model) continue;
        if (q.version !== undefined && f.version !== q.version) continue;
        out.push({ metric: f.metric, n: Number(value) });
      }
    }
    return out;
  }
}
