import type { RedisClient } from '@mesh/config';
import { PlacementKeys, parseVersionKey, versionKey } from './placement.keys';
import type { PlacementDemandEntry } from './placement.types';

/** A cold version asked for, with its model and version. */
export interface PendingDemand extends PlacementDemandEntry {
  model: string;
  version: number;
}

/**
 * Cold-start requests through Redis, so any router or worker can ask and the placer (the
 * coordinator's leader) answers: a request for a version resident nowhere records it here and
 * announces it; the placer loads it and clears the entry once it is READY somewhere.
 */
export class PlacementDemand {
  private readonly keys: PlacementKeys;

  constructor(
    private readonly redis: RedisClient,
    keyPrefix: string,
  ) {
    this.keys = new PlacementKeys(keyPrefix);
  }

  /** Records the ask (keeping the first ask's time) and announces it on the demand channel. */
  async request(model: string, version: number, by: string, now = Date.now()): Promise<void> {
    const field = versionKey(model, version);
    const prior = await this.redis.hget(this.keys.demand(), field);
    const firstAt = prior ? ((JSON.parse(prior) as PlacementDemandEntry).firstAt ?? now) : now;
    const entry: PlacementDemandEntry = { firstAt, lastAt: now, by };
    await this.redis.hset(this.keys.demand(), field, JSON.stringify(entry));
    await this.redis.publish(this.keys.demandChannel(), field);
  }

  async pending(): Promise<PendingDemand[]> {
    const raw = await this.redis.hgetall(this.keys.demand());
    const out: PendingDemand[] = [];
    for (const [field, json] of Object.entries(raw)) {
      const ref = parseVersionKey(field);
      if (!ref) continue;
      try {
        out.push({ ...ref, ...(JSON.parse(json) as PlacementDemandEntry) });
      } catch {
        // A malformed entry is dropped by the next clear; it never blocks the others.
      }
    }
    return out.sort((a, b) => a.firstAt - b.firstAt);
  }

  async clear(model: string, version: number): Promise<void> {
    await this.redis.hdel(this.keys.demand(), versionKey(model, version));
  }
}
