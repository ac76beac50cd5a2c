import type { PlacementDecision } from '@mesh/placement';

/** Why a version must stay resident somewhere (none: nobody wants it any more). */
export type WantReason = 'route' | 'shadow' | 'pin' | 'rollout' | 'demand';

/** One version resident on a backend. */
export interface SnapshotResident {
  model: string;
  version: number;
  mb: number;
  /** Unix ms it became resident there (the hysteresis clock). */
  since: number;
}

/** One backend as the pass found it. */
export interface SnapshotBackend {
  address: string;
  /** False when its repository index or readiness failed this pass. */
  alive: boolean;
  /** Null: no budget (every wanted version is served there, as before budgets). */
  budgetMb: number | null;
  /** Alive: READY versions from its repository index. Dead: what the ledger last counted. */
  resident: SnapshotResident[];
  /** `model@version`s the ledger counted here last pass (a restart loses them). */
  previously: string[];
  /** False for a backend the ledger has never counted (it just appeared). */
  known: boolean;
}

/** One version anybody wants, or that is resident somewhere. */
export interface SnapshotVersion {
  model: string;
  version: number;
  /** Footprint: measured, declared (`memory_mb_v<N>`) or estimated. */
  mb: number;
  wanted: WantReason[];
  /**
   * Served on every unbudgeted backend, as before budgets: a version of the model's desired set
   * or one a route names (any weight) of a model with a desired set.
   */
  listed: boolean;
  /** Requests per second over the rate window, all routers. */
  rate: number;
  /** Unix ms of its last request (0: never seen). */
  lastUsedAt: number;
  /** Requests in flight on it across the live routers. */
  inFlight: number;
  /** An incoming rollout version: the backends its predecessor is resident on. */
  placeWith?: string[];
}

export interface PlacementSnapshot {
  now: number;
  backends: SnapshotBackend[];
  versions: SnapshotVersion[];
  /** Models whose unlisted versions an unbudgeted backend retires (the desired set's models). */
  managedModels: string[];
}

export interface PolicyOptions {
  /** No copy is removed sooner after it became resident (except an unbudgeted retire). */
  minResidencyMs: number;
  /** Requests per second one copy should carry. */
  ratePerCopy: number;
}

/** One load or unload the placer should carry out, in order (an audit entry before its time). */
export type PlannedChange = Omit<PlacementDecision, 'at' | 'error'>;

/** A planned change as carried out: with the call's error when it failed. */
export type CarriedOut = PlannedChange & { error?: string };

/** A load that could not be placed this pass, and why. */
export interface SkippedLoad {
  model: string;
  version: number;
  reason: string;
}

export interface PlacementPlan {
  changes: PlannedChange[];
  skipped: SkippedLoad[];
}
