import type { Span } from '@mesh/telemetry';
import type { Route, ShadowConfig, VersionWeight } from '@mesh/routing';
import type {
  ShadowAgreementSource,
  TrafficSignalQuery,
  TrafficSignalSource,
  VersionSignals as RoutingVersionSignals,
} from '@mesh/signals';

/** Time as the coordinator sees it (unix ms); injected so tests run windows and holds fast. */
export interface Clock {
  now(): number;
}

/** The model repository on disk: what a plan may name. */
export interface ModelCatalog {
  /** Problems that stop `version` of `model` from being rolled out (empty = fine). */
  problems(model: string, version: number): Promise<string[]>;
  /** sha256 of the version's model file as its manifest pins it. */
  expectedSha(model: string, version: number): Promise<string | undefined>;
}

export interface RouteSnapshot {
  route: Route;
  epoch: number;
}

/** One audited change of a route (or of the whole table: a reseed). */
export interface RouteChange {
  epoch: number;
  who: string;
  action: string;
}

/** The routing table, written with the epoch compare-and-swap and the leader's fencing token. */
export interface RouteStore {
  get(tenant: string, task: string): Promise<RouteSnapshot | undefined>;
  /** Every route (any tenant) that sends traffic of `model`. */
  routesOfModel(model: string): Promise<Route[]>;
  /** Audited changes of the route, or of the whole table, after `epoch` (oldest first). */
  changesSince(tenant: string, task: string, epoch: number): Promise<RouteChange[]>;
  /** Commits new versions for one route; resolves to the new epoch. Audited as `who`. */
  setVersions(
    tenant: string,
    task: string,
    versions: VersionWeight[],
    options: { expectedEpoch: number; who: string },
  ): Promise<number>;
  /** Sets (or, with undefined, removes) the route's shadow version; resolves to the new epoch. */
  setShadow(
    tenant: string,
    task: string,
    shadow: ShadowConfig | undefined,
    options: { expectedEpoch: number; who: string },
  ): Promise<number>;
}

export interface BackendReadiness {
  address: string;
  ready: boolean;
  /** `model_sha256_v<N>` (or `model_sha256`) the backend reports for the version. */
  sha?: string;
  problem?: string;
}

/** Every KServe backend, driven through the repository API. */
export interface BackendFleet {
  readiness(model: string, version: number): Promise<BackendReadiness[]>;
  /**
   * Loads `model` with a config override naming exactly `versions`, on the given backends
   * (all when omitted). Versions already serving keep serving. With `parent` (a traced
   * rollout step), each backend's call is a child span of it.
   */
  serve(model: string, versions: number[], addresses?: string[], parent?: Span): Promise<void>;
}

export interface RoutingVerdict {
  ok: boolean;
  routers: number;
  /** One line per router that cannot route it yet, with the reason. */
  blocking: string[];
}

export interface DrainStatus {
  /** Live routers whose heartbeat is at or past the epoch asked about. */
  routers: number;
  /** Routers still behind that epoch. */
  behind: string[];
  /** Requests in flight on the given versions, across all live routers. */
  inFlight: number;
}

/** What the routers report in their heartbeats. */
export interface RouterFleet {
  canAllRoute(model: string, version: number, minEpoch: number): Promise<RoutingVerdict>;
  drainStatus(model: string, versions: number[], minEpoch: number): Promise<DrainStatus>;
}

/** Per-version traffic signals over a time range, aggregated across routers (routing lib). */
export type VersionSignals = RoutingVersionSignals;
export type SignalQuery = TrafficSignalQuery;
export type TrafficSignals = TrafficSignalSource & ShadowAgreementSource;

/** Sends warm-up inferences straight to every backend. */
export interface Warmer {
  /** `traceparent` (a traced step's warm-up span) travels with each inference. */
  warm(
    model: string,
    version: number,
    requests: number,
    traceparent?: string,
  ): Promise<{ ok: number; failed: number }>;
}

/** The versions each model should serve; the placer restores them on restarted backends. */
export interface DesiredVersions {
  set(model: string, versions: number[]): Promise<void>;
  all(): Promise<Map<string, number[]>>;
}

/** Refuses a version no backend's memory budget could hold (throws MODEL_TOO_LARGE). */
export interface VersionSizes {
  refuseTooLarge(model: string, version: number): Promise<void>;
}

/** Bulk jobs pinned to model versions (the job store); a pinned version is not retired. */
export interface BulkJobPins {
  /** Unfinished jobs pinned to any of `versions` of `model` (a few ids, for the timeline). */
  pinned(model: string, versions: readonly number[]): Promise<{ count: number; jobIds: string[] }>;
}

export interface RolloutPorts {
  clock: Clock;
  routes: RouteStore;
  backends: BackendFleet;
  routers: RouterFleet;
  signals: TrafficSignals;
  catalog: ModelCatalog;
  warmer: Warmer;
  desired: DesiredVersions;
  /** Without it, versions are retired without asking about bulk jobs. */
  pins?: BulkJobPins;
}
