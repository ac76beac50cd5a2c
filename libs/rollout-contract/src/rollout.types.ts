/**
 * A rollout's way forward, in order: every state that can be paused, so the states a paused
 * rollout can resume to.
 */
export const FORWARD_STATES = [
  'pending',
  'loading',
  'waiting_for_window',
  'warming',
  'shadow',
  'canary',
  'baking',
  'promoted',
  'draining',
] as const;

/** Every state a rollout can be in (plain values, persisted as they are). */
export const ROLLOUT_STATES = [
  ...FORWARD_STATES,
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

/**
 * What an operator can ask of a rollout (`POST /v1/rollouts/:id/<command>`). `undo` is asked
 * of a completed rollout and starts a new one back to its previous weights; the others are
 * queued on the rollout itself.
 */
export const OPERATOR_COMMANDS = ['pause', 'resume', 'abort', 'promote', 'undo'] as const;

export type OperatorCommandKind = (typeof OPERATOR_COMMANDS)[number];

export function isOperatorCommand(value: unknown): value is OperatorCommandKind {
  return (OPERATOR_COMMANDS as readonly unknown[]).includes(value);
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

/**
 * A version's share of a route's traffic, as the API shows it: the shape of `@mesh/routing`'s
 * VersionWeight, not imported from there so this lib (and the dashboard bundle) needs nothing
 * else. The coordinator assigns one to the other, so the compiler keeps them equal.
 */
export interface RolloutWeight {
  version: number;
  /** Percent of the route's traffic (0–100). */
  weight: number;
}

/** What the API shows of a rollout (`GET /v1/rollouts/:id`, and each item of the list). */
export interface RolloutView {
  id: string;
  plan: RolloutPlan;
  state: RolloutState;
  step: number;
  weights: RolloutWeight[];
  pendingCommand?: OperatorCommandKind;
  /** The route's weights once this rollout completes (all traffic on `toVersion` unless an undo). */
  finalWeights: RolloutWeight[];
  /** Set on an undo: the completed rollout whose previous weights this one restores. */
  undoOf?: string;
  /** Set on a completed rollout that was undone: the undo's id. */
  undoneBy?: string;
  timeline: TimelineEntry[];
}
