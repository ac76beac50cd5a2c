/** One (model, version) pair. */
export interface ModelVersionRef {
  model: string;
  version: number;
}

/**
 * What one router can route right now, published to Redis on a short period with a TTL: a
 * rollout moves traffic to a version only once every live router lists it as routable at the
 * epoch the rollout wrote, and drains a version by waiting for its in-flight count to reach 0.
 */
export interface RouterHeartbeat {
  /** Stable for the life of the process (hostname + pid + random suffix). */
  routerId: string;
  /** Routing-table epoch this router has applied. */
  epoch: number;
  /** Unix ms at which the router built this heartbeat (its own clock). */
  at: number;
  routable: ModelVersionRef[];
  /** Versions in the repository the router cannot route, each with the reason. */
  unroutable: (ModelVersionRef & { reason: string })[];
  /** Requests being answered per version at `at` (versions with 0 are omitted). */
  inFlight: (ModelVersionRef & { count: number })[];
}

/** One router that cannot (yet) route a version, and why. */
export interface RouteBlocker {
  routerId: string;
  reason: string;
}

/** Whether every live router can route a version at or after an epoch. */
export interface CanAllRouteResult {
  /** True only with at least one live router and no blocker. */
  ok: boolean;
  /** Live routers considered. */
  routers: number;
  blocking: RouteBlocker[];
}
