/**
 * Redis layout of the traffic signals: one hash per time bucket,
 * `<prefix>:{signals}:<bucket start ms>`, fields `<task>\t<model>\t<version>\t<metric>` with
 * metric `r` (requests), `e:<code>` (errors by class), `l:<i>` (latency bucket i), or for a
 * shadow version `sc` / `sa` (mirrored items compared with the primary / agreeing). The
 * `{signals}` hash tag keeps a window's buckets in one Cluster slot (one pipeline).
 */
export const SIGNAL_FIELD_SEPARATOR = '\t';
export const SHADOW_COMPARED = 'sc';
export const SHADOW_AGREED = 'sa';

export function signalBucketKey(prefix: string, bucketStartMs: number): string {
  return `${prefix}:{signals}:${bucketStartMs}`;
}

export interface SignalField {
  task: string;
  model: string;
  version: number;
  metric: string;
}

export function signalField(task: string, model: string, version: number, metric: string): string {
  return [task, model, String(version), metric].join(SIGNAL_FIELD_SEPARATOR);
}

export function parseSignalField(field: string): SignalField | undefined {
  const parts = field.split(SIGNAL_FIELD_SEPARATOR);
  if (parts.length !== 4) return undefined;
  const [task, model, version, metric] = parts as [string, string, string, string];
  const v = Number(version);
  return Number.isInteger(v) ? { task, model, version: v, metric } : undefined;
}
