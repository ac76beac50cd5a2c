/**
 * Redis names of the coordinator's rollout state, all under `REDIS_KEY_PREFIX`. They share the
 * routing table's `{routes}` hash tag, so a save can check the leader's fencing token (the
 * lease is `routingKeys(prefix).leaderLease`) in the same script.
 */
export class RolloutKeys {
  private readonly base: string;

  constructor(prefix: string) {
    this.base = `${prefix}:{routes}:rollouts`;
  }

  /** Hash of one rollout: `rev` and `json`. */
  record(id: string): string {
    return `${this.base}:record:${id}`;
  }

  /** Sorted set of every rollout id by creation time. */
  index(): string {
    return `${this.base}:index`;
  }

  /** The id of the active rollout of (tenant, task); absent when none is active. */
  active(tenant: string, task: string): string {
    return `${this.base}:active:${tenant}/${task}`;
  }

  /** Hash: model → JSON versions every backend should serve, as the last rollout decided. */
  desired(): string {
    return `${this.base}:desired`;
  }

  /** Pattern matching every rollout record under this prefix. */
  recordPattern(): string {
    return `${this.base}:record:*`;
  }

  /** Pattern matching every active-rollout marker under this prefix. */
  activePattern(): string {
    return `${this.base}:active:*`;
  }
}
