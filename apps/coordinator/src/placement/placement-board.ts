import { versionKey, type PlacementReason } from '@mesh/placement';
import type {
  PlacementSnapshot,
  PlannedChange,
  PolicyOptions,
  SnapshotResident,
  SnapshotVersion,
} from './placement-policy.types';

/** An alive backend while the policy moves versions on and off it. */
export interface BoardBackend {
  address: string;
  budgetMb: number | null;
  resident: Map<string, SnapshotResident>;
  previously: Set<string>;
  known: boolean;
}

/**
 * The policy's working copy of a snapshot: alive backends with what each holds, the versions,
 * and the changes made so far in order. Every change goes through `load`/`unload`, so the
 * MB counted on a backend is always what the changes leave there.
 */
export class PlacementBoard {
  readonly backends: BoardBackend[];
  readonly versions = new Map<string, SnapshotVersion>();
  readonly changes: PlannedChange[] = [];
  /** `model@version`s that had a copy on a backend that is dead this pass. */
  readonly lost = new Set<string>();
  /** `model@version`s evicted this pass: they evict nothing else until the next one. */
  readonly evicted = new Set<string>();

  constructor(
    readonly snapshot: PlacementSnapshot,
    readonly options: PolicyOptions,
  ) {
    for (const v of snapshot.versions) this.versions.set(versionKey(v.model, v.version), v);
    this.backends = snapshot.backends
      .filter((b) => b.alive)
      .map((b) => ({
        address: b.address,
        budgetMb: b.budgetMb,
        resident: new Map(b.resident.map((r) => [versionKey(r.model, r.version), { ...r }])),
        previously: new Set(b.previously),
        known: b.known,
      }));
    for (const b of snapshot.backends.filter((d) => !d.alive)) {
      for (const r of b.resident) this.lost.add(versionKey(r.model, r.version));
    }
  }

  get now(): number {
    return this.snapshot.now;
  }

  /** The version, or (resident but unknown to every source) an unwanted one of its size. */
  version(key: string, resident?: SnapshotResident): SnapshotVersion {
    const known = this.versions.get(key);
    if (known) return known;
    const made: SnapshotVersion = {
      model: resident?.model ?? key,
      version: resident?.version ?? 0,
      mb: resident?.mb ?? 0,
      wanted: [],
      listed: false,
      rate: 0,
      lastUsedAt: 0,
      inFlight: 0,
    };
    this.versions.set(key, made);
    return made;
  }

  holders(key: string): BoardBackend[] {
    return this.backends.filter((b) => b.resident.has(key));
  }

  copies(key: string): number {
    return this.holders(key).length;
  }

  usedMb(b: BoardBackend): number {
    let sum = 0;
    for (const r of b.resident.values()) sum += r.mb;
    return sum;
  }

  /** MB left under the budget; unbounded without one. */
  freeMb(b: BoardBackend): number {
    return b.budgetMb === null ? Infinity : b.budgetMb - this.usedMb(b);
  }

  /** Requests per second the backend's resident versions carry (each version's rate per copy). */
  load(b: BoardBackend): number {
    let sum = 0;
    for (const key of b.resident.keys()) {
      sum += (this.versions.get(key)?.rate ?? 0) / Math.max(1, this.copies(key));
    }
    return sum;
  }

  /** Resident long enough to be removed (the hysteresis). */
  settled(r: SnapshotResident): boolean {
    return this.now - r.since >= this.options.minResidencyMs;
  }

  /**
   * Used since it became resident here: a waiting request may then evict it before the
   * minimum residency (the copy did what it was loaded for). A copy loaded for a cold start
   * and not used yet stays, so its waiting requests are not sent back to wait again; a request
   * to an earlier copy (one before `since`) does not count for it.
   */
  usedSinceLoad(r: SnapshotResident, v: SnapshotVersion): boolean {
    return v.lastUsedAt > 0 && v.lastUsedAt > r.since;
  }

  /** In flight, pinned by a running job, in an active rollout, or asked for: never evicted. */
  guarded(v: SnapshotVersion): boolean {
    return v.inFlight > 0 || v.wanted.some((w) => w === 'pin' || w === 'rollout' || w === 'demand');
  }

  add(b: BoardBackend, v: SnapshotVersion, reason: PlacementReason): void {
    const key = versionKey(v.model, v.version);
    b.resident.set(key, { model: v.model, version: v.version, mb: v.mb, since: this.now });
    this.changes.push({
      action: 'load',
      model: v.model,
      version: v.version,
      backend: b.address,
      reason,
      mb: v.mb,
    });
  }

  remove(b: BoardBackend, key: string, reason: PlacementReason): void {
    const r = b.resident.get(key);
    if (!r) return;
    b.resident.delete(key);
    if (reason === 'evict') this.evicted.add(key);
    this.changes.push({
      action: 'unload',
      model: r.model,
      version: r.version,
      backend: b.address,
      reason,
      mb: r.mb,
    });
  }
}
