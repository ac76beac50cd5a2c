import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Prediction } from './predict-commands';

/** Identity of what produced an answer: the same text through another version is another key. */
export interface CacheScope {
  model: string;
  version: number;
  /** `pipeline@version`, so a re-released tokenizer can never serve a stale answer. */
  pipeline: string;
}

/**
 * Per-route optional response cache: in-memory, bounded by entry count, keyed by model,
 * version, pipeline and the sha256 of the text (the text itself is never kept as a key).
 */
export class ResponseCache {
  private readonly lru: LRUCache<string, Prediction>;

  constructor(maxEntries: number) {
    this.lru = new LRUCache<string, Prediction>({ max: maxEntries });
  }

  get(scope: CacheScope, text: string, textPair?: string): Prediction | undefined {
    return this.lru.get(keyOf(scope, text, textPair));
  }

  set(scope: CacheScope, text: string, textPair: string | undefined, value: Prediction): void {
    this.lru.set(keyOf(scope, text, textPair), value);
  }

  get size(): number {
    return this.lru.size;
  }
}

function keyOf(scope: CacheScope, text: string, textPair?: string): string {
  const hash = createHash('sha256').update(text);
  // A separator that cannot occur in a UTF-8 text keeps (a, bc) and (ab, c) apart.
  if (textPair !== undefined) hash.update('\u0000\uffff').update(textPair);
  return `${scope.model}\u0000${scope.version}\u0000${scope.pipeline}\u0000${hash.digest('hex')}`;
}
