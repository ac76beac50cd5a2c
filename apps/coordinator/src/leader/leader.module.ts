import { Module } from '@nestjs/common';
import type { RedisClient } from '@mesh/config';
import type { KServeClient } from '@mesh/kserve';
import { PlacementKeys } from '@mesh/placement';
import { METRICS_REGISTRY } from '@mesh/telemetry';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { CoordinatorConfig } from '@mesh/app-config';
import { CoordinatorLifecycle } from '../coordinator-lifecycle';
import {
  COORDINATOR_CONFIG,
  COORDINATOR_LOGGER,
  KSERVE_CLIENTS,
  PLACEMENT_SUBSCRIBER,
  ROLLOUT_PORTS,
} from '../coordinator-tokens';
import { FleetModule } from '../rollout/adapters/fleet.module';
import { CoordinatorMetrics } from '../metrics/coordinator.metrics';
import { PlacementModule } from '../placement/placement.module';
import { PlacementTrigger } from '../placement/placement-trigger';
import { Placer } from '../placement/placer';
import { RolloutMachine } from '../rollout/rollout-machine';
import type { RolloutPorts } from '../rollout/rollout-ports';
import { RolloutRepository } from '../rollout/rollout.repository';
import { RolloutRunner } from '../rollout/rollout-runner';
import { LeaderLease } from './leader-lease';

/**
 * The leader loop and its metrics (the leader gauge asks the runner at scrape time); the
 * placer runs on the reconcile cadence and, on the leader, right after a demand.
 */
function leaderRuntime(
  ports: RolloutPorts,
  config: CoordinatorConfig,
  logger: Logger,
  registry: Registry,
  lease: LeaderLease,
  rollouts: RolloutRepository,
  clients: readonly KServeClient[],
  placer: Placer,
  subscriber: RedisClient,
): CoordinatorLifecycle {
  const metrics = new CoordinatorMetrics(registry, rollouts, () => runner.isLeader);
  const machine = new RolloutMachine(ports, {
    loadSampleMs: config.COORDINATOR_LOAD_SAMPLE_MS,
    loadTimeoutMs: config.COORDINATOR_LOAD_TIMEOUT_MS,
    onGate: (plan, verdict) => metrics.gateEvaluated(plan, verdict),
  });
  const runner = new RolloutRunner(lease, rollouts, machine, placer, logger, {
    tickMs: config.COORDINATOR_TICK_MS,
    reconcileMs: config.COORDINATOR_RECONCILE_MS,
    clock: ports.clock,
  });
  const channel = new PlacementKeys(config.REDIS_KEY_PREFIX).demandChannel();
  const trigger = new PlacementTrigger(
    subscriber,
    channel,
    () => placer.reconcile(),
    () => runner.isLeader,
    logger,
  );
  return new CoordinatorLifecycle(clients, runner, trigger);
}

/** The leader: lease, rollout machine and runner, placer; started once the app is up. */
@Module({
  imports: [FleetModule, PlacementModule],
  providers: [
    {
      provide: CoordinatorLifecycle,
      inject: [
        ROLLOUT_PORTS,
        COORDINATOR_CONFIG,
        COORDINATOR_LOGGER,
        METRICS_REGISTRY,
        LeaderLease,
        RolloutRepository,
        KSERVE_CLIENTS,
        Placer,
        PLACEMENT_SUBSCRIBER,
      ],
      useFactory: leaderRuntime,
    },
  ],
})
export class LeaderModule {}
