import type { ServableVersion } from './servable-version';

/** What the router knows about its backends: who serves which version, and with what bytes. */
export interface BackendDirectory {
  /**
   * Undefined when at least one backend reports the version READY and its ModelConfig's
   * `model_sha256` parameter equals the manifest's `model.sha256`; otherwise the reason.
   */
  unroutableReason(version: ServableVersion): string | undefined;
  /** Backends that answered their last health/discovery round. */
  healthyBackends(): number;
}
