import { Registry, collectDefaultMetrics } from 'prom-client';

/** Period of the event-loop lag samples behind nodejs_eventloop_lag_*. */
export const LAG_SAMPLE_MS = 100;

/**
 * One prom-client registry per process (not the global one), so tests that boot several
 * apps in one Jest worker never collide on metric names.
 */
export function createMetricsRegistry(service: string, withDefaults = true): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  // The event-loop lag histogram samples on a timer; prom-client's 10 ms default wakes an idle
  // process 100 times a second, which costs more CPU than the process's own idle work and lands
  // wake-ups in the middle of requests. One sample per 100 ms still gives the lag percentiles.
  if (withDefaults)
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: LAG_SAMPLE_MS });
  return registry;
}
