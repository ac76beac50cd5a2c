import { performance } from 'node:perf_hooks';
import { traceparentOf } from '@mesh/telemetry';
import { RolloutStepTrace, weightOf, weightsText } from './rollout-step.trace';
import type { RolloutPorts } from './rollout-ports';
import type { RolloutMachineOptions, RolloutRecord } from './rollout.types';

export interface TracedStep {
  trace: RolloutStepTrace;
  ports: RolloutPorts;
  options: RolloutMachineOptions;
}

/**
 * The ports and options one traced step runs with: the same ports, with the writes (route and
 * shadow writes, loads, warm-ups) as spans and the readiness checks and gate evaluations noted.
 * The machine's logic is untouched; only built when tracing is on.
 */
export function tracedStep(
  record: RolloutRecord,
  ports: RolloutPorts,
  options: RolloutMachineOptions,
): TracedStep {
  const trace = new RolloutStepTrace(record);
  const { routes, backends, warmer, clock } = ports;
  const { toVersion } = record.plan;
  const traced: RolloutPorts = {
    ...ports,
    routes: tracedRoutes(routes, trace, toVersion),
    backends: tracedBackends(backends, trace),
    warmer: tracedWarmer(warmer, trace),
  };
  return {
    trace,
    ports: traced,
    options: {
      ...options,
      onGate: (plan, verdict, result, startedAt) => {
        options.onGate?.(plan, verdict, result, startedAt);
        trace.gate(plan, result, startedAt, clock.now() - record.enteredAt);
      },
    },
  };
}

/** Route and shadow writes as spans carrying the weights they wrote and the epoch they got. */
function tracedRoutes(
  routes: RolloutPorts['routes'],
  trace: RolloutStepTrace,
  toVersion: RolloutRecord['plan']['toVersion'],
): RolloutPorts['routes'] {
  return {
    get: (tenant, task) => routes.get(tenant, task),
    routesOfModel: (model) => routes.routesOfModel(model),
    changesSince: (tenant, task, epoch) => routes.changesSince(tenant, task, epoch),
    setVersions: (tenant, task, versions, opts) =>
      trace.write(
        'rollout.shift',
        {
          'mesh.rollout.weights': weightsText(versions),
          'mesh.rollout.weight': weightOf(versions, toVersion),
          'mesh.routing.expected_epoch': opts.expectedEpoch,
        },
        () => routes.setVersions(tenant, task, versions, opts),
        (epoch) => ({ attributes: { 'mesh.routing.epoch': epoch } }),
      ),
    setShadow: (tenant, task, shadow, opts) =>
      trace.write(
        'rollout.shadow',
        {
          'mesh.shadow.version': shadow?.version ?? 0,
          'mesh.shadow.percent': shadow ? (shadow.percent ?? 100) : 0,
          'mesh.routing.expected_epoch': opts.expectedEpoch,
        },
        () => routes.setShadow(tenant, task, shadow, opts),
        (epoch) => ({ attributes: { 'mesh.routing.epoch': epoch } }),
      ),
  };
}

/** Readiness checks noted with who is still waiting and why; loads as spans. */
function tracedBackends(
  backends: RolloutPorts['backends'],
  trace: RolloutStepTrace,
): RolloutPorts['backends'] {
  return {
    readiness: async (model, version) => {
      const start = performance.now();
      const found = await backends.readiness(model, version);
      const waiting = found.filter((b) => !b.ready);
      trace.note('rollout.ready', start, {
        'mesh.model': model,
        'mesh.version': version,
        'mesh.backends': found.length,
        'mesh.backends.ready': found.length - waiting.length,
        ...(waiting.length > 0
          ? {
              'mesh.backends.waiting': waiting
                .map((b) => `${b.address}: ${b.problem ?? 'not ready'}`)
                .join('; '),
            }
          : {}),
      });
      return found;
    },
    serve: (model, versions, addresses) =>
      trace.write(
        'rollout.load',
        {
          'mesh.model': model,
          'mesh.versions': versions.join(','),
          'mesh.backends': addresses ? addresses.join(',') : 'all',
        },
        (span) => backends.serve(model, versions, addresses, span),
      ),
  };
}

/** Warm-ups as spans whose context the warm-up requests carry. */
function tracedWarmer(
  warmer: RolloutPorts['warmer'],
  trace: RolloutStepTrace,
): RolloutPorts['warmer'] {
  return {
    warm: (model, version, requests) =>
      trace.write(
        'rollout.warm',
        { 'mesh.model': model, 'mesh.version': version, 'mesh.warmup.requests': requests },
        (span) => warmer.warm(model, version, requests, traceparentOf(span)),
        (result) => ({
          attributes: { 'mesh.warmup.ok': result.ok, 'mesh.warmup.failed': result.failed },
          outcome: result.failed > 0 ? 'warmup_failed' : 'ok',
        }),
      ),
  };
}
