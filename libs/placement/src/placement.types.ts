/** Why the placer loaded or unloaded a version on a backend (the audit's and metrics' label). */
export type PlacementReason =
  /** A request (router or bulk chunk) asked for a version resident nowhere. */
  | 'demand'
  /** A wanted version with no copy (route weight, pinned job, rollout), loaded ahead of use. */
  | 'wanted'
  /** Its request rate earns it one more copy. */
  | 'scale_up'
  /** A backend appeared, or lost what it served (restart): its copies are restored. */
  | 'restore'
  /** A backend vanished: its copies are placed on the others. */
  | 'replace'
  /** Room for a load: least recently used first. */
  | 'evict'
  /** Its rate no longer earns this copy (after the minimum residency). */
  | 'scale_down'
  /** No longer wanted: no weight, no pinned job, no rollout. */
  | 'retire';

export type PlacementAction = 'load' | 'unload';

/** One entry of the placement audit. */
export interface PlacementDecision {
  /** Unix ms the decision was taken. */
  at: number;
  action: PlacementAction;
  model: string;
  version: number;
  backend: string;
  reason: PlacementReason;
  /** The version's footprint as the ledger counts it. */
  mb: number;
  /** Set when the load or unload call failed. */
  error?: string;
}

/** A version resident on a backend, as the ledger counts it. */
export interface ResidentVersion {
  model: string;
  version: number;
  mb: number;
  /** Unix ms it became resident there (the hysteresis clock). */
  since: number;
  /** Unix ms of its last request anywhere (0 = never seen). */
  lastUsedAt: number;
}

/** What one backend holds against its budget, as the placer last wrote it. */
export interface BackendLedger {
  backend: string;
  /** Null: no budget (unlimited). */
  budgetMb: number | null;
  usedMb: number;
  resident: ResidentVersion[];
  /** Unix ms of the placer pass that wrote it. */
  at: number;
}

/** A cold version somebody asked for: the first asker and the latest ask. */
export interface PlacementDemandEntry {
  firstAt: number;
  lastAt: number;
  /** Who asked last (router id, worker id). */
  by: string;
}
