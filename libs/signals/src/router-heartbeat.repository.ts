import type { RedisClient } from '@mesh/config';
import { z } from 'zod';
import type { CanAllRouteResult, RouteBlocker, RouterHeartbeat } from './router-heartbeat.types';

export interface RouterHeartbeatRepositoryOptions {
  /** `REDIS_KEY_PREFIX`. */
  keyPrefix: string;
}

const ref = { model: z.string(), version: z.number().int() };
const heartbeatSchema = z.object({
  routerId: z.string().min(1),
  epoch: z.number().int(),
  at: z.number(),
  routable: z.array(z.object(ref)),
  unroutable: z.array(z.object({ ...ref, reason: z.string() })),
  inFlight: z.array(z.object({ ...ref, count: z.number().int().nonnegative() })),
});

/**
 * Router heartbeats in Redis: one key per router, expiring with its TTL (so a dead router
 * drops out by itself), plus a sorted set indexing the keys by expiry so readers need no
 * SCAN. All keys share the `{routers}` hash tag: one MGET reads every heartbeat on Redis
 * Cluster too.
 */
export class RouterHeartbeatRepository {
  private readonly prefix: string;
  private readonly index: string;

  constructor(
    private readonly redis: RedisClient,
    options: RouterHeartbeatRepositoryOptions,
  ) {
    this.prefix = `${options.keyPrefix}:{routers}:hb:`;
    this.index = `${options.keyPrefix}:{routers}:index`;
  }

  async publish(hb: RouterHeartbeat, ttlSeconds: number): Promise<void> {
    const ttlMs = Math.max(1, Math.round(ttlSeconds * 1000));
    await this.redis
      .multi()
      .set(this.prefix + hb.routerId, JSON.stringify(hb), 'PX', ttlMs)
      .zadd(this.index, hb.at + ttlMs, hb.routerId)
      .exec();
  }

  /** Removes a router's heartbeat at once (clean shutdown), instead of waiting for its TTL. */
  async remove(routerId: string): Promise<void> {
    await this.redis
      .multi()
      .del(this.prefix + routerId)
      .zrem(this.index, routerId)
      .exec();
  }

  /** Heartbeats whose key has not expired, sorted by router id. */
  async readLive(): Promise<RouterHeartbeat[]> {
    const ids = await this.redis.zrange(this.index, 0, -1);
    if (ids.length === 0) return [];
    const values = await this.redis.mget(ids.map((id) => this.prefix + id));
    const live: RouterHeartbeat[] = [];
    const gone: string[] = [];
    values.forEach((json, i) => {
      const parsed = json ? heartbeatSchema.safeParse(safeJson(json)) : undefined;
      if (parsed?.success) live.push(parsed.data);
      else gone.push(ids[i]!);
    });
    // Expired (or unreadable) entries leave the index so it does not grow with dead routers.
    if (gone.length > 0) await this.redis.zrem(this.index, ...gone);
    return live.sort((a, b) => a.routerId.localeCompare(b.routerId));
  }

  /**
   * Whether every live router has applied `minEpoch` (or later) and lists (model, version) as
   * routable; otherwise which routers block and why. No live router → not ok.
   */
  async canAllRoute(model: string, version: number, minEpoch: number): Promise<CanAllRouteResult> {
    const live = await this.readLive();
    const blocking: RouteBlocker[] = [];
    for (const hb of live) {
      const reason = routeBlockReason(hb, model, version, minEpoch);
      if (reason !== undefined) blocking.push({ routerId: hb.routerId, reason });
    }
    return { ok: live.length > 0 && blocking.length === 0, routers: live.length, blocking };
  }
}

/** Why one router cannot route (model, version) at `minEpoch` or later; undefined when it can. */
export function routeBlockReason(
  hb: RouterHeartbeat,
  model: string,
  version: number,
  minEpoch: number,
): string | undefined {
  if (hb.epoch < minEpoch) return `router is at epoch ${hb.epoch}, below ${minEpoch}`;
  if (hb.routable.some((r) => r.model === model && r.version === version)) return undefined;
  const known = hb.unroutable.find((r) => r.model === model && r.version === version);
  return known ? known.reason : `router does not know ${model} v${version}`;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
