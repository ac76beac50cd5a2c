import type { ItemResult, JobItem } from './job.types';

/**
 * Compact encodings of one chunk's items and results (one Redis string each): positional
 * JSON tuples instead of objects, embeddings as base64 little-endian float32.
 *   item:   [text] | [text, textPair] | [text, textPair|null, id]
 *   result: [label, score, [[label, score], ...]] | "<base64 float32>" | {c: code, m: message}
 * A chunk's results carry its item ids (`{i: ids, r: results}`), so the inputs can be deleted
 * once the job has finished.
 */
type ItemTuple = [string] | [string, string] | [string, string | null, string | number];
type ResultTuple = [string, number, [string, number][]] | string | { c: string; m: string };

export function encodeItems(items: readonly JobItem[]): string {
  return JSON.stringify(
    items.map((item): ItemTuple => {
      if (item.id !== undefined) return [item.text, item.textPair ?? null, item.id];
      return item.textPair === undefined ? [item.text] : [item.text, item.textPair];
    }),
  );
}

export function decodeItems(raw: string): JobItem[] {
  return (JSON.parse(raw) as ItemTuple[]).map((t) => {
    const item: JobItem = { text: t[0] };
    if (typeof t[1] === 'string') item.textPair = t[1];
    if (t.length === 3) item.id = t[2];
    return item;
  });
}

export interface ChunkResults {
  results: ItemResult[];
  /** Caller ids by position in the chunk (absent when no item of the chunk has one). */
  ids?: (string | number | null)[];
}

export function encodeResults(results: readonly ItemResult[], items: readonly JobItem[]): string {
  const ids = items.some((i) => i.id !== undefined) ? items.map((i) => i.id ?? null) : undefined;
  const r = results.map((r): ResultTuple => {
    switch (r.kind) {
      case 'classification':
        return [r.label, r.score, r.scores.map((s): [string, number] => [s.label, s.score])];
      case 'embedding': {
        const floats =
          r.embedding instanceof Float32Array ? r.embedding : Float32Array.from(r.embedding);
        return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64');
      }
      case 'error':
        return { c: r.error.code, m: r.error.message };
    }
  });
  return JSON.stringify(ids ? { i: ids, r } : { r });
}

export function decodeResults(raw: string): ChunkResults {
  const parsed = JSON.parse(raw) as { i?: (string | number | null)[]; r: ResultTuple[] };
  const results = parsed.r.map((t): ItemResult => {
    if (typeof t === 'string') {
      const bytes = Buffer.from(t, 'base64');
      const floats = new Float32Array(bytes.byteLength / 4);
      for (let i = 0; i < floats.length; i++) floats[i] = bytes.readFloatLE(i * 4);
      return { kind: 'embedding', embedding: floats };
    }
    if (Array.isArray(t)) {
      return {
        kind: 'classification',
        label: t[0],
        score: t[1],
        scores: t[2].map(([label, score]) => ({ label, score })),
      };
    }
    return { kind: 'error', error: { code: t.c, message: t.m } };
  });
  return parsed.i ? { results, ids: parsed.i } : { results };
}
