import type { VersionWeight } from '@mesh/routing';
import type {
  OperatorCommandKind,
  RolloutPlan,
  RolloutState,
  TimelineEntry,
} from '@mesh/rollout-contract';
import type { GateResult, GateVerdict } from './rollout-gate';

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
  /**
   * The route's weights once this rollout completes; absent = all traffic on `plan.toVersion`.
   * An undo sets them to the undone rollout's `fromVersions`.
   */
  finalWeights?: VersionWeight[];
  /** An undo: the completed rollout whose previous weights this one restores. */
  undoOf?: string;
  /** A completed rollout that was undone: the undo's id. */
  undoneBy?: string;
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

export interface RolloutMachineOptions {
  /** How far back the low-load detector looks at each evaluation (ms). */
  loadSampleMs: number;
  /** A version that is not READY everywhere by then fails the rollout (ms). */
  loadTimeoutMs: number;
  /**
   * Told every gate evaluation's verdict (metrics), with what it compared and when it started
   * (`performance.now()`; a traced step records the evaluation as a span).
   */
  onGate?: (plan: RolloutPlan, verdict: GateVerdict, result: GateResult, startedAt: number) => void;
}
