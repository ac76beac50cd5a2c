import type { VersionWeight } from '@mesh/routing';

/** Every state a rollout can be in (plain values, persisted as they are). */
export const ROLLOUT_STATES = [
  'pending',
  'loading',
  'waiting_for_window',
  'warming',
  'shadow',
  'canary',
  'baking',
  'promoted',
  'draining',
  'completed',
  'paused',
  'rolling_back',
  'rolled_back',
  'aborted',
  'failed',
] as const;

export type RolloutState = (typeof ROLLOUT_STATES)[number];

/** States a rollout never leaves; it no longer blocks another rollout of its (tenant, task). */
export const TERMINAL_STATES: ReadonlySet<RolloutState> = new Set([
  'completed',
  'rolled_back',
  'aborted',
  'failed',
]);

export function isTerminal(state: RolloutState): boolean {
  return TERMINAL_STATES.has(state);
}

export interface RolloutWindowSpec {
  /** Five- or six-field cron expression; each firing opens the window. */
  cron: string;
  /** IANA zone the cron is read in, e.g. `Asia/Shanghai`. */
  timezone: string;
  durationMinutes: number;
}

export interface LowLoadSpec {
  /** The task's request rate across all routers must stay below this ... */
  maxRequestsPerSecond: number;
  /** ... for this long before a step may start. */
  forSeconds: number;
}

export interface RolloutStep {
  /** Percent of the route's traffic on the new version during this step (0–100). */
  weight: number;
  holdSeconds: number;
}

export interface GateSpec {
  /** Largest acceptable error fraction of the new version (0–1). */
  maxErrorRate?: number;
  /** Largest acceptable p99 of the new version in milliseconds ... */
  maxP99Ms?: number;
  /** ... or relative to the old version's p99 over the same interval. */
  maxP99Ratio?: number;
  /** Requests the new version must have served before a gate can pass. */
  minRequests?: number;
}

/** Mirrored traffic before any step (accepted in plans; see the validator). */
export interface ShadowSpec {
  sampleRate: number;
  holdSeconds: number;
  minAgreement: number;
}

export type FailurePolicy = 'rollback' | 'pause';

export interface RolloutPlan {
  tenant: string;
  task: string;
  model: string;
  toVersion: number;
  window?: RolloutWindowSpec;
  lowLoad?: LowLoadSpec;
  warmup?: { requests: number };
  shadow?: ShadowSpec;
  steps: RolloutStep[];
  bakeSeconds: number;
  gates?: GateSpec;
  onFailure: FailurePolicy;
}

/** Numbers that decided a transition (signals, epochs, counts). */
export type TransitionMetrics = Record<string, number | string | boolean | null>;

export interface TimelineEntry {
  /** ISO-8601 time of the transition (the coordinator's clock). */
  at: string;
  from: RolloutState;
  to: RolloutState;
  /** 1-based canary step after the transition (0 before the first step). */
  step: number;
  reason: string;
  metrics?: TransitionMetrics;
}

export type OperatorCommandKind = 'pause' | 'resume' | 'abort' | 'promote';

export interface OperatorCommand {
  kind: OperatorCommandKind;
  /** Unix ms when the API accepted it. */
  at: number;
}

/** Where a paused rollout continues on resume. */
export interface PausedFrom {
  state: RolloutState;
  step: number;
}

/** A rollout as persisted: the plan, where it stands, and how it got there. */
export interface RolloutRecord {
  id: string;
  plan: RolloutPlan;
  state: RolloutState;
  /** 1-based canary step; 0 until the first step is applied. */
  step: number;
  /** The route's versions when the rollout was created; a rollback restores exactly these. */
  fromVersions: VersionWeight[];
  /** The weights this rollout last committed (or the original ones). */
  weights: VersionWeight[];
  /** Routing epoch of this rollout's last committed weight change (0 = none yet). */
  appliedEpoch: number;
  /** Unix ms: creation, and when the current state (or step) began. */
  createdAt: number;
  enteredAt: number;
  /** Unix ms since when the task's load has stayed low (lowLoad plans). */
  lowLoadSince?: number;
  pausedFrom?: PausedFrom;
  /** An operator command the leader has not acted on yet. */
  command?: OperatorCommand;
  timeline: TimelineEntry[];
  /** Optimistic-concurrency revision, bumped by every save. */
  rev: number;
}
