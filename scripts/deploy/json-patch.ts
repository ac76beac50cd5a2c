import { isObject } from './k8s-object';

/** One RFC 6902 operation (the ones kustomize's patches use). */
export interface JsonPatchOp {
  op: 'add' | 'remove' | 'replace' | 'test';
  path: string;
  value?: unknown;
}

/** RFC 6901 pointer → tokens (`~1` is `/`, `~0` is `~`). */
function tokens(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new Error(`JSON pointer must start with '/': ${path}`);
  return path
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function child(container: unknown, token: string, path: string): unknown {
  if (Array.isArray(container)) {
    const i = Number(token);
    if (!Number.isInteger(i) || i < 0 || i >= container.length)
      throw new Error(`no index ${token} at ${path}`);
    return container[i];
  }
  if (isObject(container) && token in container) return container[token];
  throw new Error(`path ${path} does not exist`);
}

/** Applies the operations in order to a deep copy of `doc` and returns the copy. */
export function applyJsonPatch<T>(doc: T, ops: readonly JsonPatchOp[]): T {
  const root = structuredClone(doc) as unknown;
  for (const op of ops) {
    const parts = tokens(op.path);
    if (parts.length === 0) throw new Error(`operation on the document root is not supported`);
    const last = parts[parts.length - 1] as string;
    let parent: unknown = root;
    for (const t of parts.slice(0, -1)) parent = child(parent, t, op.path);
    switch (op.op) {
      case 'test': {
        const actual = child(parent, last, op.path);
        if (JSON.stringify(actual) !== JSON.stringify(op.value))
          throw new Error(`test failed at ${op.path}`);
        break;
      }
      case 'remove':
        child(parent, last, op.path);
        if (Array.isArray(parent)) parent.splice(Number(last), 1);
        else delete (parent as Record<string, unknown>)[last];
        break;
      case 'replace':
        child(parent, last, op.path);
        setAt(parent, last, op.value, false, op.path);
        break;
      case 'add':
        setAt(parent, last, op.value, true, op.path);
        break;
    }
  }
  return root as T;
}

function setAt(parent: unknown, key: string, value: unknown, insert: boolean, path: string): void {
  const copy = structuredClone(value);
  if (Array.isArray(parent)) {
    const i = key === '-' ? parent.length : Number(key);
    if (!Number.isInteger(i) || i < 0 || i > parent.length)
      throw new Error(`bad array index ${key} at ${path}`);
    if (insert) parent.splice(i, 0, copy);
    else parent[i] = copy;
    return;
  }
  if (!isObject(parent)) throw new Error(`parent of ${path} is not an object or array`);
  parent[key] = copy;
}

export function parseJsonPatch(value: unknown, where: string): JsonPatchOp[] {
  if (!Array.isArray(value)) throw new Error(`${where}: a JSON6902 patch must be a list`);
  return value.map((raw, i) => {
    if (!isObject(raw) || typeof raw.path !== 'string')
      throw new Error(`${where}: operation ${i} needs a string path`);
    const op = raw.op;
    if (op !== 'add' && op !== 'remove' && op !== 'replace' && op !== 'test')
      throw new Error(`${where}: operation ${i}: unsupported op ${JSON.stringify(op)}`);
    if (op !== 'remove' && !('value' in raw))
      throw new Error(`${where}: operation ${i} (${op}) needs a value`);
    return { op, path: raw.path, value: raw.value };
  });
}
