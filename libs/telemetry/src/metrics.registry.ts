import { Registry, collectDefaultMetrics } from 'prom-client';

/**
 * One prom-client registry per process (not the global one), so tests that boot several
 * apps in one Jest worker never collide on metric names.
 */
export function createMetricsRegistry(service: string, withDefaults = true): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  if (withDefaults) collectDefaultMetrics({ register: registry });
  return registry;
}
