import {
  CLUSTER_SCOPED_KINDS,
  containersOf,
  isObject,
  podTemplateOf,
  POD_TEMPLATE_KINDS,
  type JsonObject,
  type K8sObject,
} from './k8s-object';
import type { ImageOverride } from './kustomization.schema';

/** Sets the namespace of every namespaced object (kustomize's `namespace:`). */
export function applyNamespace(o: K8sObject, namespace: string): K8sObject {
  if (CLUSTER_SCOPED_KINDS.has(o.kind)) return o;
  return { ...o, metadata: { ...o.metadata, namespace } };
}

/**
 * Adds labels to every object's metadata; with `templates`, to pod templates and
 * StatefulSet volume claim templates; with `selectors`, to workload and Service selectors.
 */
export function applyLabels(
  o: K8sObject,
  pairs: Record<string, string>,
  selectors: boolean,
  templates: boolean,
): K8sObject {
  const out = structuredClone(o);
  out.metadata.labels = { ...out.metadata.labels, ...pairs };
  const spec = out.spec;
  if (!isObject(spec)) return out;
  if (templates) {
    const template = podTemplateOf(out);
    if (template) addLabels(template, pairs);
    if (out.kind === 'CronJob' && isObject(spec.jobTemplate)) addLabels(spec.jobTemplate, pairs);
    if (out.kind === 'StatefulSet' && Array.isArray(spec.volumeClaimTemplates))
      for (const claim of spec.volumeClaimTemplates) if (isObject(claim)) addLabels(claim, pairs);
  }
  if (selectors) {
    if (out.kind === 'Service') spec.selector = { ...(spec.selector as JsonObject), ...pairs };
    else if (POD_TEMPLATE_KINDS.has(out.kind) && out.kind !== 'Job') {
      const sel = isObject(spec.selector) ? spec.selector : (spec.selector = {});
      sel.matchLabels = { ...(sel.matchLabels as JsonObject), ...pairs };
    }
  }
  return out;
}

function addLabels(holder: JsonObject, pairs: Record<string, string>): void {
  const meta = isObject(holder.metadata) ? holder.metadata : (holder.metadata = {});
  meta.labels = { ...(meta.labels as JsonObject), ...pairs };
}

/** `registry:5000/name:tag@sha256:...` → its name, tag and digest. */
export function parseImage(image: string): { name: string; tag?: string; digest?: string } {
  const at = image.indexOf('@');
  const digest = at >= 0 ? image.slice(at + 1) : undefined;
  const rest = at >= 0 ? image.slice(0, at) : image;
  const slash = rest.lastIndexOf('/');
  const colon = rest.lastIndexOf(':');
  if (colon > slash) return { name: rest.slice(0, colon), tag: rest.slice(colon + 1), digest };
  return { name: rest, digest };
}

/** kustomize's `images:` (newName, newTag, digest) on every container and init container. */
export function applyImages(o: K8sObject, overrides: readonly ImageOverride[]): K8sObject {
  const out = structuredClone(o);
  const template = podTemplateOf(out);
  if (!template) return out;
  for (const { container } of containersOf(template)) {
    if (typeof container.image !== 'string') continue;
    const img = parseImage(container.image);
    const rule = overrides.find((r) => r.name === img.name);
    if (!rule) continue;
    const name = rule.newName ?? img.name;
    if (rule.digest) container.image = `${name}@${rule.digest}`;
    else {
      const tag = rule.newTag ?? img.tag;
      container.image = `${name}${tag ? `:${tag}` : ''}${img.digest ? `@${img.digest}` : ''}`;
    }
  }
  return out;
}

/**
 * Points references to generated ConfigMaps/Secrets at their hashed names. `renames` maps
 * `Kind/namespace/name` to the new name.
 */
export function rewriteNameRefs(o: K8sObject, renames: ReadonlyMap<string, string>): K8sObject {
  const template = podTemplateOf(o);
  if (!template) return o;
  const out = structuredClone(o);
  const t = podTemplateOf(out) as JsonObject;
  const ns = out.metadata.namespace ?? '';
  const rename = (kind: string, holder: JsonObject, field: string) => {
    const name = holder[field];
    if (typeof name !== 'string') return;
    const next = renames.get(`${kind}/${ns}/${name}`);
    if (next) holder[field] = next;
  };
  const spec = isObject(t.spec) ? t.spec : {};
  for (const v of Array.isArray(spec.volumes) ? spec.volumes : []) {
    if (!isObject(v)) continue;
    if (isObject(v.configMap)) rename('ConfigMap', v.configMap, 'name');
    if (isObject(v.secret)) rename('Secret', v.secret, 'secretName');
    const sources = isObject(v.projected) ? v.projected.sources : undefined;
    for (const s of Array.isArray(sources) ? sources : []) {
      if (!isObject(s)) continue;
      if (isObject(s.configMap)) rename('ConfigMap', s.configMap, 'name');
      if (isObject(s.secret)) rename('Secret', s.secret, 'name');
    }
  }
  for (const s of Array.isArray(spec.imagePullSecrets) ? spec.imagePullSecrets : [])
    if (isObject(s)) rename('Secret', s, 'name');
  for (const { container } of containersOf(t)) {
    for (const e of Array.isArray(container.env) ? container.env : []) {
      const from = isObject(e) ? e.valueFrom : undefined;
      if (!isObject(from)) continue;
      if (isObject(from.configMapKeyRef)) rename('ConfigMap', from.configMapKeyRef, 'name');
      if (isObject(from.secretKeyRef)) rename('Secret', from.secretKeyRef, 'name');
    }
    for (const e of Array.isArray(container.envFrom) ? container.envFrom : []) {
      if (!isObject(e)) continue;
      if (isObject(e.configMapRef)) rename('ConfigMap', e.configMapRef, 'name');
      if (isObject(e.secretRef)) rename('Secret', e.secretRef, 'name');
    }
  }
  return out;
}

const ORDER_FIRST = [
  'Namespace',
  'ResourceQuota',
  'StorageClass',
  'CustomResourceDefinition',
  'ServiceAccount',
  'PodSecurityPolicy',
  'Role',
  'ClusterRole',
  'RoleBinding',
  'ClusterRoleBinding',
  'ConfigMap',
  'Secret',
  'Endpoints',
  'Service',
  'LimitRange',
  'PriorityClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'Deployment',
  'StatefulSet',
  'CronJob',
  'PodDisruptionBudget',
];
const ORDER_LAST = ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'];

/** kustomize's legacy output order: what others depend on first (Namespace, config, ...). */
export function legacyOrder(objects: readonly K8sObject[]): K8sObject[] {
  const rank = (kind: string) => {
    const first = ORDER_FIRST.indexOf(kind);
    if (first >= 0) return first;
    const last = ORDER_LAST.indexOf(kind);
    return last >= 0 ? ORDER_FIRST.length + 1 + last : ORDER_FIRST.length;
  };
  return [...objects].sort(
    (a, b) =>
      rank(a.kind) - rank(b.kind) ||
      `${a.apiVersion}/${a.kind}`.localeCompare(`${b.apiVersion}/${b.kind}`) ||
      (a.metadata.namespace ?? '').localeCompare(b.metadata.namespace ?? '') ||
      a.metadata.name.localeCompare(b.metadata.name),
  );
}
