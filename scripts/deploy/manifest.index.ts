import {
  containersOf,
  isObject,
  podTemplateOf,
  type JsonObject,
  type K8sObject,
} from './k8s-object';

/** Lookups over one rendered set of objects (one overlay). */
export class ManifestIndex {
  constructor(readonly objects: readonly K8sObject[]) {}

  find(kind: string, namespace: string | undefined, name: string): K8sObject | undefined {
    return this.objects.find(
      (o) =>
        o.kind === kind &&
        o.metadata.name === name &&
        (o.metadata.namespace ?? '') === (namespace ?? ''),
    );
  }

  ofKind(kind: string): K8sObject[] {
    return this.objects.filter((o) => o.kind === kind);
  }

  /** Workloads whose pod template labels satisfy `selector` (matchLabels / matchExpressions). */
  workloadsSelectedBy(namespace: string | undefined, selector: unknown): K8sObject[] {
    return this.objects.filter((o) => {
      const t = podTemplateOf(o);
      if (!t || (o.metadata.namespace ?? '') !== (namespace ?? '')) return false;
      const labels = (isObject(t.metadata) ? t.metadata.labels : undefined) as
        Record<string, string> | undefined;
      return selects(selector, labels ?? {});
    });
  }
}

/** Label selector semantics: a plain map (Service) or matchLabels + matchExpressions. */
export function selects(selector: unknown, labels: Record<string, string>): boolean {
  if (!isObject(selector)) return false;
  const isLabelSelector = 'matchLabels' in selector || 'matchExpressions' in selector;
  const match = (isLabelSelector ? selector.matchLabels : selector) as
    Record<string, string> | undefined;
  for (const [k, v] of Object.entries(match ?? {})) if (labels[k] !== v) return false;
  const exprs = isLabelSelector ? selector.matchExpressions : undefined;
  for (const e of Array.isArray(exprs) ? exprs : []) {
    if (!isObject(e) || typeof e.key !== 'string') return false;
    const values = Array.isArray(e.values) ? (e.values as string[]) : [];
    const has = e.key in labels;
    const value = labels[e.key] ?? '';
    const ok =
      e.operator === 'In'
        ? has && values.includes(value)
        : e.operator === 'NotIn'
          ? !has || !values.includes(value)
          : e.operator === 'Exists'
            ? has
            : e.operator === 'DoesNotExist'
              ? !has
              : false;
    if (!ok) return false;
  }
  return true;
}

/** Does a container declare `port` (a number or a port name)? Returns the container port. */
export function containerPort(container: JsonObject, port: unknown): number | undefined {
  const ports = Array.isArray(container.ports) ? container.ports.filter(isObject) : [];
  const hit = ports.find(
    (p) => p.containerPort === port || (typeof port === 'string' && p.name === port),
  );
  return typeof hit?.containerPort === 'number' ? hit.containerPort : undefined;
}

/** The first container of a workload declaring `port`, with its number. */
export function workloadPort(workload: K8sObject, port: unknown): number | undefined {
  const t = podTemplateOf(workload);
  if (!t) return undefined;
  for (const { list, container } of containersOf(t)) {
    if (list !== 'containers') continue;
    const n = containerPort(container, port);
    if (n !== undefined) return n;
  }
  return undefined;
}

/**
 * A container's environment as the process would see it: literal values, `$(VAR)` expanded,
 * and values from Secrets/ConfigMaps replaced by `placeholder` (their content is the
 * operator's, not the manifest's).
 */
export function containerEnv(
  container: JsonObject,
  placeholder = 'from-secret',
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const e of Array.isArray(container.env) ? container.env.filter(isObject) : []) {
    if (typeof e.name !== 'string') continue;
    if (typeof e.value === 'string')
      env[e.name] = e.value.replace(
        /\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g,
        (m, v: string) => env[v] ?? m,
      );
    else if (isObject(e.valueFrom)) env[e.name] = placeholder;
  }
  return env;
}

/** `command` + `args` of a container as one argv. */
export function containerArgv(container: JsonObject): string[] {
  const list = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);
  return [...list(container.command), ...list(container.args)];
}
