import type { RedisClient } from '@mesh/config';
import { RoutingTableRepository, routingKeys } from '@mesh/routing';
import pino from 'pino';
import { LeaderLease } from '../leader/leader-lease';
import { RoutingRouteStore } from '../rollout/adapters/routing-route-store';
import { RolloutRepository } from '../rollout/rollout.repository';
import { RolloutRunner } from '../rollout/rollout-runner';
import { FakeClock, FakeMesh, signals } from './fake-mesh';
import { machineWith, meshWithRoute } from './rollout-fixtures';

/**
 * The question-type route's mesh with every router caught up and both versions healthy (v1 900
 * requests, v2 100, p99 10 ms), so a rollout advances on its holds alone.
 */
export function healthyMesh(): FakeMesh {
  const mesh = meshWithRoute();
  mesh.routerEpoch = Number.MAX_SAFE_INTEGER;
  mesh.signals.set(1, signals({ requests: 900, p99Ms: 10 }));
  mesh.signals.set(2, signals({ requests: 100, p99Ms: 10 }));
  return mesh;
}

/**
 * One coordinator replica over real Redis under `prefix` (routing table, lease held as `holder`
 * for `leaseMs`, rollout records); backends, routers and signals are the in-memory `mesh`.
 */
export function runnerReplica(
  redis: RedisClient,
  prefix: string,
  holder: string,
  clock: FakeClock,
  mesh: FakeMesh,
  leaseMs: number,
) {
  const table = new RoutingTableRepository(redis, { keyPrefix: prefix });
  const lease = new LeaderLease(redis, routingKeys(prefix), holder, leaseMs);
  const routes = new RoutingRouteStore(table, () => lease.fence);
  const repository = new RolloutRepository(redis, prefix);
  const runner = new RolloutRunner(
    lease,
    repository,
    machineWith(mesh, clock, { routes }),
    { reconcile: async () => 0 },
    pino({ level: 'silent' }),
    { tickMs: 1000, reconcileMs: 60_000, clock },
  );
  return { runner, repository, table, lease, routes };
}
