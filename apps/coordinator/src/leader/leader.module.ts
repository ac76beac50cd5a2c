import { Module } from '@nestjs/common';
import type { KServeClient } from '@mesh/kserve';
import { METRICS_REGISTRY } from '@mesh/telemetry';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { CoordinatorConfig } from '../coordinator.config';
import { CoordinatorRuntime } from '../coordinator.runtime';
import {
  COORDINATOR_CONFIG,
  COORDINATOR_LOGGER,
  KSERVE_CLIENTS,
  ROLLOUT_PORTS,
} from '../coordinator.tokens';
import { BackendReconciler } from '../fleet/backend.reconciler';
import { FleetModule } from '../fleet/fleet.module';
import { KServeBackendFleet } from '../fleet/kserve-backend.fleet';
import { CoordinatorMetrics } from '../metrics/coordinator.metrics';
import { RolloutMachine } from '../rollout/rollout.machine';
import type { RolloutPorts } from '../rollout/rollout.ports';
import { RolloutRepository } from '../rollout/rollout.repository';
import { RolloutRunner } from '../rollout/rollout.runner';
import { LeaderLease } from './leader-lease';

/** The leader loop and its metrics (the leader gauge asks the runner at scrape time). */
function leaderRuntime(
  ports: RolloutPorts,
  config: CoordinatorConfig,
  logger: Logger,
  registry: Registry,
  lease: LeaderLease,
  rollouts: RolloutRepository,
  clients: readonly KServeClient[],
  fleet: KServeBackendFleet,
): CoordinatorRuntime {
  const metrics = new CoordinatorMetrics(registry, rollouts, () => runner.isLeader);
  const machine = new RolloutMachine(ports, {
    loadSampleMs: config.COORDINATOR_LOAD_SAMPLE_MS,
    loadTimeoutMs: config.COORDINATOR_LOAD_TIMEOUT_MS,
    onGate: (plan, verdict) => metrics.gateEvaluated(plan, verdict),
  });
  const reconciler = new BackendReconciler(fleet, ports.desired, ports.routes, logger);
  const runner = new RolloutRunner(lease, rollouts, machine, reconciler, logger, {
    tickMs: config.COORDINATOR_TICK_MS,
    reconcileMs: config.COORDINATOR_RECONCILE_MS,
    clock: ports.clock,
  });
  return new CoordinatorRuntime(clients, runner);
}

/** The leader: lease, rollout machine and runner, reconciler; started once the app is up. */
@Module({
  imports: [FleetModule],
  providers: [
    {
      provide: CoordinatorRuntime,
      inject: [
        ROLLOUT_PORTS,
        COORDINATOR_CONFIG,
        COORDINATOR_LOGGER,
        METRICS_REGISTRY,
        LeaderLease,
        RolloutRepository,
        KSERVE_CLIENTS,
        KServeBackendFleet,
      ],
      useFactory: leaderRuntime,
    },
  ],
})
export class LeaderModule {}
