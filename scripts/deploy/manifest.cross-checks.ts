import { tmpdir } from 'node:os';
import { parseHostPort } from '../../libs/config/src/redis-endpoint';
import {
  appSurfaces,
  meshAppOf,
  servesPath,
  TRITON_HTTP_GET_PATHS,
  type MeshApp,
} from './app-surface';
import {
  containersOf,
  isObject,
  objectId,
  podTemplateOf,
  type JsonObject,
  type K8sObject,
} from './k8s-object';
import { parseImage } from './kustomize.transformers';
import {
  containerArgv,
  containerEnv,
  containerPort,
  ManifestIndex,
  selects,
  workloadPort,
} from './manifest.index';

export type CheckName =
  | 'backend-addresses'
  | 'autoscaling'
  | 'references'
  | 'image-tags'
  | 'probes'
  | 'app-config'
  | 'redis'
  | 'selectors';

export interface CheckProblem {
  check: CheckName;
  object: string;
  message: string;
}

type Report = (message: string) => void;

/** The app's shutdown deadline (runMain's default): the grace period must cover it. */
const APP_SHUTDOWN_DEADLINE_S = 10;

/** The apps that keep their state in Redis (the model host has none). */
const REDIS_APPS: ReadonlySet<MeshApp> = new Set(['router', 'batch-worker', 'coordinator']);

/** The variables that each name one Redis mode (libs/config/src/redis-endpoint.ts). */
const REDIS_MODE_VARIABLES = ['REDIS_URL', 'REDIS_CLUSTER_NODES', 'REDIS_SENTINELS'] as const;

/**
 * Annotation on a workload that documents the Secrets the operator creates outside these
 * manifests (a managed Redis's credentials and endpoints), as JSON `{"<Secret>": ["<key>", ...]}`.
 * A reference to such a Secret must name one of its documented keys.
 */
export const OPERATOR_SECRETS_ANNOTATION = 'model-mesh/operator-secrets';

/**
 * Valid stand-ins for values from Secrets whose format the app's config loader checks (the
 * value itself is the operator's): the loader judges the rest of the environment.
 */
const SECRET_STAND_INS: Readonly<Record<string, string>> = {
  REDIS_URL: 'rediss://from-secret.invalid:6379',
  REDIS_CLUSTER_NODES: 'from-secret.invalid:6379',
  REDIS_SENTINELS: 'from-secret.invalid:26379',
};

/**
 * Checks across objects that schema validation cannot see, each aimed at a way these
 * manifests failed before: backends that name nothing, HPAs without requests, missing
 * volumes/Secrets/ConfigMaps, floating image tags, probes on paths no app serves.
 */
export function crossCheck(objects: readonly K8sObject[]): CheckProblem[] {
  const index = new ManifestIndex(objects);
  const problems: CheckProblem[] = [];
  for (const o of objects) {
    const report =
      (check: CheckName): Report =>
      (message) =>
        problems.push({ check, object: objectId(o), message });
    const template = podTemplateOf(o);
    if (template) {
      checkReferences(index, o, template, report('references'));
      for (const { list, container } of containersOf(template)) {
        const where = `${list === 'initContainers' ? 'init container' : 'container'} ${String(container.name)}`;
        const r =
          (check: CheckName): Report =>
          (m) =>
            report(check)(`${where}: ${m}`);
        checkImage(container, r('image-tags'));
        checkBackends(index, o, container, r('backend-addresses'));
        if (list === 'containers') {
          checkRedisMode(container, r('redis'));
          checkProbes(container, r('probes'), r('app-config'));
          checkGracePeriod(template, container, r('probes'));
        }
      }
    }
    if (o.kind === 'HorizontalPodAutoscaler') checkHpa(index, o, report('autoscaling'));
    if (o.kind === 'ScaledObject') checkScaledObject(index, o, report('autoscaling'));
    checkSelectors(index, o, report('selectors'));
  }
  return problems;
}

function checkImage(container: JsonObject, report: Report): void {
  if (typeof container.image !== 'string') return report('has no image');
  const img = parseImage(container.image);
  if (img.digest) return;
  if (!img.tag) report(`image ${container.image} has no tag (pulls "latest")`);
  else if (img.tag === 'latest') report(`image ${container.image} uses the floating tag "latest"`);
}

function checkBackends(
  index: ManifestIndex,
  o: K8sObject,
  container: JsonObject,
  report: Report,
): void {
  const env = containerEnv(container);
  const ns = o.metadata.namespace;
  for (const address of (env.KSERVE_ENDPOINTS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^(.+):(\d+)$/.exec(address);
    if (!m) report(`KSERVE_ENDPOINTS entry ${address} is not host:port`);
    else
      resolveAddress(
        index,
        ns,
        m[1] as string,
        Number(m[2]),
        `KSERVE_ENDPOINTS ${address}`,
        report,
      );
  }
  // A URL from a Secret is the operator's: only a literal one (possibly with $(VAR)s) is checked.
  if (env.REDIS_URL && literalEnv(container, 'REDIS_URL') !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(env.REDIS_URL);
    } catch {
      report(`REDIS_URL ${env.REDIS_URL} is not a URL`);
    }
    if (url) resolveAddress(index, ns, url.hostname, Number(url.port || 6379), 'REDIS_URL', report);
  }
  for (const variable of ['REDIS_CLUSTER_NODES', 'REDIS_SENTINELS'] as const) {
    const value = literalEnv(container, variable);
    for (const entry of (value ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const node = parseHostPort(entry);
      if (!node) report(`${variable} entry ${entry} is not host:port`);
      else if (inCluster(index, node.host))
        resolveAddress(index, ns, node.host, node.port, `${variable} ${entry}`, report);
    }
  }
}

/**
 * Does a Redis node's host name something of the cluster (checked against these manifests)?
 * Names of one or two labels, `<pod>.<service>.<namespace of these manifests>` and names ending
 * in `.svc(.cluster.local)` do; IPs and other names are outside (a managed Redis), not checked.
 */
function inCluster(index: ManifestIndex, host: string): boolean {
  if (/^[\d.]+$/.test(host) || host.includes(':')) return false;
  if (/\.svc(\.cluster\.local)?$/.test(host)) return true;
  const parts = host.split('.');
  if (parts.length <= 2) return true;
  return parts.length === 3 && index.ofKind('Namespace').some((n) => n.metadata.name === parts[2]);
}

/** A variable's literal `value` (undefined when unset or from a Secret/ConfigMap). */
function literalEnv(container: JsonObject, name: string): string | undefined {
  const e = (Array.isArray(container.env) ? container.env.filter(isObject) : []).find(
    (x) => x.name === name,
  );
  return typeof e?.value === 'string' ? e.value : undefined;
}

/**
 * Every app that keeps its state in Redis names exactly one Redis mode: none falls back to
 * redis://127.0.0.1:6379 (inside its own pod), two are a manifest that patched one mode in and
 * left the other.
 */
function checkRedisMode(container: JsonObject, report: Report): void {
  const app = meshAppOf(containerArgv(container));
  if (!app || !REDIS_APPS.has(app)) return;
  const env = containerEnv(container);
  const named = REDIS_MODE_VARIABLES.filter((v) => env[v] !== undefined);
  if (named.length === 0)
    report(
      `names no Redis mode (${REDIS_MODE_VARIABLES.join(', ')}): the ${app} would use redis://127.0.0.1:6379 in its own pod`,
    );
  else if (named.length > 1)
    report(`names ${named.length} Redis modes (${named.join(' and ')}): name exactly one`);
}

/** A cluster DNS name → the Service (or StatefulSet pod behind a headless Service) it names. */
function resolveAddress(
  index: ManifestIndex,
  ownNs: string | undefined,
  host: string,
  port: number,
  what: string,
  report: Report,
): void {
  const parts = host.replace(/\.svc(\.cluster\.local)?$/, '').split('.');
  const [a, b, c] = parts;
  if (parts.length === 1 || (parts.length === 2 && index.find('Service', b, a as string))) {
    const ns = parts.length === 2 ? b : ownNs;
    const svc = index.find('Service', ns, a as string);
    if (!svc) return report(`${what}: no Service ${a} in namespace ${ns}`);
    const ports = Array.isArray(svc.spec && (svc.spec as JsonObject).ports)
      ? ((svc.spec as JsonObject).ports as JsonObject[])
      : [];
    const sp = ports.find((p) => p.port === port);
    if (!sp) return report(`${what}: Service ${a} has no port ${port}`);
    const target = sp.targetPort ?? sp.port;
    const pods = index.workloadsSelectedBy(ns, (svc.spec as JsonObject).selector);
    if (!pods.some((w) => workloadPort(w, target) !== undefined))
      report(
        `${what}: no pod behind Service ${a} listens on its port ${port} (target ${String(target)})`,
      );
    return;
  }
  if (parts.length === 2 || parts.length === 3) {
    const ns = parts.length === 3 ? c : ownNs;
    const svc = index.find('Service', ns, b as string);
    if (!svc) return report(`${what}: ${host} names no Service ${b} in namespace ${ns}`);
    if ((svc.spec as JsonObject).clusterIP !== 'None')
      return report(
        `${what}: ${host} needs Service ${b} to be headless (pod DNS names exist only then)`,
      );
    const sts = index
      .ofKind('StatefulSet')
      .find(
        (s) =>
          (s.metadata.namespace ?? '') === (ns ?? '') && (s.spec as JsonObject).serviceName === b,
      );
    if (!sts) return report(`${what}: no StatefulSet governs Service ${b}, so ${a}.${b} is no pod`);
    const m = new RegExp(`^${sts.metadata.name}-(\\d+)$`).exec(a as string);
    const max = maxPods(index, sts);
    if (!m || Number(m[1]) >= max)
      return report(
        `${what}: ${a} is not a pod of StatefulSet ${sts.metadata.name} (at most ${max} pods: ${sts.metadata.name}-0 .. -${max - 1})`,
      );
    if (workloadPort(sts, port) === undefined)
      report(`${what}: pods of StatefulSet ${sts.metadata.name} do not listen on port ${port}`);
    return;
  }
  report(`${what}: ${host} is not a Service or pod name of these manifests`);
}

/** Replicas, or the HPA's maxReplicas when one scales it. */
function maxPods(index: ManifestIndex, workload: K8sObject): number {
  const replicas = Number((workload.spec as JsonObject).replicas ?? 1);
  const hpa = index.ofKind('HorizontalPodAutoscaler').find((h) => {
    const ref = (h.spec as JsonObject).scaleTargetRef as JsonObject;
    return ref.kind === workload.kind && ref.name === workload.metadata.name;
  });
  return Math.max(replicas, Number((hpa?.spec as JsonObject | undefined)?.maxReplicas ?? 0));
}

function checkHpa(index: ManifestIndex, hpa: K8sObject, report: Report): void {
  const spec = hpa.spec as JsonObject;
  const ref = spec.scaleTargetRef as JsonObject;
  const target = index.find(String(ref.kind), hpa.metadata.namespace, String(ref.name));
  if (!target)
    return report(`scaleTargetRef ${String(ref.kind)}/${String(ref.name)} does not exist`);
  const template = podTemplateOf(target);
  for (const metric of Array.isArray(spec.metrics) ? spec.metrics.filter(isObject) : []) {
    if (metric.type !== 'Resource' || !isObject(metric.resource)) continue;
    const resource = String(metric.resource.name);
    for (const { list, container } of template ? containersOf(template) : []) {
      if (list !== 'containers') continue;
      const requests = isObject(container.resources) ? container.resources.requests : undefined;
      if (!isObject(requests) || requests[resource] === undefined)
        report(
          `scales on ${resource} but container ${String(container.name)} of ${objectId(target)} requests no ${resource} (the HPA cannot compute utilisation)`,
        );
    }
  }
}

function checkScaledObject(index: ManifestIndex, so: K8sObject, report: Report): void {
  const ref = (so.spec as JsonObject).scaleTargetRef as JsonObject;
  const kind = typeof ref.kind === 'string' ? ref.kind : 'Deployment';
  if (!index.find(kind, so.metadata.namespace, String(ref.name)))
    report(`scaleTargetRef ${kind}/${String(ref.name)} does not exist`);
}

function checkReferences(
  index: ManifestIndex,
  o: K8sObject,
  template: JsonObject,
  report: Report,
): void {
  const ns = o.metadata.namespace;
  const spec = template.spec as JsonObject;
  const volumes = Array.isArray(spec.volumes) ? spec.volumes.filter(isObject) : [];
  const claimTemplates =
    o.kind === 'StatefulSet' && Array.isArray((o.spec as JsonObject).volumeClaimTemplates)
      ? ((o.spec as JsonObject).volumeClaimTemplates as JsonObject[]).map((c) =>
          String((c.metadata as JsonObject).name),
        )
      : [];
  const dataKeys = (kind: string, name: string): string[] | undefined => {
    const obj = index.find(kind, ns, name);
    if (!obj) return undefined;
    return [
      ...Object.keys((obj.data as JsonObject | undefined) ?? {}),
      ...Object.keys((obj.stringData as JsonObject | undefined) ?? {}),
    ];
  };
  const operatorSecrets = operatorSecretsOf(o, report);
  const need = (kind: string, name: unknown, key?: unknown, what = '') => {
    const documented = kind === 'Secret' ? operatorSecrets[text(name)] : undefined;
    if (documented && !index.find(kind, ns, text(name))) {
      if (key !== undefined && !documented.includes(text(key)))
        report(
          `${what}Secret ${text(name)} (created by the operator) has no documented key ${text(key)} (${OPERATOR_SECRETS_ANNOTATION}: ${documented.join(', ')})`,
        );
      return;
    }
    const keys = dataKeys(kind, text(name));
    if (!keys) return report(`${what}${kind} ${text(name)} does not exist`);
    if (key !== undefined && !keys.includes(text(key)))
      report(`${what}${kind} ${text(name)} has no key ${text(key)}`);
  };
  for (const v of volumes) {
    if (isObject(v.persistentVolumeClaim)) {
      const claim = String(v.persistentVolumeClaim.claimName);
      if (!index.find('PersistentVolumeClaim', ns, claim))
        report(`volume ${String(v.name)}: PersistentVolumeClaim ${claim} does not exist`);
    }
    if (isObject(v.secret))
      need('Secret', v.secret.secretName, undefined, `volume ${String(v.name)}: `);
    if (isObject(v.configMap))
      need('ConfigMap', v.configMap.name, undefined, `volume ${String(v.name)}: `);
  }
  const volumeNames = new Set([...volumes.map((v) => String(v.name)), ...claimTemplates]);
  for (const { container } of containersOf(template)) {
    const c = `container ${String(container.name)}: `;
    for (const m of Array.isArray(container.volumeMounts)
      ? container.volumeMounts.filter(isObject)
      : [])
      if (!volumeNames.has(String(m.name)))
        report(`${c}mounts volume ${String(m.name)}, which the pod does not define`);
    for (const e of Array.isArray(container.env) ? container.env.filter(isObject) : []) {
      const from = isObject(e.valueFrom) ? e.valueFrom : undefined;
      if (isObject(from?.secretKeyRef))
        need(
          'Secret',
          from.secretKeyRef.name,
          from.secretKeyRef.key,
          `${c}env ${String(e.name)}: `,
        );
      if (isObject(from?.configMapKeyRef))
        need(
          'ConfigMap',
          from.configMapKeyRef.name,
          from.configMapKeyRef.key,
          `${c}env ${String(e.name)}: `,
        );
    }
    for (const e of Array.isArray(container.envFrom) ? container.envFrom.filter(isObject) : []) {
      if (isObject(e.secretRef)) need('Secret', e.secretRef.name, undefined, `${c}envFrom: `);
      if (isObject(e.configMapRef))
        need('ConfigMap', e.configMapRef.name, undefined, `${c}envFrom: `);
    }
  }
}

/** The operator's Secrets a workload documents (OPERATOR_SECRETS_ANNOTATION): name → keys. */
function operatorSecretsOf(o: K8sObject, report: Report): Record<string, string[]> {
  const raw = o.metadata.annotations?.[OPERATOR_SECRETS_ANNOTATION];
  if (raw === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  if (
    !isObject(parsed) ||
    !Object.values(parsed).every((v) => Array.isArray(v) && v.every((k) => typeof k === 'string'))
  ) {
    report(`annotation ${OPERATOR_SECRETS_ANNOTATION} is not JSON {"<Secret>": ["<key>", ...]}`);
    return {};
  }
  return parsed as Record<string, string[]>;
}

function checkProbes(container: JsonObject, report: Report, reportConfig: Report): void {
  const argv = containerArgv(container);
  const app = meshAppOf(argv);
  const image = typeof container.image === 'string' ? parseImage(container.image).name : '';
  const triton = image.endsWith('/tritonserver') || image === 'tritonserver';
  let appPort: number | undefined;
  if (app) {
    const scriptArgs = argv.slice(argv.findIndex((a) => a.includes('dist/apps/')) + 1);
    try {
      appPort = appSurfaces()[app].httpPort(withLocalMounts(container), scriptArgs);
    } catch (err: unknown) {
      reportConfig(
        `environment fails the ${app}'s own config validation: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
  for (const kind of ['startupProbe', 'readinessProbe', 'livenessProbe'] as const) {
    const probe = container[kind];
    if (!isObject(probe) || !isObject(probe.httpGet)) continue;
    const path = typeof probe.httpGet.path === 'string' ? probe.httpGet.path : '/';
    const port = containerPort(container, probe.httpGet.port);
    if (port === undefined) {
      report(`${kind} port ${String(probe.httpGet.port)} is not a port of the container`);
      continue;
    }
    if (app) {
      if (!servesPath(appSurfaces()[app].httpGetPaths, path))
        report(`${kind} path ${path} is not served by the ${app}`);
      if (appPort !== undefined && port !== appPort)
        report(`${kind} port ${port} is not the ${app}'s HTTP port ${appPort}`);
    } else if (triton) {
      const httpPort = Number(
        /^--http-port=(\d+)$/.exec(argv.find((a) => a.startsWith('--http-port=')) ?? '')?.[1] ??
          8000,
      );
      if (!(TRITON_HTTP_GET_PATHS as readonly string[]).includes(path))
        report(`${kind} path ${path} is not a Triton health endpoint`);
      if (port !== httpPort) report(`${kind} port ${port} is not Triton's HTTP port ${httpPort}`);
    } else {
      report(`${kind}: cannot tell what ${image} serves on ${path}`);
    }
  }
}

function checkGracePeriod(template: JsonObject, container: JsonObject, report: Report): void {
  if (!meshAppOf(containerArgv(container))) return;
  const grace = Number((template.spec as JsonObject).terminationGracePeriodSeconds ?? 30);
  const preStop =
    isObject(container.lifecycle) && isObject(container.lifecycle.preStop)
      ? container.lifecycle.preStop
      : undefined;
  const cmd =
    isObject(preStop?.exec) && Array.isArray(preStop.exec.command)
      ? preStop.exec.command.map(String)
      : [];
  const sleep = cmd[0] === 'sleep' ? Number(cmd[1] ?? 0) : 0;
  if (grace <= sleep + APP_SHUTDOWN_DEADLINE_S)
    report(
      `terminationGracePeriodSeconds ${grace} does not cover preStop (${sleep} s) plus the app's shutdown deadline (${APP_SHUTDOWN_DEADLINE_S} s)`,
    );
}

function checkSelectors(index: ManifestIndex, o: K8sObject, report: Report): void {
  const spec = isObject(o.spec) ? o.spec : {};
  const ns = o.metadata.namespace;
  if (o.kind === 'Service' && spec.selector) {
    const pods = index.workloadsSelectedBy(ns, spec.selector);
    if (pods.length === 0) return report('selector matches no pod template');
    for (const p of Array.isArray(spec.ports) ? spec.ports.filter(isObject) : []) {
      const target = p.targetPort ?? p.port;
      if (!pods.some((w) => workloadPort(w, target) !== undefined))
        report(
          `port ${String(p.name ?? p.port)}: no selected pod declares target port ${String(target)}`,
        );
    }
  }
  if (
    (o.kind === 'PodDisruptionBudget' || o.kind === 'NetworkPolicy') &&
    isObject(spec[o.kind === 'NetworkPolicy' ? 'podSelector' : 'selector'])
  ) {
    const sel = spec[o.kind === 'NetworkPolicy' ? 'podSelector' : 'selector'] as JsonObject;
    const empty =
      Object.keys((sel.matchLabels as JsonObject | undefined) ?? {}).length === 0 &&
      !Array.isArray(sel.matchExpressions);
    if (!empty && index.workloadsSelectedBy(ns, sel).length === 0)
      report('selector matches no pod template');
  }
  if (o.kind === 'ServiceMonitor') {
    const services = index
      .ofKind('Service')
      .filter(
        (s) =>
          (s.metadata.namespace ?? '') === (ns ?? '') &&
          selects(spec.selector, s.metadata.labels ?? {}),
      );
    if (services.length === 0) return report('selector matches no Service');
    for (const e of Array.isArray(spec.endpoints) ? spec.endpoints.filter(isObject) : []) {
      const named = services.some(
        (s) =>
          Array.isArray((s.spec as JsonObject).ports) &&
          ((s.spec as JsonObject).ports as JsonObject[]).some((p) => p.name === e.port),
      );
      if (!named)
        report(`endpoint port ${String(e.port)} is no named port of the selected Services`);
    }
  }
}

/**
 * The container's environment for its app's config loader run here: a value naming a volume's
 * mount path (e.g. MODEL_REPOSITORY=/models) points at an existing local directory instead, so
 * a loader that checks the directory exists judges the variable, not this machine's disk; a
 * value from a Secret that the loader parses (SECRET_STAND_INS) becomes a valid stand-in.
 */
function withLocalMounts(container: JsonObject): Record<string, string> {
  const env = containerEnv(container);
  const mounts = Array.isArray(container.volumeMounts)
    ? container.volumeMounts.filter(isObject).map((m) => m.mountPath)
    : [];
  for (const [k, v] of Object.entries(env)) if (mounts.includes(v)) env[k] = tmpdir();
  for (const e of Array.isArray(container.env) ? container.env.filter(isObject) : []) {
    const standIn = typeof e.name === 'string' ? SECRET_STAND_INS[e.name] : undefined;
    if (standIn !== undefined && isObject(e.valueFrom)) env[e.name as string] = standIn;
  }
  return env;
}

/** A scalar field for a message (objects never appear where these are read). */
function text(v: unknown): string {
  return typeof v === 'string' || typeof v === 'number' ? String(v) : JSON.stringify(v);
}
