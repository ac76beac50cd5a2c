import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { K8sObject } from './k8s-object';
import type { GeneratorSpec } from './kustomization.schema';

/**
 * ConfigMaps and Secrets from `configMapGenerator` / `secretGenerator` entries, named with
 * kustomize's content-hash suffix so a changed config rolls the pods that mount it.
 */
export function generateObject(
  kind: 'ConfigMap' | 'Secret',
  spec: GeneratorSpec,
  dir: string,
  inheritedOptions: GeneratorSpec['options'] = {},
): { object: K8sObject; hashed: boolean } {
  const data = collectData(spec, dir);
  const options = { ...inheritedOptions, ...spec.options };
  const metadata: K8sObject['metadata'] = { name: spec.name };
  if (spec.namespace) metadata.namespace = spec.namespace;
  if (options.labels) metadata.labels = { ...options.labels };
  if (options.annotations) metadata.annotations = { ...options.annotations };
  const object: K8sObject =
    kind === 'ConfigMap'
      ? { apiVersion: 'v1', kind, metadata, data }
      : {
          apiVersion: 'v1',
          kind,
          metadata,
          type: spec.type ?? 'Opaque',
          data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, kustomizeBase64(v)])),
        };
  return { object, hashed: options.disableNameSuffixHash !== true };
}

/**
 * Base64 as kustomize writes Secret data: past 70 characters, broken into 70-character lines
 * each ending in a newline (the API server's decoder skips them; the name hash includes them).
 */
export function kustomizeBase64(value: string): string {
  const lineLen = 70;
  const encoded = Buffer.from(value, 'utf8').toString('base64');
  if (Math.floor(encoded.length / lineLen) + 1 <= 1) return encoded;
  let out = '';
  for (let i = 0; i < encoded.length; i += lineLen) out += `${encoded.slice(i, i + lineLen)}\n`;
  return out;
}

function collectData(spec: GeneratorSpec, dir: string): Record<string, string> {
  const data: Record<string, string> = {};
  const put = (key: string, value: string, from: string) => {
    if (key in data) throw new Error(`generator ${spec.name}: key ${key} set twice (${from})`);
    data[key] = value;
  };
  for (const entry of spec.files ?? []) {
    const eq = entry.indexOf('=');
    const key = eq >= 0 ? entry.slice(0, eq) : basename(entry);
    const path = eq >= 0 ? entry.slice(eq + 1) : entry;
    put(key, readInside(dir, path, spec.name), path);
  }
  for (const literal of spec.literals ?? []) {
    const eq = literal.indexOf('=');
    if (eq <= 0) throw new Error(`generator ${spec.name}: literal must be KEY=VALUE: ${literal}`);
    put(literal.slice(0, eq), literal.slice(eq + 1), 'literal');
  }
  for (const envFile of spec.envs ?? []) {
    for (const [line, n] of readInside(dir, envFile, spec.name)
      .split('\n')
      .map((l, i) => [l.trim(), i + 1] as const)) {
      if (line === '' || line.startsWith('#')) continue;
      const eq = line.indexOf('=');
      if (eq <= 0) throw new Error(`${envFile}:${n}: expected KEY=VALUE`);
      put(line.slice(0, eq), line.slice(eq + 1), envFile);
    }
  }
  return data;
}

/** Kustomize's default load restriction: no file outside the kustomization's directory. */
export function readInside(dir: string, path: string, what: string): string {
  const full = resolve(dir, path);
  const root = resolve(dir);
  if (full !== root && !full.startsWith(`${root}/`))
    throw new Error(
      `${what}: ${path} is outside the kustomization directory ${dir} (kustomize refuses it)`,
    );
  return readFileSync(full, 'utf8');
}

/**
 * Kustomize's name suffix (api/hasher): sha256 of the Go JSON encoding of kind, data (and type
 * for Secrets) and a name that kustomize always encodes as "" (its lookup of `metadata/name`
 * takes the path as one field name), first 10 hex digits with 0,1,3,a,e mapped to g,h,k,m,t.
 */
export function kustomizeHash(object: K8sObject): string {
  const encoded: Record<string, unknown> =
    object.kind === 'Secret'
      ? { kind: 'Secret', type: object.type, name: '', data: object.data ?? {} }
      : { kind: 'ConfigMap', name: '', data: object.data ?? {} };
  const hex = createHash('sha256').update(goJson(encoded)).digest('hex');
  const map: Record<string, string> = { '0': 'g', '1': 'h', '3': 'k', a: 'm', e: 't' };
  return [...hex.slice(0, 10)].map((c) => map[c] ?? c).join('');
}

/** Go's encoding/json: sorted map keys, HTML-safe escapes. */
export function goJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goString(value);
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  const obj = value as Record<string, unknown>;
  return `{${Object.keys(obj)
    .sort()
    .map((k) => `${goString(k)}:${goJson(obj[k])}`)
    .join(',')}}`;
}

function goString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0) as number;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (
      code < 0x20 ||
      ch === '<' ||
      ch === '>' ||
      ch === '&' ||
      code === 0x2028 ||
      code === 0x2029
    )
      out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}
