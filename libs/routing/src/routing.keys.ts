/** Redis names used by the routing library, all under `REDIS_KEY_PREFIX`. */
export interface RoutingKeys {
  /** JSON of `{tenants, routes}`. */
  table: string;
  /** Integer epoch of the last change; only ever increases. */
  epoch: string;
  /** Capped list of audit entries, newest first. */
  audit: string;
  /** Pub/sub channel; each message is the new epoch. */
  channel: string;
  /** Prefix for the shared rate-limit counters. */
  rateLimit: string;
  /**
   * The coordinators' leader lease: `<fencing token> <holder id>`. Same hash tag as the table,
   * so the table's commit script can check the token atomically.
   */
  leaderLease: string;
  /** Counter the fencing tokens are drawn from; only ever increases. */
  fencingCounter: string;
}

/**
 * The `{routes}` hash tag keeps table, epoch and audit in one Redis Cluster slot, so one
 * script can change them atomically. Pub/sub ignores the DB index, hence the prefix there too.
 */
export function routingKeys(prefix: string): RoutingKeys {
  return {
    table: `${prefix}:{routes}:table`,
    epoch: `${prefix}:{routes}:epoch`,
    audit: `${prefix}:{routes}:audit`,
    channel: `${prefix}:routes:changed`,
    rateLimit: `${prefix}:ratelimit`,
    leaderLease: `${prefix}:{routes}:coordinator:lease`,
    fencingCounter: `${prefix}:{routes}:coordinator:fence`,
  };
}
