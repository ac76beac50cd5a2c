import type { PendingDemand } from '@mesh/placement';
import type { Route } from '@mesh/routing';
import type { RouterHeartbeat, VersionRequests } from '@mesh/signals';
import type { BackendSurvey } from '../rollout/adapters/kserve-backend-fleet';
import type { BackendReadiness } from '../rollout/rollout-ports';
import type { RolloutRecord } from '../rollout/rollout.types';

/** The backends as the placer drives them (KServeBackendFleet). */
export interface PlacementBackends {
  survey(): Promise<BackendSurvey[]>;
  /** Loads `model` on each of `addresses` with a config naming exactly `versions`. */
  serve(model: string, versions: number[], addresses: string[]): Promise<void>;
  unload(model: string, address: string): Promise<void>;
  readiness(
    model: string,
    version: number,
    addresses: readonly string[],
  ): Promise<BackendReadiness[]>;
  reportedMb(model: string, version: number, address: string): Promise<number | undefined>;
}

/** Where what is wanted, used and asked for is read from, once per pass. */
export interface PlacementSources {
  /** Every route of every tenant. */
  routes(): Promise<Route[]>;
  /** model → the versions its last rollout left serving. */
  desired(): Promise<Map<string, number[]>>;
  activeRollouts(): Promise<RolloutRecord[]>;
  pinned(): Promise<{ model: string; version: number }[]>;
  demand(): Promise<PendingDemand[]>;
  requests(window: { fromMs: number; toMs: number }): Promise<VersionRequests[]>;
  heartbeats(): Promise<RouterHeartbeat[]>;
  /** From the model repository: declared, else estimated from the file. */
  footprint(model: string, version: number): Promise<{ mb: number } | undefined>;
  expectedSha(model: string, version: number): Promise<string | undefined>;
}

/** The budget of a backend: configured, else advertised, else none (null). */
export type BudgetOf = (address: string, advertisedMb: number | undefined) => number | null;
