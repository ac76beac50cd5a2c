import type Redis from 'ioredis';
import { isCluster, type RedisClient } from './redis-factory';

/** How many replicas must hold a write before the caller is told it is stored. */
export interface ReplicaAck {
  replicas: number;
  timeoutMs: number;
}

/**
 * A write could not be confirmed on enough replicas in time (or its primary is not known yet,
 * mid-failover): a failover now could lose it, so the caller is not told it is stored.
 */
export class ReplicaAckError extends Error {
  override readonly name = 'ReplicaAckError';
}

/**
 * Waits until `ack.replicas` replicas hold every write this connection made to the primaries
 * owning `keys` (Redis `WAIT`). Replication is asynchronous: a write a primary acknowledged
 * can be lost when a replica that had not received it is promoted. Waiting for one replica
 * before answering makes an acknowledged write survive the loss of its primary. `WAIT` counts
 * the writes of the connection it is sent on, so on a Cluster it goes to the node connection
 * that carried the writes: one per primary owning one of `keys`. No-op with 0 replicas.
 *
 * A primary waits for at most the replicas online (connected and synced) on it now. Right after a failover the
 * promoted primary has none until the lost node rejoins as its replica; waiting for one then
 * would refuse every write for as long as that takes, while no replica exists that could lose
 * it. The write is then acknowledged on the primary alone, as Redis itself does; a server that
 * must refuse instead sets `min-replicas-to-write`.
 */
export async function waitForReplicas(
  client: RedisClient,
  keys: readonly string[],
  ack: ReplicaAck,
): Promise<void> {
  if (ack.replicas <= 0) return;
  for (const node of await primariesOwning(client, keys)) {
    const wanted = Math.min(ack.replicas, await connectedReplicas(node));
    if (wanted === 0) continue;
    const acknowledged = await node.wait(wanted, ack.timeoutMs);
    if (acknowledged < wanted) {
      throw new ReplicaAckError(
        `only ${acknowledged} of ${wanted} replica(s) acknowledged the write within ${ack.timeoutMs} ms`,
      );
    }
  }
}

/**
 * Replicas of a primary that can acknowledge now (`INFO replication`, `state=online`). One still
 * in its first full sync counts as connected but answers no WAIT until the sync ends; it will
 * hold the write once synced, like a replica that joins later.
 */
async function connectedReplicas(node: Redis): Promise<number> {
  const info = await node.info('replication');
  return info.split('\n').filter((l) => /^slave\d+:.*\bstate=online\b/.test(l)).length;
}

async function primariesOwning(client: RedisClient, keys: readonly string[]): Promise<Redis[]> {
  if (!isCluster(client)) return [client];
  const owners = new Map<string, Redis>();
  for (const key of keys) {
    const slot = Number(await client.cluster('KEYSLOT', key));
    const address = client.slots[slot]?.[0] ?? `slot ${slot}`;
    const node = client
      .nodes('master')
      .find((n) => `${n.options.host}:${n.options.port}` === address);
    if (!node) throw new ReplicaAckError(`no known primary owns ${address} (key ${key})`);
    owners.set(address, node);
  }
  return [...owners.values()];
}
