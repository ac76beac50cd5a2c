import type { RedisClient } from '@mesh/config';
import { latencyBucket } from './latency-histogram';
import {
  SHADOW_AGREED,
  SHADOW_COMPARED,
  signalBucketKey,
  signalField,
} from './traffic-signal.keys';

export interface TrafficSignalRecorderOptions {
  /** `REDIS_KEY_PREFIX`. */
  keyPrefix: string;
  /** Length of one time bucket; readers must use the same. Default 5 s. */
  bucketMs?: number;
  /** How long a bucket is kept in Redis. Default 1 h. */
  retentionSeconds?: number;
  /** How often the in-memory counts go to Redis. Default 1 s. */
  flushIntervalMs?: number;
  now?: () => number;
  /** Called when a flush fails (its counts are dropped, never double-counted). */
  onFlushError?: (err: unknown) => void;
  /**
   * A hash the flush also writes each version's last request time into (`model@version` →
   * unix ms), at the flush's resolution rather than a bucket's: the placer's least recently used
   * order (`PlacementKeys.lastUse`). Unset: not written.
   */
  lastUseKey?: string;
}

/** One finished request that reached a version. */
export interface TrafficSample {
  task: string;
  model: string;
  version: number;
  /** `ok` or the error code. */
  outcome: string;
  latencyMs: number;
}

/** Shadow copies of one request compared with the primary's answers (classification only). */
export interface ShadowSample {
  task: string;
  model: string;
  /** The shadow version. */
  version: number;
  compared: number;
  agreed: number;
}

/**
 * Aggregates per-(task, model, version) request counts, error counts by class and a latency
 * histogram in memory, keyed by the time bucket the request finished in, and flushes them to
 * Redis on a timer with HINCRBY: recording is a few map updates, the request path never waits
 * on Redis, and several routers add into the same buckets.
 */
export class TrafficSignalRecorder {
  readonly bucketMs: number;
  private readonly retentionMs: number;
  private readonly flushIntervalMs: number;
  private readonly now: () => number;
  private pending = new Map<number, Map<string, number>>();
  /** `model@version` → unix ms of its latest request since the last flush. */
  private lastUse = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;

  constructor(
    private readonly redis: RedisClient,
    private readonly options: TrafficSignalRecorderOptions,
  ) {
    this.bucketMs = options.bucketMs ?? 5000;
    this.retentionMs = (options.retentionSeconds ?? 3600) * 1000;
    this.flushIntervalMs = options.flushIntervalMs ?? 1000;
    this.now = options.now ?? Date.now;
  }

  record(s: TrafficSample): void {
    const now = this.now();
    const bucket = this.bucketAt(now);
    if (this.options.lastUseKey) this.lastUse.set(`${s.model}@${s.version}`, now);
    add(bucket, signalField(s.task, s.model, s.version, 'r'));
    if (s.outcome === 'ok') {
      add(bucket, signalField(s.task, s.model, s.version, `l:${latencyBucket(s.latencyMs)}`));
    } else {
      add(bucket, signalField(s.task, s.model, s.version, `e:${s.outcome}`));
    }
  }

  recordShadow(s: ShadowSample): void {
    if (s.compared <= 0) return;
    const bucket = this.bucketAt(this.now());
    add(bucket, signalField(s.task, s.model, s.version, SHADOW_COMPARED), s.compared);
    add(bucket, signalField(s.task, s.model, s.version, SHADOW_AGREED), s.agreed);
  }

  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.flushIntervalMs);
    this.timer.unref();
  }

  /** Stops the timer and writes what is still in memory. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  /** Writes the counts gathered so far (flushes never overlap; a second call joins the first). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.pending.size === 0 && this.lastUse.size === 0) return;
    const batch = this.pending;
    const lastUse = this.lastUse;
    this.pending = new Map();
    this.lastUse = new Map();
    this.flushing = this.write(batch, lastUse)
      .catch((err: unknown) => this.options.onFlushError?.(err))
      .finally(() => {
        this.flushing = undefined;
      });
    await this.flushing;
  }

  private bucketAt(now: number): Map<string, number> {
    const start = Math.floor(now / this.bucketMs) * this.bucketMs;
    let bucket = this.pending.get(start);
    if (!bucket) {
      bucket = new Map();
      this.pending.set(start, bucket);
    }
    return bucket;
  }

  private async write(
    batch: Map<number, Map<string, number>>,
    lastUse: Map<string, number>,
  ): Promise<void> {
    if (this.options.lastUseKey && lastUse.size > 0) {
      // Its own slot ({placement}), so not in the buckets' transaction.
      await this.redis.hset(this.options.lastUseKey, Object.fromEntries(lastUse));
    }
    if (batch.size === 0) return;
    const tx = this.redis.multi();
    for (const [start, fields] of batch) {
      const key = signalBucketKey(this.options.keyPrefix, start);
      for (const [field, n] of fields) tx.hincrby(key, field, n);
      tx.pexpireat(key, start + this.bucketMs + this.retentionMs);
    }
    const results = await tx.exec();
    const failed = results?.find(([err]) => err !== null)?.[0];
    if (failed) throw failed;
  }
}

function add(bucket: Map<string, number>, field: string, n = 1): void {
  bucket.set(field, (bucket.get(field) ?? 0) + n);
}
