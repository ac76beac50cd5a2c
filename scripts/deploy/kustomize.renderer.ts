import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import {
  applyImages,
  applyLabels,
  applyNamespace,
  legacyOrder,
  rewriteNameRefs,
} from './kustomize.transformers';
import { kustomizationSchema, type Kustomization, type PatchTarget } from './kustomization.schema';
import { applyJsonPatch, parseJsonPatch } from './json-patch';
import {
  groupOf,
  isObject,
  objectId,
  versionOf,
  type JsonObject,
  type K8sObject,
} from './k8s-object';
import { generateObject, kustomizeHash, readInside } from './resource-generator';
import { strategicMerge } from './strategic-merge';

const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

/** A generated ConfigMap/Secret whose final name gets the content hash. */
interface Generated {
  kind: string;
  namespace?: string;
  name: string;
}

interface Accumulated {
  objects: K8sObject[];
  generated: Generated[];
}

/**
 * Renders a Kustomize directory the way `kubectl kustomize` does, for the subset of features
 * the mesh's manifests use (kustomization.schema.ts lists them; anything else is an error).
 */
export class KustomizeRenderer {
  render(dir: string): K8sObject[] {
    const acc = this.build(resolve(dir), []);
    const renames = new Map<string, string>();
    for (const g of acc.generated) {
      const object = acc.objects.find(
        (o) =>
          o.kind === g.kind && o.metadata.name === g.name && o.metadata.namespace === g.namespace,
      );
      if (!object) continue;
      const hashed = `${g.name}-${kustomizeHash(object)}`;
      renames.set(`${g.kind}/${g.namespace ?? ''}/${g.name}`, hashed);
      object.metadata.name = hashed;
    }
    const objects =
      renames.size > 0 ? acc.objects.map((o) => rewriteNameRefs(o, renames)) : acc.objects;
    return legacyOrder(objects);
  }

  private build(dir: string, stack: string[]): Accumulated {
    if (stack.includes(dir))
      throw new Error(`kustomization cycle: ${[...stack, dir].join(' -> ')}`);
    const k = this.load(dir);
    const acc: Accumulated = { objects: [], generated: [] };
    for (const entry of k.resources ?? []) {
      const path = resolve(dir, entry);
      if (!existsSync(path)) throw new Error(`${dir}: resource ${entry} does not exist`);
      if (statSync(path).isDirectory()) {
        const sub = this.build(path, [...stack, dir]);
        acc.objects.push(...sub.objects);
        acc.generated.push(...sub.generated);
      } else {
        acc.objects.push(...parseObjects(readInside(dir, entry, `${dir}: resource`), path));
      }
    }
    this.generate(k, dir, acc);
    for (const [i, p] of (k.patches ?? []).entries()) {
      const where = `${dir}: patches[${i}]${p.path ? ` (${p.path})` : ''}`;
      const text = p.path ? readInside(dir, p.path, where) : (p.patch as string);
      acc.objects = applyPatch(acc.objects, text, p.target, where);
    }
    if (k.namespace) {
      for (const g of acc.generated) g.namespace = k.namespace;
      acc.objects = acc.objects.map((o) => applyNamespace(o, k.namespace as string));
    }
    if (k.commonLabels)
      acc.objects = acc.objects.map((o) =>
        applyLabels(o, k.commonLabels as Record<string, string>, true, true),
      );
    for (const set of k.labels ?? [])
      acc.objects = acc.objects.map((o) =>
        applyLabels(
          o,
          set.pairs,
          set.includeSelectors === true,
          set.includeTemplates === true || set.includeSelectors === true,
        ),
      );
    if (k.images) acc.objects = acc.objects.map((o) => applyImages(o, k.images ?? []));
    assertUnique(acc.objects, dir);
    return acc;
  }

  private load(dir: string): Kustomization {
    const file = KUSTOMIZATION_FILES.map((f) => join(dir, f)).find((f) => existsSync(f));
    if (!file) throw new Error(`${dir}: no kustomization.yaml`);
    const parsed = kustomizationSchema.safeParse(parseSingle(readFileSync(file, 'utf8'), file));
    if (!parsed.success) {
      const issues = parsed.error.issues.map(
        (i) =>
          `${i.path.join('.') || '(root)'}: ${i.message}${'keys' in i ? ` ${JSON.stringify(i.keys)}` : ''}`,
      );
      throw new Error(`${file}: unsupported or invalid kustomization:\n  ${issues.join('\n  ')}`);
    }
    return parsed.data;
  }

  private generate(k: Kustomization, dir: string, acc: Accumulated): void {
    const gens = [
      ...(k.configMapGenerator ?? []).map((spec) => ({ kind: 'ConfigMap' as const, spec })),
      ...(k.secretGenerator ?? []).map((spec) => ({ kind: 'Secret' as const, spec })),
    ];
    for (const { kind, spec } of gens) {
      const { object, hashed } = generateObject(kind, spec, dir, k.generatorOptions);
      const existing = acc.objects.findIndex(
        (o) => o.kind === kind && o.metadata.name === spec.name,
      );
      const behavior = spec.behavior ?? 'create';
      if (behavior === 'create') {
        if (existing >= 0)
          throw new Error(
            `${dir}: ${kind} ${spec.name} already exists (use behavior: merge or replace)`,
          );
        acc.objects.push(object);
        if (hashed) acc.generated.push({ kind, name: spec.name, namespace: spec.namespace });
        continue;
      }
      if (existing < 0)
        throw new Error(`${dir}: ${kind} ${spec.name} to ${behavior} does not exist`);
      const old = acc.objects[existing] as K8sObject;
      const data =
        behavior === 'merge'
          ? { ...(old.data as JsonObject | undefined), ...(object.data as JsonObject) }
          : object.data;
      acc.objects[existing] = {
        ...old,
        data,
        metadata: {
          ...old.metadata,
          labels: { ...old.metadata.labels, ...object.metadata.labels },
        },
      };
    }
  }
}

function parseSingle(text: string, file: string): unknown {
  const docs = parseAllDocuments(text);
  const first = docs[0];
  if (!first) return {};
  if (first.errors.length > 0) throw new Error(`${file}: ${first.errors[0]?.message}`);
  return first.toJSON() as unknown;
}

/** The objects of a multi-document YAML file (empty documents skipped). */
export function parseObjects(text: string, file: string): K8sObject[] {
  const out: K8sObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]?.message}`);
    const value = doc.toJSON() as unknown;
    if (value === null || value === undefined) continue;
    if (
      !isObject(value) ||
      typeof value.apiVersion !== 'string' ||
      typeof value.kind !== 'string' ||
      !isObject(value.metadata) ||
      typeof value.metadata.name !== 'string'
    )
      throw new Error(`${file}: every document needs apiVersion, kind and metadata.name`);
    out.push(value as K8sObject);
  }
  return out;
}

function applyPatch(
  objects: K8sObject[],
  text: string,
  target: PatchTarget | undefined,
  where: string,
): K8sObject[] {
  const docs = parseAllDocuments(text).map((d) => {
    if (d.errors.length > 0) throw new Error(`${where}: ${d.errors[0]?.message}`);
    return d.toJSON() as unknown;
  });
  if (docs.length !== 1)
    throw new Error(`${where}: expected one patch document, found ${docs.length}`);
  const patch = docs[0];
  // A strategic-merge patch whose top level says `$patch: delete` removes what it matches.
  const remove = isObject(patch) && patch.$patch === 'delete';
  let matched = 0;
  const out = objects.flatMap((o) => {
    const hit = target ? matchesTarget(o, target) : isObject(patch) && matchesSelf(o, patch);
    if (!hit) return [o];
    matched++;
    if (remove) return [];
    if (Array.isArray(patch)) return [applyJsonPatch(o, parseJsonPatch(patch, where))];
    if (!isObject(patch)) throw new Error(`${where}: a patch must be a map or a list`);
    const { metadata: pm, ...rest } = patch;
    // The target's identity stays: only labels/annotations of a patch's metadata merge.
    const merged = strategicMerge(o, rest) as K8sObject;
    if (isObject(pm)) {
      const { name: _n, namespace: _ns, ...meta } = pm;
      merged.metadata = strategicMerge(o.metadata, meta) as K8sObject['metadata'];
    }
    return [merged];
  });
  if (matched === 0)
    throw new Error(
      `${where}: the patch matches no resource${target ? ` (target ${JSON.stringify(target)})` : ''}`,
    );
  return out;
}

function matchesSelf(o: K8sObject, patch: JsonObject): boolean {
  const meta = patch.metadata;
  if (typeof patch.kind !== 'string' || !isObject(meta) || typeof meta.name !== 'string')
    throw new Error('a strategic-merge patch without a target needs kind and metadata.name');
  if (typeof patch.apiVersion === 'string' && groupOf(patch.apiVersion) !== groupOf(o.apiVersion))
    return false;
  return o.kind === patch.kind && o.metadata.name === meta.name;
}

function matchesTarget(o: K8sObject, t: PatchTarget): boolean {
  const anchored = (re: string, v: string) => new RegExp(`^(?:${re})$`).test(v);
  if (t.kind !== undefined && !anchored(t.kind, o.kind)) return false;
  if (t.name !== undefined && !anchored(t.name, o.metadata.name)) return false;
  if (t.group !== undefined && t.group !== groupOf(o.apiVersion)) return false;
  if (t.version !== undefined && t.version !== versionOf(o.apiVersion)) return false;
  if (t.namespace !== undefined && t.namespace !== (o.metadata.namespace ?? '')) return false;
  if (t.labelSelector !== undefined) {
    for (const term of t.labelSelector.split(',')) {
      const [k, v] = term.split('=').map((s) => s.trim());
      if (!k || o.metadata.labels?.[k] !== v) return false;
    }
  }
  return true;
}

function assertUnique(objects: readonly K8sObject[], dir: string): void {
  const seen = new Set<string>();
  for (const o of objects) {
    const id = `${o.apiVersion} ${objectId(o)}`;
    if (seen.has(id)) throw new Error(`${dir}: ${id} is defined twice`);
    seen.add(id);
  }
}
