import type { RedisClient } from '@mesh/config';
import {
  PlacementKeys,
  versionKey,
  type BackendLedger,
  type PlacementDecision,
} from '@mesh/placement';

/** Audit entries kept (approximately: `MAXLEN ~` trims whole stream nodes). */
const AUDIT_MAX = 10_000;

/**
 * The placer's Redis state under `{placement}`: the per-backend ledger (so a new leader resumes
 * the residency clocks), measured footprints, last use, the audit stream and the "loaded"
 * announcements. Only the leader's placer writes here.
 */
export class PlacementRepository {
  readonly keys: PlacementKeys;

  constructor(
    private readonly redis: RedisClient,
    keyPrefix: string,
  ) {
    this.keys = new PlacementKeys(keyPrefix);
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

  /** One stream entry per decision, its one field `json` the whole decision. */
  async audit(d: PlacementDecision): Promise<void> {
    await this.redis.xadd(
      this.keys.audit(),
      'MAXLEN',
      '~',
      AUDIT_MAX,
      '*',
      'json',
      JSON.stringify(d),
    );
  }

  /** The newest `count` audited decisions, newest first. */
  async recentDecisions(count: number): Promise<PlacementDecision[]> {
    const rows = await this.redis.xrevrange(this.keys.audit(), '+', '-', 'COUNT', count);
    return rows.flatMap(([, fields]) => {
      const json = fields[fields.indexOf('json') + 1];
      try {
        return json ? [JSON.parse(json) as PlacementDecision] : [];
      } catch {
        return [];
      }
    });
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
