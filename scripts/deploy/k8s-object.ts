/** One Kubernetes object as rendered: plain JSON, loosely typed beyond its identity. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: K8sMetadata;
  [field: string]: unknown;
}

export interface K8sMetadata {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [field: string]: unknown;
}

export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `Kind/namespace/name`, the identity used in messages. */
export function objectId(o: K8sObject): string {
  return `${o.kind}/${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
}

/** The API group of an apiVersion (`apps/v1` → `apps`, `v1` → ``). */
export function groupOf(apiVersion: string): string {
  return apiVersion.includes('/') ? (apiVersion.split('/')[0] ?? '') : '';
}

export function versionOf(apiVersion: string): string {
  return apiVersion.includes('/') ? (apiVersion.split('/')[1] ?? '') : apiVersion;
}

/** Kinds that carry a pod template at `spec.template`. */
export const POD_TEMPLATE_KINDS = new Set([
  'Deployment',
  'StatefulSet',
  'DaemonSet',
  'ReplicaSet',
  'Job',
  'ReplicationController',
]);

/** The pod template of a workload, or undefined for other kinds. */
export function podTemplateOf(o: K8sObject): JsonObject | undefined {
  const spec = o.spec;
  if (!isObject(spec)) return undefined;
  if (POD_TEMPLATE_KINDS.has(o.kind)) return isObject(spec.template) ? spec.template : undefined;
  if (o.kind === 'CronJob') {
    const job = spec.jobTemplate;
    if (isObject(job) && isObject(job.spec) && isObject(job.spec.template))
      return job.spec.template;
  }
  return undefined;
}

export interface ContainerRef {
  /** `containers` or `initContainers`. */
  list: 'containers' | 'initContainers';
  container: JsonObject;
}

/** Every container and init container of a pod template. */
export function containersOf(template: JsonObject): ContainerRef[] {
  const spec = template.spec;
  if (!isObject(spec)) return [];
  const out: ContainerRef[] = [];
  for (const list of ['initContainers', 'containers'] as const) {
    const items = spec[list];
    if (Array.isArray(items))
      for (const c of items) if (isObject(c)) out.push({ list, container: c });
  }
  return out;
}

/** Kinds that are not namespaced (the namespace transformer leaves them alone). */
export const CLUSTER_SCOPED_KINDS = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'PersistentVolume',
  'StorageClass',
  'PriorityClass',
  'IngressClass',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'ClusterTriggerAuthentication',
  'APIService',
]);
