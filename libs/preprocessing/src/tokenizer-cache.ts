import { createHash } from 'node:crypto';
import { BertTokenizer } from './bert-tokenizer';

/** A tokenizer file's bytes, hashed; parsing waits until the hash has been checked. */
export interface TokenizerFile {
  sha256: string;
  bytes: Buffer;
}

/**
 * Parsed tokenizers keyed by the sha256 of their file, so versions that share a tokenizer
 * share one instance and a file is parsed at most once per process.
 */
export class TokenizerCache {
  private readonly bySha = new Map<string, BertTokenizer>();

  static hash(bytes: Buffer): TokenizerFile {
    return { sha256: createHash('sha256').update(bytes).digest('hex'), bytes };
  }

  /** The tokenizer for these bytes; throws the parse error if the file is unusable. */
  get(file: TokenizerFile): BertTokenizer {
    let tokenizer = this.bySha.get(file.sha256);
    if (!tokenizer) {
      tokenizer = BertTokenizer.fromJson(file.bytes.toString('utf8'));
      this.bySha.set(file.sha256, tokenizer);
    }
    return tokenizer;
  }

  get size(): number {
    return this.bySha.size;
  }
}
