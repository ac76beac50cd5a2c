import type { RedisClient } from '@mesh/config';
import {
  PlacementAudit,
  PlacementKeys,
  versionKey,
  type BackendLedger,
  type PlacementDecision,
} from '@mesh/placement';

/**
 * The placer's Redis state under `{placement}`: the per-backend ledger (so a new leader resumes
 * the residency clocks), measured footprints, last use, the audit stream and the "loaded"
 * announcements. Only the leader's placer writes here.
 */
export class PlacementRepository {
  readonly keys: PlacementKeys;
  private readonly auditStream: PlacementAudit;

  constructor(
    private readonly redis: RedisClient,
    keyPrefix: string,
  ) {
    this.keys = new PlacementKeys(keyPrefix);
    this.auditStream = new PlacementAudit(redis, keyPrefix);
  }

  async ledgers(): Promise<Map<string, BackendLedger>> {
    const raw = await this.redis.hgetall(this.keys.ledger());
    const out = new Map<string, BackendLedger>();
    for (const [backend, json] of Object.entries(raw)) {
      try {
        out.set(backend, JSON.parse(json) as BackendLedger);
      } catch {
        // Unreadable: the backend's residency clocks restart from this pass.
      }
    }
    return out;
  }

  async writeLedgers(ledgers: readonly BackendLedger[]): Promise<void> {
    if (ledgers.length === 0) return;
    await this.redis.hset(
      this.keys.ledger(),
      Object.fromEntries(ledgers.map((l) => [l.backend, JSON.stringify(l)])),
    );
  }

  /** `model@version` → MB a backend measured. */
  async footprints(): Promise<Map<string, number>> {
    return numbers(await this.redis.hgetall(this.keys.footprints()));
  }

  async setFootprint(model: string, version: number, mb: number): Promise<void> {
    await this.redis.hset(this.keys.footprints(), versionKey(model, version), String(mb));
  }

  /** `model@version` → unix ms of its last request the placer saw. */
  async lastUse(): Promise<Map<string, number>> {
    return numbers(await this.redis.hgetall(this.keys.lastUse()));
  }

  async recordLastUse(seen: ReadonlyMap<string, number>): Promise<void> {
    if (seen.size === 0) return;
    const fields = Object.fromEntries([...seen].map(([k, at]) => [k, String(at)]));
    await this.redis.hset(this.keys.lastUse(), fields);
  }

  /** Appends the decision to the audit stream (one `json` field, capped; `PlacementAudit`). */
  async audit(d: PlacementDecision): Promise<void> {
    await this.auditStream.append(d);
  }

  /** The newest `count` audited decisions, newest first. */
  recentDecisions(count: number): Promise<PlacementDecision[]> {
    return this.auditStream.recent(count);
  }

  async announceLoaded(model: string, version: number, backend: string): Promise<void> {
    await this.redis.publish(this.keys.loadedChannel(), `${versionKey(model, version)}@${backend}`);
  }
}

function numbers(raw: Record<string, string>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of Object.entries(raw)) {
    const n = Number(v);
    if (Number.isFinite(n)) out.set(k, n);
  }
  return out;
}
