/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- rendered manifests are untyped JSON by nature */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { KustomizeRenderer } from './kustomize.renderer';
import type { K8sObject } from './k8s-object';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'kustomize-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function files(tree: Record<string, string>): void {
  for (const [path, text] of Object.entries(tree)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

const render = (dir = '.') => new KustomizeRenderer().render(join(root, dir));
const byName = (objects: K8sObject[], kind: string, name: string) =>
  objects.find((o) => o.kind === kind && o.metadata.name.startsWith(name)) as K8sObject;

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: { name: web }
spec:
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      containers:
        - name: web
          image: web:1.0
          env:
            - { name: A, value: a }
            - name: KEY
              valueFrom: { secretKeyRef: { name: creds, key: key } }
          volumeMounts: [{ name: conf, mountPath: /conf }]
        - name: sidecar
          image: registry:5000/tools/side
      volumes:
        - name: conf
          configMap: { name: settings }
`;

describe('KustomizeRenderer', () => {
  it('names generated ConfigMaps exactly as kustomize does and points references at them', () => {
    // a-hmg6f82fh6 is what `kubectl kustomize` (kustomize v5.5.0) prints for this input.
    files({
      'kustomization.yaml': 'configMapGenerator:\n  - name: a\n    literals: [x=1]\n',
    });
    expect(render().map((o) => o.metadata.name)).toEqual(['a-hmg6f82fh6']);
  });

  it('renders resources, generators, namespace, labels, images and rewrites hashed names', () => {
    files({
      'base/kustomization.yaml': `resources: [web.yaml]
configMapGenerator:
  - name: settings
    literals: [mode=fast]
secretGenerator:
  - name: creds
    literals: [key=${'k'.repeat(80)}]
`,
      'base/web.yaml': deployment,
      'overlay/kustomization.yaml': `resources: [../base]
namespace: shop
labels:
  - pairs: { app.kubernetes.io/part-of: shop }
    includeTemplates: true
images:
  - { name: web, newName: example.com/web, newTag: '2.0' }
  - { name: registry:5000/tools/side, newTag: '3' }
`,
    });
    const out = render('overlay');
    const web = byName(out, 'Deployment', 'web');
    const cm = byName(out, 'ConfigMap', 'settings');
    const secret = byName(out, 'Secret', 'creds');
    expect(cm.metadata.name).toMatch(/^settings-[a-z0-9]{10}$/);
    expect(secret.metadata.name).toMatch(/^creds-[a-z0-9]{10}$/);
    expect(out.every((o) => o.metadata.namespace === 'shop')).toBe(true);
    expect(web.metadata.labels).toEqual({ 'app.kubernetes.io/part-of': 'shop' });
    const spec = (web.spec as any).template.spec;
    expect((web.spec as any).template.metadata.labels).toEqual({
      app: 'web',
      'app.kubernetes.io/part-of': 'shop',
    });
    expect((web.spec as any).selector).toEqual({ matchLabels: { app: 'web' } });
    expect(spec.containers.map((c: any) => c.image)).toEqual([
      'example.com/web:2.0',
      'registry:5000/tools/side:3',
    ]);
    expect(spec.volumes[0].configMap.name).toBe(cm.metadata.name);
    expect(spec.containers[0].env[1].valueFrom.secretKeyRef.name).toBe(secret.metadata.name);
    // Long Secret values are broken into 70-character lines, as kustomize writes them.
    expect((secret.data as any).key.split('\n')[0]).toHaveLength(70);
  });

  it('applies strategic-merge patches: keyed lists merge, $patch: delete removes, maps merge', () => {
    files({
      'kustomization.yaml': `resources: [web.yaml]
patches:
  - patch: |-
      apiVersion: apps/v1
      kind: Deployment
      metadata: { name: web, labels: { tier: front } }
      spec:
        template:
          spec:
            tolerations: [{ key: gpu, operator: Exists }]
            containers:
              - name: web
                env: [{ name: A, value: patched }, { name: B, value: b }]
                resources: { limits: { nvidia.com/gpu: 1 } }
              - name: sidecar
                $patch: delete
`,
      'web.yaml': deployment,
    });
    const web = byName(render(), 'Deployment', 'web');
    const spec = (web.spec as any).template.spec;
    expect(web.metadata.labels).toEqual({ tier: 'front' });
    expect(spec.containers.map((c: any) => c.name)).toEqual(['web']);
    // kustomize v5.5.0's order: the patch's elements first, then the others.
    expect(spec.containers[0].env.map((e: any) => [e.name, e.value])).toEqual([
      ['A', 'patched'],
      ['B', 'b'],
      ['KEY', undefined],
    ]);
    expect(spec.containers[0].image).toBe('web:1.0');
    expect(spec.containers[0].resources).toEqual({ limits: { 'nvidia.com/gpu': 1 } });
    expect(spec.tolerations).toEqual([{ key: 'gpu', operator: 'Exists' }]);
  });

  it('orders a merged list as kustomize does and deletes a whole object by `$patch: delete`', () => {
    // The env order is what `kubectl kustomize` (kustomize v5.5.0) prints for this input.
    files({
      'kustomization.yaml': `resources: [web.yaml, settings.yaml]
patches:
  - patch: |-
      $patch: delete
      apiVersion: v1
      kind: ConfigMap
      metadata: { name: settings }
  - patch: |-
      apiVersion: apps/v1
      kind: Deployment
      metadata: { name: web }
      spec:
        template:
          spec:
            containers:
              - name: web
                env:
                  - { name: A, $patch: delete }
                  - name: KEY
                    valueFrom: { secretKeyRef: { name: other, key: key } }
                  - { name: B, value: b }
`,
      'web.yaml': deployment.replace(
        '            - { name: A, value: a }\n',
        '            - { name: A, value: a }\n            - { name: C, value: c }\n',
      ),
      'settings.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: settings }\n',
    });
    const out = render();
    expect(out.map((o) => o.kind)).toEqual(['Deployment']);
    const env = (byName(out, 'Deployment', 'web').spec as any).template.spec.containers[0].env;
    expect(env.map((e: any) => e.name)).toEqual(['KEY', 'B', 'C']);
    expect(env[0].valueFrom.secretKeyRef).toEqual({ name: 'other', key: 'key' });
  });

  it('applies JSON6902 patches to the targets they select', () => {
    files({
      'kustomization.yaml': `resources: [web.yaml]
patches:
  - target: { group: apps, version: v1, kind: Deployment, name: w.* }
    patch: |-
      - { op: replace, path: /spec/template/spec/containers/0/image, value: web:9 }
      - { op: add, path: /spec/replicas, value: 3 }
      - { op: remove, path: /spec/template/spec/containers/1 }
`,
      'web.yaml': deployment,
    });
    const web = byName(render(), 'Deployment', 'web');
    expect((web.spec as any).replicas).toBe(3);
    expect((web.spec as any).template.spec.containers.map((c: any) => c.image)).toEqual(['web:9']);
  });

  it('refuses a file outside the kustomization directory, as kustomize does', () => {
    files({
      'k8s/kustomization.yaml': `configMapGenerator:
  - name: mesh-config
    files: [mesh.yaml=../config/mesh.yaml]
`,
      'config/mesh.yaml': 'routes: []\n',
    });
    expect(() => render('k8s')).toThrow(/outside the kustomization directory/);
  });

  it('rejects kustomization fields it does not implement, naming them', () => {
    files({ 'kustomization.yaml': 'resources: []\nnamePrefix: x-\n' });
    expect(() => render()).toThrow(/unsupported or invalid kustomization[\s\S]*namePrefix/);
  });

  it('fails on a patch that matches nothing and on a resource defined twice', () => {
    files({
      'a/kustomization.yaml': `resources: [web.yaml]
patches:
  - target: { kind: Deployment, name: nope }
    patch: '[{ op: add, path: /spec/replicas, value: 1 }]'
`,
      'a/web.yaml': deployment,
      'b/kustomization.yaml': 'resources: [web.yaml, again.yaml]\n',
      'b/web.yaml': deployment,
      'b/again.yaml': deployment,
    });
    expect(() => render('a')).toThrow(/matches no resource/);
    expect(() => render('b')).toThrow(/Deployment\/web is defined twice/);
  });

  it('merges and replaces generated data with behavior merge/replace', () => {
    files({
      'base/kustomization.yaml': 'configMapGenerator:\n  - name: c\n    literals: [a=1, b=2]\n',
      'merge/kustomization.yaml':
        'resources: [../base]\nconfigMapGenerator:\n  - name: c\n    behavior: merge\n    literals: [b=3]\n',
      'replace/kustomization.yaml':
        'resources: [../base]\nconfigMapGenerator:\n  - name: c\n    behavior: replace\n    literals: [z=9]\n',
    });
    expect(render('merge')[0]?.data).toEqual({ a: '1', b: '3' });
    expect(render('replace')[0]?.data).toEqual({ z: '9' });
    expect(render('merge')[0]?.metadata.name).not.toBe(render('base')[0]?.metadata.name);
  });
});
