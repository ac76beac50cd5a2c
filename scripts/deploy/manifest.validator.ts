import { ScaledObject, TriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1';
import {
  PrometheusRule,
  ServiceMonitor,
} from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { CronJob, Job } from 'kubernetes-models/batch/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import {
  ConfigMap,
  Namespace,
  PersistentVolumeClaim,
  Secret,
  Service,
  ServiceAccount,
} from 'kubernetes-models/v1';
import { objectId, type K8sObject } from './k8s-object';

interface Validatable {
  validate(): void;
}

/**
 * The API schemas objects are validated against (Kubernetes 1.27 from kubernetes-models 4.x,
 * KEDA and Prometheus Operator CRDs). A kind missing here is an error: add its model.
 */
const MODELS: Record<string, (o: K8sObject) => Validatable> = {
  'v1/Namespace': (o) => new Namespace(o),
  'v1/ConfigMap': (o) => new ConfigMap(o),
  'v1/Secret': (o) => new Secret(o),
  'v1/Service': (o) => new Service(o),
  'v1/ServiceAccount': (o) => new ServiceAccount(o),
  'v1/PersistentVolumeClaim': (o) => new PersistentVolumeClaim(o),
  'apps/v1/Deployment': (o) => new Deployment(o),
  'apps/v1/StatefulSet': (o) => new StatefulSet(o),
  'batch/v1/Job': (o) => new Job(o),
  'batch/v1/CronJob': (o) => new CronJob(o),
  'autoscaling/v2/HorizontalPodAutoscaler': (o) => new HorizontalPodAutoscaler(o),
  'policy/v1/PodDisruptionBudget': (o) => new PodDisruptionBudget(o),
  'networking.k8s.io/v1/NetworkPolicy': (o) => new NetworkPolicy(o),
  'keda.sh/v1alpha1/ScaledObject': (o) => new ScaledObject(o as never),
  'keda.sh/v1alpha1/TriggerAuthentication': (o) => new TriggerAuthentication(o as never),
  'monitoring.coreos.com/v1/ServiceMonitor': (o) => new ServiceMonitor(o as never),
  'monitoring.coreos.com/v1/PrometheusRule': (o) => new PrometheusRule(o as never),
};

export interface SchemaProblem {
  object: string;
  message: string;
}

/** Validates every object against its API schema; returns one problem per invalid object. */
export function validateObjects(objects: readonly K8sObject[]): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  for (const o of objects) {
    const model = MODELS[`${o.apiVersion}/${o.kind}`];
    if (!model) {
      problems.push({ object: objectId(o), message: `no schema for ${o.apiVersion} ${o.kind}` });
      continue;
    }
    try {
      model(withoutBase64LineBreaks(o)).validate();
    } catch (err: unknown) {
      problems.push({
        object: objectId(o),
        message: err instanceof Error ? err.message : String(err),
      });
    }
  }
  return problems;
}

/**
 * kustomize breaks long Secret data into lines; the API server's base64 decoder skips line
 * breaks, the schema's "byte" format does not. Validate the value the server decodes.
 */
function withoutBase64LineBreaks(o: K8sObject): K8sObject {
  if (o.kind !== 'Secret' || typeof o.data !== 'object' || o.data === null) return o;
  const data = Object.fromEntries(
    Object.entries(o.data as Record<string, unknown>).map(([k, v]) => [
      k,
      typeof v === 'string' ? v.replace(/\n/g, '') : v,
    ]),
  );
  return { ...o, data };
}
