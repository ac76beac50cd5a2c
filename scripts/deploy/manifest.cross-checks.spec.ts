/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- rendered manifests are untyped JSON by nature */
import { join } from 'node:path';
import type { K8sObject } from './k8s-object';
import { KustomizeRenderer } from './kustomize.renderer';
import { crossCheck, type CheckName } from './manifest.cross-checks';
import { validateObjects } from './manifest.validator';

const OVERLAYS = join(__dirname, '..', '..', 'deploy', 'k8s', 'overlays');
const rendered = new KustomizeRenderer().render(join(OVERLAYS, 'cpu'));
const cluster = new KustomizeRenderer().render(join(OVERLAYS, 'redis-cluster'));
const sentinel = new KustomizeRenderer().render(join(OVERLAYS, 'redis-sentinel'));

/** An overlay (cpu unless named) with one object changed; the change must make exactly its check fail. */
function broken(
  kind: string,
  name: string,
  edit: (o: any) => void,
  from: K8sObject[] = rendered,
): K8sObject[] {
  const copy = structuredClone(from);
  const target = copy.find((o) => o.kind === kind && o.metadata.name === name);
  if (!target) throw new Error(`fixture: no ${kind} ${name}`);
  edit(target);
  return copy;
}

const container = (o: any, name: string) =>
  o.spec.template.spec.containers.find((c: any) => c.name === name);
const envOf = (o: any, c: string, name: string) =>
  container(o, c).env.find((e: any) => e.name === name);

function expectOnly(objects: K8sObject[], check: CheckName, message: RegExp): void {
  const problems = crossCheck(objects);
  expect(problems.length).toBeGreaterThan(0);
  expect(problems.map((p) => p.check)).toEqual(problems.map(() => check));
  expect(problems.map((p) => p.message).join('\n')).toMatch(message);
}

describe('manifest cross-checks', () => {
  it('pass on the unmodified overlay (the baseline every broken case departs from)', () => {
    expect(crossCheck(rendered)).toEqual([]);
  });

  it('backend-addresses: a StatefulSet pod name behind a Deployment is no backend', () => {
    // The original bug: routers pointed at triton-0.triton while Triton was a Deployment.
    const objects = rendered.map((o) =>
      o.kind === 'StatefulSet' && o.metadata.name === 'triton' ? { ...o, kind: 'Deployment' } : o,
    );
    const problems = crossCheck(objects).filter((p) => p.check === 'backend-addresses');
    expect(problems.length).toBeGreaterThan(0);
    expect(problems[0]?.message).toMatch(/no StatefulSet governs Service triton/);
  });

  it('backend-addresses: a pod index past the HPA maximum, a wrong port, an unknown Service', () => {
    expectOnly(
      broken('Deployment', 'router', (o) => {
        envOf(o, 'router', 'KSERVE_ENDPOINTS').value = 'triton-8.triton:8001';
      }),
      'backend-addresses',
      /triton-8 is not a pod of StatefulSet triton \(at most 8 pods/,
    );
    expectOnly(
      broken('Deployment', 'batch-worker', (o) => {
        envOf(o, 'batch-worker', 'KSERVE_ENDPOINTS').value = 'triton-0.triton:9000';
      }),
      'backend-addresses',
      /do not listen on port 9000/,
    );
    expectOnly(
      broken('Deployment', 'coordinator', (o) => {
        envOf(o, 'coordinator', 'REDIS_URL').value = 'redis://:$(REDIS_PASSWORD)@redis-master:6379';
      }),
      'backend-addresses',
      /REDIS_URL: no Service redis-master/,
    );
  });

  it('autoscaling: an HPA on CPU without CPU requests cannot compute', () => {
    expectOnly(
      broken('Deployment', 'router', (o) => {
        delete container(o, 'router').resources.requests.cpu;
      }),
      'autoscaling',
      /scales on cpu but container router .* requests no cpu/,
    );
  });

  it('references: a missing PVC, Secret key, ConfigMap and an undefined volume mount', () => {
    expectOnly(
      rendered.filter((o) => o.kind !== 'PersistentVolumeClaim'),
      'references',
      /PersistentVolumeClaim model-repository does not exist/,
    );
    expectOnly(
      broken('Deployment', 'router', (o) => {
        envOf(o, 'router', 'ADMIN_API_KEY').valueFrom.secretKeyRef.key = 'api-key';
      }),
      'references',
      /Secret mesh-secrets-[a-z0-9]+ has no key api-key/,
    );
    expectOnly(
      broken('StatefulSet', 'redis', (o) => {
        o.spec.template.spec.volumes[0].configMap.name = 'redis-config';
      }),
      'references',
      /ConfigMap redis-config does not exist/,
    );
    expectOnly(
      broken('Deployment', 'router', (o) => {
        container(o, 'router').volumeMounts.push({ name: 'cache', mountPath: '/cache' });
      }),
      'references',
      /mounts volume cache, which the pod does not define/,
    );
  });

  it('image-tags: latest and untagged images', () => {
    expectOnly(
      broken('Deployment', 'router', (o) => {
        container(o, 'router').image = 'model-mesh:latest';
      }),
      'image-tags',
      /floating tag "latest"/,
    );
    expectOnly(
      broken('StatefulSet', 'redis', (o) => {
        container(o, 'redis').image = 'redis';
      }),
      'image-tags',
      /image redis has no tag/,
    );
  });

  it('probes: a path the app does not serve, a port that is not its listener, a Triton path', () => {
    expectOnly(
      broken('Deployment', 'router', (o) => {
        container(o, 'router').readinessProbe.httpGet.path = '/health';
      }),
      'probes',
      /readinessProbe path \/health is not served by the router/,
    );
    expectOnly(
      broken('Deployment', 'batch-worker', (o) => {
        container(o, 'batch-worker').livenessProbe.httpGet.port = 9200;
      }),
      'probes',
      /livenessProbe port 9200 is not a port of the container/,
    );
    expectOnly(
      broken('StatefulSet', 'triton', (o) => {
        container(o, 'triton').readinessProbe.httpGet.path = '/healthz/ready';
      }),
      'probes',
      /\/healthz\/ready is not a Triton health endpoint/,
    );
    expectOnly(
      broken('Deployment', 'router', (o) => {
        o.spec.template.spec.terminationGracePeriodSeconds = 10;
      }),
      'probes',
      /terminationGracePeriodSeconds 10 does not cover/,
    );
  });

  it("app-config: an environment the app's own config loader rejects", () => {
    const objects = broken('Deployment', 'coordinator', (o) => {
      envOf(o, 'coordinator', 'COORDINATOR_PORT').value = '80800';
    });
    const problems = crossCheck(objects);
    expect(problems.map((p) => p.check)).toContain('app-config');
    expect(problems.find((p) => p.check === 'app-config')?.message).toMatch(
      /COORDINATOR_PORT: must be between 0 and 65535/,
    );
  });

  it('selectors: a Service, PDB and ServiceMonitor that select nothing', () => {
    expectOnly(
      broken('Service', 'router', (o) => {
        o.spec.selector = { 'app.kubernetes.io/name': 'routr' };
      }),
      'selectors',
      /selector matches no pod template/,
    );
    expectOnly(
      broken('PodDisruptionBudget', 'triton', (o) => {
        o.spec.selector.matchLabels = { app: 'triton' };
      }),
      'selectors',
      /selector matches no pod template/,
    );
    expectOnly(
      broken('ServiceMonitor', 'triton', (o) => {
        o.spec.endpoints[0].port = 'prometheus';
      }),
      'selectors',
      /endpoint port prometheus is no named port/,
    );
  });

  describe('external Redis overlays', () => {
    const secretRef = (key: string) => ({ secretKeyRef: { name: 'mesh-redis', key } });

    it('pass on the unmodified redis-cluster and redis-sentinel overlays', () => {
      expect(crossCheck(cluster)).toEqual([]);
      expect(crossCheck(sentinel)).toEqual([]);
    });

    it('redis: an app with no Redis mode, or with two', () => {
      expectOnly(
        broken(
          'Deployment',
          'batch-worker',
          (o) => {
            const c = container(o, 'batch-worker');
            c.env = c.env.filter((e: any) => e.name !== 'REDIS_CLUSTER_NODES');
          },
          cluster,
        ),
        'redis',
        /container batch-worker: names no Redis mode .* would use redis:\/\/127\.0\.0\.1:6379/,
      );
      // Two modes: the app's own loader refuses them as well (app-config).
      const problems = crossCheck(
        broken(
          'Deployment',
          'router',
          (o) => {
            container(o, 'router').env.push({
              name: 'REDIS_URL',
              valueFrom: secretRef('REDIS_PASSWORD'),
            });
          },
          sentinel,
        ),
      );
      expect([...new Set(problems.map((p) => p.check))].sort()).toEqual(['app-config', 'redis']);
      expect(problems.find((p) => p.check === 'redis')?.message).toMatch(
        /names 2 Redis modes \(REDIS_URL and REDIS_SENTINELS\): name exactly one/,
      );
    });

    it("references: a key the operator's Secret does not document, an undocumented Secret", () => {
      expectOnly(
        broken(
          'Deployment',
          'coordinator',
          (o) => {
            envOf(o, 'coordinator', 'REDIS_CLUSTER_NODES').valueFrom = secretRef('REDIS_NODES');
          },
          cluster,
        ),
        'references',
        /env REDIS_CLUSTER_NODES: Secret mesh-redis \(created by the operator\) has no documented key REDIS_NODES/,
      );
      expectOnly(
        broken(
          'Deployment',
          'router',
          (o) => {
            delete o.metadata.annotations['model-mesh/operator-secrets'];
          },
          sentinel,
        ),
        'references',
        /env REDIS_SENTINELS: Secret mesh-redis does not exist/,
      );
      expectOnly(
        broken(
          'Deployment',
          'router',
          (o) => {
            o.metadata.annotations['model-mesh/operator-secrets'] = '["REDIS_PASSWORD"]';
          },
          sentinel,
        ),
        'references',
        /annotation model-mesh\/operator-secrets is not JSON/,
      );
    });

    it('backend-addresses: Redis nodes on the bundled Service the overlay removed', () => {
      expectOnly(
        broken(
          'Deployment',
          'router',
          (o) => {
            envOf(o, 'router', 'REDIS_CLUSTER_NODES').valueFrom = undefined;
            envOf(o, 'router', 'REDIS_CLUSTER_NODES').value = 'redis:6379';
          },
          cluster,
        ),
        'backend-addresses',
        /REDIS_CLUSTER_NODES redis:6379: no Service redis in namespace model-mesh/,
      );
      expectOnly(
        broken(
          'Deployment',
          'coordinator',
          (o) => {
            const e = envOf(o, 'coordinator', 'REDIS_SENTINELS');
            delete e.valueFrom;
            e.value = 'redis-0.redis.model-mesh.svc.cluster.local:26379,sentinel.example.com:26379';
          },
          sentinel,
        ),
        'backend-addresses',
        /REDIS_SENTINELS redis-0\.redis\.model-mesh\.svc\.cluster\.local:26379: .* names no Service redis/,
      );
    });

    it("selectors: the bundled Redis's ingress policy left behind", () => {
      const leftover = rendered.find(
        (o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'redis-ingress',
      ) as K8sObject;
      expectOnly([...cluster, leftover], 'selectors', /selector matches no pod template/);
    });
  });

  it('schema validation rejects an object the API server would (wrong type, missing field)', () => {
    const objects = broken('Deployment', 'router', (o) => {
      o.spec.replicas = 'two';
      delete container(o, 'router').name;
    });
    const problems = validateObjects(objects);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.object).toBe('Deployment/model-mesh/router');
    expect(problems[0]?.message).toMatch(/replicas must be integer/);
    expect(problems[0]?.message).toMatch(/must have required property name/);
    expect(validateObjects([{ apiVersion: 'v9', kind: 'Thing', metadata: { name: 'x' } }])).toEqual(
      [{ object: 'Thing/x', message: 'no schema for v9 Thing' }],
    );
  });
});
