import { isObject, type JsonObject } from './k8s-object';

/**
 * Merge keys of the lists a strategic-merge patch merges element by element (from the
 * Kubernetes API's `x-kubernetes-patch-merge-key`); every other list is replaced whole, as
 * the API server does for lists without a merge key (tolerations, args, command ...).
 */
const MERGE_KEYS: Record<string, (item: JsonObject) => string | undefined> = {
  containers: () => 'name',
  initContainers: () => 'name',
  ephemeralContainers: () => 'name',
  volumes: () => 'name',
  env: () => 'name',
  imagePullSecrets: () => 'name',
  volumeMounts: () => 'mountPath',
  volumeDevices: () => 'devicePath',
  // Container ports merge on containerPort, Service ports on port.
  ports: (item) => ('containerPort' in item ? 'containerPort' : 'port'),
};

/**
 * Applies a strategic-merge patch (the subset the mesh's overlays use): maps merge
 * recursively, `null` deletes a field, keyed lists merge by their merge key, `$patch: delete`
 * removes a keyed element and `$patch: replace` replaces a map.
 */
export function strategicMerge(base: JsonObject, patch: JsonObject): JsonObject {
  if (patch.$patch === 'replace') {
    const { $patch: _drop, ...rest } = patch;
    return structuredClone(rest);
  }
  const out: JsonObject = structuredClone(base);
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch') continue;
    if (value === null) {
      delete out[key];
      continue;
    }
    const current = out[key];
    if (isObject(value) && isObject(current)) {
      out[key] = strategicMerge(current, value);
    } else if (Array.isArray(value) && Array.isArray(current) && key in MERGE_KEYS) {
      out[key] = mergeList(key, current, value);
    } else {
      out[key] = stripDirectives(value);
    }
  }
  return out;
}

/**
 * Kustomize's order: the patch's elements first, in the patch's order (merged with the base
 * element of the same key, if any), then the base elements the patch does not name, in their
 * order. `$patch: delete` drops the named element.
 */
function mergeList(field: string, base: unknown[], patch: unknown[]): unknown[] {
  const keyOf = MERGE_KEYS[field] as (item: JsonObject) => string | undefined;
  const rest = structuredClone(base);
  const head: unknown[] = [];
  for (const item of patch) {
    if (!isObject(item)) throw new Error(`strategic merge: ${field} items must be objects`);
    const mergeKey = keyOf(item);
    if (!mergeKey || !(mergeKey in item))
      throw new Error(`strategic merge: an item of ${field} has no merge key ${mergeKey ?? ''}`);
    const id = item[mergeKey];
    const at = (list: unknown[]) => list.findIndex((x) => isObject(x) && x[mergeKey] === id);
    const index = at(rest);
    const current = index >= 0 ? (rest.splice(index, 1)[0] as JsonObject) : undefined;
    if (item.$patch === 'delete') {
      const earlier = at(head);
      if (earlier >= 0) head.splice(earlier, 1);
      continue;
    }
    const earlier = at(head);
    if (earlier >= 0) head[earlier] = strategicMerge(head[earlier] as JsonObject, item);
    else head.push(current ? strategicMerge(current, item) : stripDirectives(item));
  }
  return [...head, ...rest];
}

function stripDirectives(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripDirectives);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) if (k !== '$patch') out[k] = stripDirectives(v);
  return out;
}
