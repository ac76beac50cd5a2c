import { endianness } from 'node:os';
import type { BertTokenizer, SegmentTokens, TemplatePiece } from './bert-tokenizer';
import type { PipelineDefinition } from './pipeline-registry';
import type { EncodedBatch, Int64Tensor, TextInput, TokenizeResult } from './preprocessing.types';
import { TextInputGuard } from './text-input.hook';
import { longestFirstKeep } from './truncation';

export interface EncoderOptions {
  maxLength: number;
  hardMaxChars: number;
  /** Model input names; without `typeIds` the model takes no token type tensor. */
  inputNames: { ids: string; mask: string; typeIds?: string };
  /**
   * Dynamic padding rounds the batch's length up to a multiple of this (capped at maxLength);
   * 0 = pad to the longest item. Requests then share a few shapes, which a backend that batches
   * only equal shapes (Triton) needs; the padding costs compute on a backend that pads itself.
   */
  padMultiple?: number;
}

/** One item after tokenization and truncation, before padding. */
interface Row {
  template: readonly TemplatePiece[];
  segments: [SegmentTokens, SegmentTokens | undefined];
  keep: [number, number];
  length: number;
  truncated: boolean;
}

const LITTLE_ENDIAN = endianness() === 'LE';

/**
 * Turns texts (or text pairs) into the INT64 tensors a BERT model takes, following one
 * pipeline version exactly: its text step, the tokenizer's template, its truncation and its
 * padding. Tensors are written straight into one buffer per tensor (no per-token BigInts).
 */
export class BatchEncoder {
  private readonly guard: TextInputGuard;

  constructor(
    private readonly tokenizer: BertTokenizer,
    private readonly pipeline: PipelineDefinition,
    private readonly options: EncoderOptions,
  ) {
    this.guard = new TextInputGuard(options.hardMaxChars);
  }

  /** The id padding positions carry in input ids (mask and type ids pad with 0). */
  get padId(): number {
    return this.tokenizer.padId;
  }

  encode(inputs: readonly TextInput[]): EncodedBatch {
    if (inputs.length === 0) this.guard.fail('a batch needs at least one text');
    const rows = inputs.map((input, i) => this.row(input, i));
    let seq = this.options.maxLength;
    if (this.pipeline.padding === 'dynamic') {
      seq = rows.reduce((m, r) => Math.max(m, r.length), 1);
      const bucket = this.options.padMultiple ?? 0;
      if (bucket > 1) seq = Math.min(this.options.maxLength, Math.ceil(seq / bucket) * bucket);
    }
    const words = rows.length * seq * 2;
    const ids = new Int32Array(words);
    const mask = new Int32Array(words);
    const types = new Int32Array(words);
    const tokenCounts = new Int32Array(rows.length);
    rows.forEach((row, r) => {
      this.fillRow(row, r * seq, seq, ids, mask, types);
      tokenCounts[r] = row.length;
    });
    const shape: [number, number] = [rows.length, seq];
    const names = this.options.inputNames;
    const tensor = (name: string, data: BigInt64Array): Int64Tensor => ({
      name,
      datatype: 'INT64',
      shape,
      data,
    });
    const inputIds = tensor(names.ids, toInt64(ids));
    const attentionMask = tensor(names.mask, toInt64(mask));
    const tokenTypeIds = tensor(names.typeIds ?? 'token_type_ids', toInt64(types));
    return {
      batchSize: rows.length,
      seqLength: seq,
      inputIds,
      attentionMask,
      tokenTypeIds,
      tensors:
        names.typeIds === undefined
          ? [inputIds, attentionMask]
          : [inputIds, attentionMask, tokenTypeIds],
      tokenCounts,
      truncated: rows.map((r) => r.truncated),
    };
  }

  /** The tokens one input becomes, special tokens included, padding excluded. */
  tokenize(input: TextInput): TokenizeResult {
    const row = this.row(input, 0);
    const result: TokenizeResult = {
      tokens: [],
      ids: [],
      attentionMask: [],
      typeIds: [],
      specialTokensMask: [],
      truncated: row.truncated,
    };
    for (const piece of row.template) {
      if (piece.kind === 'special') {
        this.push(result, piece.token, piece.id, piece.typeId, 1);
        continue;
      }
      const seg = row.segments[piece.which]!;
      for (let k = 0; k < row.keep[piece.which]; k++) {
        this.push(result, seg.tokens[k]!, seg.ids[k]!, piece.typeId, 0);
      }
    }
    return result;
  }

  private push(
    r: TokenizeResult,
    token: string,
    id: number,
    typeId: number,
    special: number,
  ): void {
    r.tokens.push(token);
    r.ids.push(id);
    r.attentionMask.push(1);
    r.typeIds.push(typeId);
    r.specialTokensMask.push(special);
  }

  private row(input: TextInput, index: number): Row {
    if (typeof input !== 'object' || input === null)
      this.guard.fail(`item ${index} is not an object`);
    const text = this.guard.text(input.text, 'text', index);
    const pair =
      input.textPair === undefined ? undefined : this.guard.text(input.textPair, 'textPair', index);
    const isPair = pair !== undefined;
    if (isPair && !this.pipeline.pairs) {
      this.guard.fail(
        `textPair at index ${index}: pipeline ${this.pipeline.id} takes single texts only`,
      );
    }
    const template = isPair ? this.tokenizer.pair : this.tokenizer.single;
    const specials = this.tokenizer.specialCount(isPair);
    const budget = this.options.maxLength - specials;
    const prepare = this.pipeline.prepare;
    const { maxLength } = this.options;
    // Pairs need counts exact up to maxLength (see longestFirstKeep); single texts up to budget.
    const a = this.tokenizer.segment(text, prepare, isPair ? maxLength : budget);
    const b = isPair ? this.tokenizer.segment(pair, prepare, maxLength) : undefined;
    const lenA = a.ids.length;
    const lenB = b ? b.ids.length : 0;
    const keep: [number, number] = b
      ? longestFirstKeep(
          this.tokenizer.cappedLength(a, maxLength),
          this.tokenizer.cappedLength(b, maxLength),
          budget,
        )
      : [Math.min(lenA, budget), 0];
    const truncated = keep[0] < lenA || keep[1] < lenB;
    return { template, segments: [a, b], keep, length: specials + keep[0] + keep[1], truncated };
  }

  /** Writes one row into the tensors' 32-bit word views (value in word 2*i, see toInt64). */
  private fillRow(
    row: Row,
    offset: number,
    seq: number,
    ids: Int32Array,
    mask: Int32Array,
    types: Int32Array,
  ): void {
    let pos = offset * 2;
    for (const piece of row.template) {
      if (piece.kind === 'special') {
        ids[pos] = piece.id;
        mask[pos] = 1;
        types[pos] = piece.typeId;
        pos += 2;
        continue;
      }
      const segIds = row.segments[piece.which]!.ids;
      const keep = row.keep[piece.which];
      const typeId = piece.typeId;
      for (let k = 0; k < keep; k++, pos += 2) {
        ids[pos] = segIds[k]!;
        mask[pos] = 1;
        types[pos] = typeId;
      }
    }
    // Padding: mask and type ids stay 0 (buffers start zeroed).
    const padId = this.tokenizer.padId;
    if (padId !== 0) for (const end = (offset + seq) * 2; pos < end; pos += 2) ids[pos] = padId;
  }
}

/**
 * INT64 tensors are filled through a 32-bit view without allocating a BigInt per token: ids
 * are small non-negative integers, so on little-endian hosts word 2*i is the value's low half
 * and word 2*i+1 stays 0. Big-endian hosts get a one-pass conversion.
 */
function toInt64(words: Int32Array): BigInt64Array {
  const out = new BigInt64Array(words.buffer, words.byteOffset, words.length / 2);
  if (!LITTLE_ENDIAN) for (let i = 0; i < out.length; i++) out[i] = BigInt(words[i * 2]!);
  return out;
}
