/**
 * Redis names of the placement state, all under `REDIS_KEY_PREFIX` and one `{placement}` hash
 * tag, so the placer's multi-key writes land in one Cluster slot.
 */
export class PlacementKeys {
  private readonly base: string;

  constructor(prefix: string) {
    this.base = `${prefix}:{placement}`;
  }

  /** Hash `model@version` → JSON {@link PlacementDemandEntry}: versions asked for while cold. */
  demand(): string {
    return `${this.base}:demand`;
  }

  /** Pub/sub channel a demand is announced on, so the placer acts without waiting a pass. */
  demandChannel(): string {
    return `${this.base}:demand-events`;
  }

  /** Pub/sub channel the placer announces finished loads on (`model@version@backend`). */
  loadedChannel(): string {
    return `${this.base}:loaded-events`;
  }

  /** Hash `model@version` → footprint MB as last measured by a backend (refines the config). */
  footprints(): string {
    return `${this.base}:footprints`;
  }

  /** Hash `backend` → JSON {@link BackendLedger}: what the placer last placed there. */
  ledger(): string {
    return `${this.base}:ledger`;
  }

  /** Hash `model@version` → unix ms of the version's last request seen by the placer. */
  lastUse(): string {
    return `${this.base}:last-use`;
  }

  /** Stream of {@link PlacementDecision}s (capped): the audit of every load and unload. */
  audit(): string {
    return `${this.base}:audit`;
  }
}

/** `model@version`: the field name of a version in the placement hashes. */
export function versionKey(model: string, version: number): string {
  return `${model}@${version}`;
}

/** The inverse of {@link versionKey}; undefined for a field that is not one. */
export function parseVersionKey(key: string): { model: string; version: number } | undefined {
  const at = key.lastIndexOf('@');
  if (at <= 0) return undefined;
  const version = Number(key.slice(at + 1));
  if (!Number.isInteger(version) || version < 0) return undefined;
  return { model: key.slice(0, at), version };
}
