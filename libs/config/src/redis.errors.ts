/**
 * Errors that mean the store did not answer, as ioredis raises them in every mode: the command
 * timeout of a `commands` connection, a closed connection, a cluster without a usable slot map
 * or primary, a Sentinel group without a reachable primary, and the replies a server gives in
 * the seconds around a failover (a replica promoted, a primary still loading). Edges answer
 * these with 503 STORE_UNAVAILABLE and Retry-After instead of a 500: the call can succeed once
 * Redis is back.
 */
const UNAVAILABLE_NAMES = new Set([
  'MaxRetriesPerRequestError',
  'ClusterAllFailedError',
  // A write not confirmed on its replicas in time (redis-replica-ack.ts).
  'ReplicaAckError',
]);

const UNAVAILABLE_MESSAGES = [
  /^Command timed out$/,
  /^Connection is closed\.?$/,
  /^Stream isn't writeable/,
  /^Failed to refresh slots cache/,
  /^Cluster isn't ready/,
  /^Too many Cluster redirections/,
  /^All sentinels are unreachable/,
  /^(CLUSTERDOWN|TRYAGAIN|LOADING|READONLY|MASTERDOWN)\b/,
];

export function isStoreUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { name, message } = err as { name?: unknown; message?: unknown };
  if (typeof name === 'string' && UNAVAILABLE_NAMES.has(name)) return true;
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.some((re) => re.test(message));
}

/** Seconds a caller should wait before retrying a call that met an unavailable store. */
export const STORE_RETRY_AFTER_SECONDS = 5;

/**
 * Longest wait for one command of an app's shared `commands` connection that serves API calls
 * (admin edits, job submissions and reads, rollout commands). While Redis is down or failing
 * over, such calls answer 503 STORE_UNAVAILABLE after this long instead of holding the caller
 * for the whole outage.
 */
export const STORE_COMMAND_TIMEOUT_MS = 3000;
