/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- rendered manifests are untyped JSON by nature */
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ERROR_TABLE } from '@mesh/errors';
import { appSurfaces, TRITON_HTTP_GET_PATHS } from './app-surface';
import { containersOf, podTemplateOf, type K8sObject } from './k8s-object';
import { KustomizeRenderer } from './kustomize.renderer';
import { crossCheck } from './manifest.cross-checks';
import { validateObjects } from './manifest.validator';
import { exportedMetricNames, referencedMetricNames, unknownMetricNames } from './metric-names';

const ROOT = join(__dirname, '..', '..');
const K8S = join(ROOT, 'deploy', 'k8s');
const OVERLAYS = readdirSync(join(K8S, 'overlays')).sort();
const render = (dir: string) => new KustomizeRenderer().render(dir);
const get = (objects: K8sObject[], kind: string, name: string) =>
  objects.find((o) => o.kind === kind && o.metadata.name === name) as any;
const triton = (objects: K8sObject[]) => get(objects, 'StatefulSet', 'triton');
const mainContainer = (o: any) => o.spec.template.spec.containers[0];
/** Overlays that run the bundled Redis (base/redis.yaml). */
const BUNDLED_REDIS = ['cpu', 'gpu'];
/** Overlays for an external Redis, with the mode's keys in the operator's Secret mesh-redis. */
const EXTERNAL_REDIS: [string, string[]][] = [
  ['redis-cluster', ['REDIS_CLUSTER_NODES']],
  ['redis-sentinel', ['REDIS_SENTINELS', 'REDIS_SENTINEL_MASTER', 'REDIS_SENTINEL_PASSWORD']],
];
const REDIS_APPS = ['router', 'batch-worker', 'coordinator'];

interface AlertRule {
  alert: string;
  expr: string;
  labels: { severity: string };
  annotations: { summary?: unknown; description?: unknown };
}

/** The codes a query matches mesh_router_requests_total's `outcome` against (`=` or `=~`). */
function routerOutcomesOf(query: string): string[] {
  return [
    ...query.matchAll(/mesh_router_requests_total\{[^}]*outcome=~?\\?"([^"\\]+)\\?"/g),
  ].flatMap((m) => (m[1] as string).split('|'));
}

describe('deploy/k8s overlays', () => {
  it('has the cpu and gpu overlays, and the external Redis Cluster and Sentinel ones', () => {
    expect(OVERLAYS).toEqual(['cpu', 'gpu', 'redis-cluster', 'redis-sentinel']);
    expect([...BUNDLED_REDIS, ...EXTERNAL_REDIS.map(([o]) => o)].sort()).toEqual(OVERLAYS);
  });

  describe.each(OVERLAYS)('overlay %s', (overlay) => {
    const objects = render(join(K8S, 'overlays', overlay));

    it('renders, and every object validates against its Kubernetes API schema', () => {
      expect(objects.length).toBeGreaterThan(20);
      expect(validateObjects(objects)).toEqual([]);
    });

    it('passes every cross-check', () => {
      expect(crossCheck(objects)).toEqual([]);
    });

    it('runs Triton in explicit mode, starting empty for the placer, non-strict readiness, probed on /v2/health/*', () => {
      const c = mainContainer(triton(objects));
      expect(c.args).toEqual(
        expect.arrayContaining(['--model-control-mode=explicit', '--strict-readiness=false']),
      );
      expect(c.args.filter((a: string) => a.startsWith('--load-model'))).toEqual([]);
      expect(c.readinessProbe.httpGet.path).toBe('/v2/health/ready');
      expect(c.livenessProbe.httpGet.path).toBe('/v2/health/live');
      expect(get(objects, 'Service', 'triton').spec.clusterIP).toBe('None');
    });

    it('gives every workload container requests, limits and a locked-down securityContext', () => {
      for (const o of objects) {
        const t = podTemplateOf(o) as any;
        if (!t) continue;
        expect([o.metadata.name, t.spec.securityContext.runAsNonRoot]).toEqual([
          o.metadata.name,
          true,
        ]);
        for (const { container } of containersOf(t)) {
          const c = container as any;
          const id = `${o.metadata.name}/${c.name}`;
          expect([id, Object.keys(c.resources.requests).sort()]).toEqual([
            id,
            expect.arrayContaining(['cpu', 'memory']),
          ]);
          expect([id, c.resources.limits.memory]).toEqual([id, expect.any(String)]);
          expect([id, c.securityContext]).toEqual([
            id,
            expect.objectContaining({
              allowPrivilegeEscalation: false,
              readOnlyRootFilesystem: true,
              capabilities: { drop: ['ALL'] },
            }),
          ]);
        }
      }
    });

    it('labels everything app.kubernetes.io/* and has a PDB for every long-running app', () => {
      for (const o of objects)
        expect([o.kind, o.metadata.name, o.metadata.labels?.['app.kubernetes.io/part-of']]).toEqual(
          [o.kind, o.metadata.name, 'model-mesh'],
        );
      const pdbs = objects
        .filter((o) => o.kind === 'PodDisruptionBudget')
        .map((o) => o.metadata.name);
      expect(pdbs.sort()).toEqual(['batch-worker', 'coordinator', 'router', 'triton']);
    });
  });

  describe.each(BUNDLED_REDIS)('overlay %s (bundled Redis)', (overlay) => {
    const objects = render(join(K8S, 'overlays', overlay));

    it('runs Redis with AOF, a password and noeviction', () => {
      const redis = get(objects, 'StatefulSet', 'redis');
      const conf = Object.values(
        objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('redis-config'))
          ?.data as Record<string, string>,
      ).join('\n');
      expect(conf).toMatch(/^appendonly yes$/m);
      expect(conf).toMatch(/^maxmemory-policy noeviction$/m);
      expect(mainContainer(redis).command).toEqual(
        expect.arrayContaining(['--requirepass', '$(REDIS_PASSWORD)']),
      );
    });
  });

  describe.each(EXTERNAL_REDIS)('overlay %s (external Redis)', (overlay, modeKeys) => {
    const objects = render(join(K8S, 'overlays', overlay));
    const cpu = render(join(K8S, 'overlays', 'cpu'));
    const ids = (list: K8sObject[]) => list.map((o) => `${o.kind}/${o.metadata.name}`);

    it('is the cpu setup without the bundled Redis, plus an egress policy', () => {
      const mine = ids(objects);
      const gone = ids(cpu).filter((id) => !mine.includes(id));
      expect(gone.sort()).toEqual([
        expect.stringMatching(/^ConfigMap\/redis-config-[a-z0-9]{10}$/),
        'NetworkPolicy/redis-ingress',
        'Service/redis',
        'StatefulSet/redis',
      ]);
      expect(mine.filter((id) => !ids(cpu).includes(id))).toEqual(['NetworkPolicy/redis-egress']);
    });

    it('configures router, worker and coordinator for the mode, over TLS, from Secret mesh-redis', () => {
      const keys = ['REDIS_USERNAME', 'REDIS_PASSWORD', ...modeKeys];
      for (const app of REDIS_APPS) {
        const d = get(objects, 'Deployment', app);
        const env = mainContainer(d).env as any[];
        const byName = (name: string) => env.find((e) => e.name === name);
        expect([app, byName('REDIS_URL')]).toEqual([app, undefined]);
        expect([app, byName('REDIS_TLS')?.value]).toEqual([app, 'true']);
        for (const key of keys)
          expect([app, byName(key)?.valueFrom?.secretKeyRef]).toEqual([
            app,
            expect.objectContaining({ name: 'mesh-redis', key }),
          ]);
        expect(JSON.parse(d.metadata.annotations['model-mesh/operator-secrets'])).toEqual({
          'mesh-redis': keys,
        });
      }
      // The operator creates mesh-redis; no credentials of it are in git.
      expect(objects.filter((o) => o.metadata.name.startsWith('mesh-redis'))).toEqual([]);
    });

    it('lets the apps out to DNS, their namespace and the (placeholder) Redis addresses only', () => {
      const policy = get(objects, 'NetworkPolicy', 'redis-egress');
      expect(policy.spec.policyTypes).toEqual(['Egress']);
      expect(policy.spec.podSelector.matchExpressions[0].values.sort()).toEqual(
        [...REDIS_APPS].sort(),
      );
      const redis = policy.spec.egress.find((r: any) => r.to[0].ipBlock);
      expect(redis.to[0].ipBlock.cidr).toBe('192.0.2.0/24');
      expect(redis.ports.map((p: any) => p.port).sort()).toEqual(
        overlay === 'redis-sentinel' ? [26379, 6379] : [6379],
      );
      const dns = policy.spec.egress.find((r: any) => r.ports?.some((p: any) => p.port === 53));
      expect(dns.to[0].podSelector.matchLabels).toEqual({ 'k8s-app': 'kube-dns' });
    });
  });

  it('gpu: Triton gets a GPU and tolerations, and models are published with KIND_GPU', () => {
    const gpu = render(join(K8S, 'overlays', 'gpu'));
    const cpu = render(join(K8S, 'overlays', 'cpu'));
    const t = triton(gpu);
    expect(mainContainer(t).resources.limits['nvidia.com/gpu']).toBe(1);
    expect(t.spec.template.spec.tolerations).toEqual([
      { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' },
    ]);
    const kind = (objects: K8sObject[]) =>
      mainContainer(get(objects, 'Job', 'model-publish')).env.find(
        (e: any) => e.name === 'INSTANCE_KIND',
      ).value;
    expect(kind(gpu)).toBe('KIND_GPU');
    expect(kind(cpu)).toBe('KIND_CPU');
    expect(mainContainer(triton(cpu)).resources.limits['nvidia.com/gpu']).toBeUndefined();
  });

  it('seeds the routing table from a copy identical to deploy/config/mesh.yaml', () => {
    expect(readFileSync(join(K8S, 'base', 'mesh.yaml'), 'utf8')).toBe(
      readFileSync(join(ROOT, 'deploy', 'config', 'mesh.yaml'), 'utf8'),
    );
  });

  it('uses only metric names the apps export (dashboard, KEDA query, adapter and alert rules)', () => {
    const exported = exportedMetricNames();
    expect(exported).toContain('mesh_router_requests_total');
    expect(exported).toContain('nv_inference_queue_duration_us');
    const sources = [
      join(K8S, 'base', 'dashboards', 'model-mesh.json'),
      join(K8S, 'base', 'batch-worker.yaml'),
      join(K8S, 'base', 'triton.yaml'),
      join(K8S, 'monitoring', 'prometheus-adapter-rules.yaml'),
      join(K8S, 'base', 'alert-rules.yaml'),
    ];
    for (const file of sources) {
      const names = referencedMetricNames(readFileSync(file, 'utf8'));
      expect([file, unknownMetricNames(names, exported)]).toEqual([file, []]);
    }
    expect(unknownMetricNames(['mesh_router_request_duration_seconds_bucket'], exported)).toEqual(
      [],
    );
    expect(unknownMetricNames(['mesh_router_requests'], exported)).toEqual([
      'mesh_router_requests',
    ]);
  });

  it('lays the dashboard out without clashes and charts the worker queue and the rollouts', () => {
    const text = readFileSync(join(K8S, 'base', 'dashboards', 'model-mesh.json'), 'utf8');
    const panels = (JSON.parse(text) as { panels: any[] }).panels;
    expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length);
    // No two panels share a grid cell (Grafana would push one of them elsewhere).
    const cells = new Set<string>();
    for (const { gridPos: g } of panels) {
      for (let x = g.x; x < g.x + g.w; x++)
        for (let y = g.y; y < g.y + g.h; y++) {
          expect(cells.has(`${x},${y}`)).toBe(false);
          cells.add(`${x},${y}`);
        }
      expect(g.x + g.w).toBeLessThanOrEqual(24);
    }
    expect([...referencedMetricNames(text)]).toEqual(
      expect.arrayContaining([
        'mesh_worker_queue_depth',
        'mesh_rollout_state_code',
        'mesh_rollout_step',
        'mesh_rollout_new_version_weight',
        'mesh_rollout_gate_evaluations_total',
        'mesh_coordinator_leader',
      ]),
    );
  });

  describe('alert rules (base/alert-rules.yaml)', () => {
    const rules = (
      get(render(join(K8S, 'base')), 'PrometheusRule', 'model-mesh') as {
        spec: { groups: { rules: AlertRule[] }[] };
      }
    ).spec.groups.flatMap((g) => g.rules);
    const exported = exportedMetricNames();
    const dashboard = readFileSync(join(K8S, 'base', 'dashboards', 'model-mesh.json'), 'utf8');

    it('alerts on error rate, p99, refusals, cold starts, bulk queues and placement budget', () => {
      expect(rules.map((r) => r.alert)).toEqual(
        expect.arrayContaining([
          'MeshRouterErrorRate',
          'MeshRouterLatencyP99',
          'MeshRouterRefusals',
          'MeshColdStartTimeouts',
          'MeshBulkQueueBacklog',
          'MeshBulkQueueStalled',
          'MeshPlacementNearBudget',
          'MeshPlacementOverBudget',
        ]),
      );
      expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
      for (const r of rules) {
        expect([r.alert, ['critical', 'warning', 'info'].includes(r.labels.severity)]).toEqual([
          r.alert,
          true,
        ]);
        expect([r.alert, typeof r.annotations.summary, typeof r.annotations.description]).toEqual([
          r.alert,
          'string',
          'string',
        ]);
      }
    });

    it('names in each expression only metrics an app exports', () => {
      for (const r of rules) {
        const names = referencedMetricNames(r.expr);
        expect([r.alert, names.size > 0]).toEqual([r.alert, true]);
        expect([r.alert, unknownMetricNames(names, exported)]).toEqual([r.alert, []]);
      }
    });

    it('matches mesh_router_requests_total outcomes only against error codes the table has', () => {
      const codes = [...rules.map((r) => r.expr), dashboard].flatMap(routerOutcomesOf);
      expect(codes.length).toBeGreaterThan(5);
      const known = new Set<string>([...Object.keys(ERROR_TABLE), 'ok']);
      expect(codes.filter((c) => !known.has(c))).toEqual([]);
    });

    it('charts refusals on the dashboard with the codes the refusal alert counts', () => {
      const panels = (JSON.parse(dashboard) as { panels: any[] }).panels;
      const panel = panels.find((p) => p.title === 'Router refusals per second by code');
      const alert = rules.find((r) => r.alert === 'MeshRouterRefusals')!;
      expect(routerOutcomesOf(panel.targets[0].expr).sort()).toEqual(
        routerOutcomesOf(alert.expr).sort(),
      );
    });
  });

  it('asks the Triton HPA only for metrics the Prometheus adapter rules define', () => {
    const rules = parseAllDocuments(
      readFileSync(join(K8S, 'monitoring', 'prometheus-adapter-rules.yaml'), 'utf8'),
    )[0]?.toJSON() as { rules: { custom: { name: { as: string } }[] } };
    const defined = rules.rules.custom.map((r) => r.name.as);
    const hpa = get(render(join(K8S, 'base')), 'HorizontalPodAutoscaler', 'triton');
    const asked = hpa.spec.metrics.map((m: any) => m.pods.metric.name);
    expect(asked.length).toBeGreaterThan(0);
    for (const name of asked) expect(defined).toContain(name);
  });

  it('derives probe paths from the apps: health routes exist, and the host mirrors Triton', () => {
    const s = appSurfaces();
    for (const app of ['router', 'batch-worker', 'coordinator', 'model-host'] as const) {
      expect(s[app].httpGetPaths).toEqual(
        expect.arrayContaining(['/healthz/live', '/healthz/ready']),
      );
    }
    expect(s['model-host'].httpGetPaths).toEqual(
      expect.arrayContaining([...TRITON_HTTP_GET_PATHS]),
    );
  });

  const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  // An extra check where kubectl is installed: its kustomize must render the same objects.
  (kubectl.status === 0 ? it : it.skip).each(['base', ...OVERLAYS.map((o) => `overlays/${o}`)])(
    'renders %s exactly as `kubectl kustomize` does',
    (dir) => {
      const theirs = parseAllDocuments(
        execFileSync('kubectl', ['kustomize', join(K8S, dir)], { encoding: 'utf8' }),
      ).map((d) => d.toJSON() as K8sObject);
      const key = (o: K8sObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
      const sorted = (list: K8sObject[]) =>
        [...list].sort((a, b) => key(a).localeCompare(key(b))).map(canonical);
      expect(sorted(render(join(K8S, dir)))).toEqual(sorted(theirs));
    },
  );
});

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
  );
}
