import { Tokenizer } from '@huggingface/tokenizers';
import { RustUnicodeCompat } from './rust-unicode-compat';
import { addedTokenBigrams, findSafeCut } from './safe-cut';

/**
 * CJK ideographs outside the BMP, exactly the ranges the Rust BertNormalizer isolates with
 * `handle_chinese_chars` (note 2B920, not 2B820). @huggingface/tokenizers 0.2.0 tests UTF-16
 * units, so it never isolates these; spacing them first gives the Rust result (spaces are
 * where BertNormalizer would put them, and clean_text keeps spaces).
 */
const ASTRAL_CJK =
  /[\u{20000}-\u{2A6DF}\u{2A700}-\u{2B73F}\u{2B740}-\u{2B81F}\u{2B920}-\u{2CEAF}\u{2F800}-\u{2FA1F}]/gu;
const HAS_ASTRAL_CJK_SURROGATE = /[\uD840-\uD87E]/;

/** One element of a post-processing template: a special token or a text sequence. */
export type TemplatePiece =
  | { kind: 'special'; id: number; token: string; typeId: number }
  | { kind: 'sequence'; which: 0 | 1; typeId: number };

/** Content tokens of one text (no special tokens). */
export interface SegmentTokens {
  tokens: string[];
  ids: number[];
  /** true: these are all the text's tokens; false: a prefix of them, longer than asked for. */
  complete: boolean;
}

interface TokenizerJson {
  model?: { type?: string; unk_token?: string; continuing_subword_prefix?: string };
  added_tokens?: { content: string }[];
  normalizer?: { type?: string; handle_chinese_chars?: boolean; lowercase?: boolean } | null;
  padding?: { pad_id?: number } | null;
  post_processor?: {
    type?: string;
    single?: RawPiece[];
    pair?: RawPiece[];
    special_tokens?: Record<string, { ids?: number[] }>;
    cls?: [string, number];
    sep?: [string, number];
  } | null;
}
type RawPiece =
  | { SpecialToken: { id: string; type_id: number } }
  | { Sequence: { id: 'A' | 'B'; type_id: number } };

/**
 * A BERT WordPiece tokenizer built from a Hugging Face `tokenizer.json` with
 * `@huggingface/tokenizers`. Special tokens, truncation and padding are applied by this
 * library (the JS tokenizer has neither truncation nor padding), following the file's
 * post-processor template.
 */
export class BertTokenizer {
  readonly single: readonly TemplatePiece[];
  readonly pair: readonly TemplatePiece[];
  readonly padId: number;
  readonly vocabSize: number;
  private readonly unkId: number;
  private readonly singleSpecials: number;
  private readonly pairSpecials: number;
  private readonly subwordPrefix: string;
  private readonly addedBigrams: ReadonlySet<string>;
  private readonly spaceAstralCjk: boolean;
  private readonly unicodeCompat: RustUnicodeCompat;
  private readonly perCharLowercase: boolean;

  private constructor(
    private readonly hf: Tokenizer,
    json: TokenizerJson,
  ) {
    if (json.model?.type !== 'WordPiece') {
      throw new Error(`expected a WordPiece model, found ${String(json.model?.type)}`);
    }
    [this.single, this.pair] = this.parseTemplate(json);
    this.singleSpecials = this.single.filter((p) => p.kind === 'special').length;
    this.pairSpecials = this.pair.filter((p) => p.kind === 'special').length;
    this.padId = json.padding?.pad_id ?? this.hf.token_to_id('[PAD]') ?? 0;
    this.vocabSize = this.hf.get_vocab(true).size;
    this.spaceAstralCjk =
      json.normalizer?.type === 'BertNormalizer' && json.normalizer.handle_chinese_chars !== false;
    this.perCharLowercase =
      json.normalizer?.type === 'BertNormalizer' && json.normalizer.lowercase !== false;
    this.unicodeCompat = new RustUnicodeCompat((t) => this.hf.token_to_id(t) !== undefined);
    this.addedBigrams = addedTokenBigrams((json.added_tokens ?? []).map((t) => t.content));
    this.subwordPrefix = json.model.continuing_subword_prefix ?? '##';
    this.unkId = this.hf.token_to_id(json.model.unk_token ?? '[UNK]') ?? 0;
  }

  /** Parses tokenizer.json text; throws an Error naming the problem if it is unusable. */
  static fromJson(text: string): BertTokenizer {
    const json = JSON.parse(text) as TokenizerJson;
    return new BertTokenizer(new Tokenizer(json, {}), json);
  }

  specialCount(isPair: boolean): number {
    return isPair ? this.pairSpecials : this.singleSpecials;
  }

  /**
   * Content tokens of `text` after `prepare`. With `limit`, long texts are tokenized only as
   * far as needed: the result is then either all tokens (`complete`) or a prefix of the
   * full tokenization with more than `limit` tokens. Cuts fall only where normalisation and
   * pre-tokenization cannot look across (see safe-cut.ts), so the prefix is exact.
   */
  segment(text: string, prepare: (t: string) => string, limit = Infinity): SegmentTokens {
    let cap = Math.max(256, (limit + 2) * 8);
    while (cap < text.length) {
      const cut = findSafeCut(text, cap, this.addedBigrams);
      if (cut > 0) {
        const part = this.tokenizeAll(prepare(text.slice(0, cut)));
        if (part.tokens.length > limit) return { ...part, complete: false };
      }
      cap *= 4;
    }
    return { ...this.tokenizeAll(prepare(text)), complete: true };
  }

  /**
   * Hugging Face tokenizers (Rust, 0.23) stop tokenizing a sequence of a pair once it has
   * `maxLength` tokens, at the end of the word being tokenized, before LongestFirst compares
   * lengths. Returns that length: tokens through the first word whose end reaches `maxLength`
   * (continuation pieces carry the subword prefix, e.g. "##").
   */
  cappedLength(seg: SegmentTokens, maxLength: number): number {
    const { tokens } = seg;
    let k = maxLength;
    while (k < tokens.length && tokens[k]!.startsWith(this.subwordPrefix)) k++;
    return Math.min(k, tokens.length);
  }

  tokenToId(token: string): number | undefined {
    return this.hf.token_to_id(token);
  }

  private tokenizeAll(text: string): { tokens: string[]; ids: number[] } {
    text = this.unicodeCompat.apply(text);
    // Rust lowercases per character (Σ → σ always); JS applies the final-sigma rule (ς).
    if (this.perCharLowercase && text.includes('Σ')) text = text.replaceAll('Σ', 'σ');
    if (this.spaceAstralCjk && HAS_ASTRAL_CJK_SURROGATE.test(text)) {
      text = text.replace(ASTRAL_CJK, ' $& ');
    }
    const tokens = this.hf.tokenize(text, { add_special_tokens: false });
    const ids = new Array<number>(tokens.length);
    for (let i = 0; i < tokens.length; i++) {
      // The JS tokenizer emits vocabulary strings (or the unk token), so the lookup hits.
      ids[i] = this.hf.token_to_id(tokens[i]!) ?? this.unkId;
    }
    return { tokens, ids };
  }

  private parseTemplate(json: TokenizerJson): [TemplatePiece[], TemplatePiece[]] {
    const pp = json.post_processor;
    if (pp?.type === 'TemplateProcessing' && pp.single && pp.pair) {
      const convert = (raw: RawPiece[]): TemplatePiece[] =>
        raw.map((r) => {
          if ('Sequence' in r) {
            return {
              kind: 'sequence',
              which: r.Sequence.id === 'A' ? 0 : 1,
              typeId: r.Sequence.type_id,
            };
          }
          const token = r.SpecialToken.id;
          return {
            kind: 'special',
            token,
            id: this.specialId(token, pp.special_tokens),
            typeId: r.SpecialToken.type_id,
          };
        });
      return [convert(pp.single), convert(pp.pair)];
    }
    if (pp?.type === 'BertProcessing' && pp.cls && pp.sep) {
      const cls = { kind: 'special' as const, token: pp.cls[0], id: pp.cls[1] };
      const sep = { kind: 'special' as const, token: pp.sep[0], id: pp.sep[1] };
      const seq = (which: 0 | 1) => ({ kind: 'sequence' as const, which, typeId: which });
      return [
        [{ ...cls, typeId: 0 }, seq(0), { ...sep, typeId: 0 }],
        [{ ...cls, typeId: 0 }, seq(0), { ...sep, typeId: 0 }, seq(1), { ...sep, typeId: 1 }],
      ];
    }
    throw new Error(`unsupported post_processor ${String(pp?.type)} (need TemplateProcessing)`);
  }

  private specialId(
    token: string,
    specials: Record<string, { ids?: number[] }> | undefined,
  ): number {
    const id = specials?.[token]?.ids?.[0] ?? this.hf.token_to_id(token);
    if (id === undefined) throw new Error(`special token ${token} is not in the vocabulary`);
    return id;
  }
}
