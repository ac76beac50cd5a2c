import type { Cluster } from './cluster';

/**
 * The contract between the chaos runner (`bench/chaos/chaos.ts`) and its scenario modules
 * (`bench/chaos/scenarios/*.scenario.ts`). A scenario starts the processes it needs through
 * `cluster.ts`, holds load through `load.ts`, injects its faults, stops everything it started
 * and returns one `ScenarioResult`, which the report writer turns into a row of
 * `docs/reliability.md` and an entry of `docs/reliability.json`.
 */

export interface ChaosContext {
  /** `--quick`: shorter phases and smaller counts; the whole suite stays under 3 minutes. */
  quick: boolean;
  /** One progress line on stderr, prefixed with the scenario's id. */
  log(msg: string): void;
  /** A scratch directory of this scenario (deleted after the run). */
  tmpDir: string;
  /**
   * Figures one scenario hands to a later one in the same run, e.g. `saturationRps` measured
   * by the overload scenario and held at 80 % by the soak. Readers must cope with a miss
   * (`--only`) by measuring themselves.
   */
  shared: Map<string, unknown>;
  /**
   * Aborted when the scenario overruns its time budget or the run is interrupted: long loops
   * must watch it and end (the runner then kills every process the scenario started).
   */
  signal: AbortSignal;
  /**
   * A new set of processes with its own Redis key prefix (default `chaos-<id>`); the runner
   * SIGKILLs whatever is left of it when the scenario ends, passes or throws.
   */
  cluster(prefix?: string): Cluster;
}

export interface RequestCounts {
  /** Every request the load generator (or the scenario) issued. */
  sent: number;
  /** Requests whose outcome the scenario counts as a failure (after any documented retry). */
  failed: number;
  /** Failures (or noteworthy refusals) by class, e.g. `{ "503 BACKEND_UNAVAILABLE": 3 }`. */
  failedDetail: Record<string, number>;
}

export interface ScenarioResult {
  id: string;
  title: string;
  /** The load held while faults were injected, e.g. "c=8 closed loop, HTTP keep-alive, ~120 rps". */
  load: string;
  /** What was done to the system, e.g. "SIGKILL host-b at t=5 s, restart at t=10 s". */
  faults: string;
  requests: RequestCounts;
  /** From the fault (or the restart) until traffic was served normally again. */
  recoveryMs?: number;
  /** Items, results or state lost or duplicated: must be 0 for `passed`. */
  dataLost: number;
  /** App bugs this scenario found and that were fixed (one line each). */
  fixes: string[];
  /** Measured numbers worth reporting (rps, p99, RSS, slopes …). */
  figures: Record<string, number | string>;
  /** Computed from the scenario's checks, never a constant. */
  passed: boolean;
  /** Checks that failed, what degrades, caveats. */
  notes?: string;
  /** Every check behind `passed` (the e2e tests assert the ones that do not involve time). */
  checks?: Check[];
}

export interface ChaosScenario {
  /** Short stable id used by `--only` (e.g. `host-kill`). */
  id: string;
  title: string;
  /** Hard time limit of one run, ms (the runner's default when absent: quick 60 s, full 420 s). */
  budgetMs?: { quick: number; full: number };
  run(ctx: ChaosContext): Promise<ScenarioResult>;
}

/** A named check: scenarios collect these and derive `passed` and `notes` from them. */
export interface Check {
  name: string;
  ok: boolean;
  detail?: string;
}

/** `passed` and `notes` from a list of checks (failed ones listed first in the notes). */
export function verdict(
  checks: readonly Check[],
  extraNotes: string[] = [],
): {
  passed: boolean;
  notes?: string;
  checks: Check[];
} {
  const failed = checks.filter((c) => !c.ok);
  const lines = [
    ...failed.map((c) => `FAILED ${c.name}${c.detail ? `: ${c.detail}` : ''}`),
    ...extraNotes,
  ];
  return {
    passed: checks.length > 0 && failed.length === 0,
    checks: [...checks],
    ...(lines.length > 0 ? { notes: lines.join('; ') } : {}),
  };
}
