import { stableJson, type JsonValue } from './stable-json';
import { SPECIAL_TOKEN_IDS, SPECIAL_TOKENS } from './word-list';

/**
 * Hugging Face `tokenizer.json` for an uncased BERT WordPiece tokenizer over
 * the given vocabulary (index = id). The text is a pure function of the
 * vocabulary: fixed key order, no timestamps.
 */

const special = (id: string, typeId: number): JsonValue => ({
  SpecialToken: { id, type_id: typeId },
});
const sequence = (id: 'A' | 'B', typeId: number): JsonValue => ({
  Sequence: { id, type_id: typeId },
});

function addedTokens(): JsonValue {
  return SPECIAL_TOKENS.map((content) => ({
    id: SPECIAL_TOKEN_IDS[content],
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  }));
}

function postProcessor(): JsonValue {
  const cls = SPECIAL_TOKEN_IDS['[CLS]'];
  const sep = SPECIAL_TOKEN_IDS['[SEP]'];
  return {
    type: 'TemplateProcessing',
    single: [special('[CLS]', 0), sequence('A', 0), special('[SEP]', 0)],
    pair: [
      special('[CLS]', 0),
      sequence('A', 0),
      special('[SEP]', 0),
      sequence('B', 1),
      special('[SEP]', 1),
    ],
    special_tokens: {
      '[CLS]': { id: '[CLS]', ids: [cls], tokens: ['[CLS]'] },
      '[SEP]': { id: '[SEP]', ids: [sep], tokens: ['[SEP]'] },
    },
  };
}

function wordPieceModel(vocab: readonly string[]): JsonValue {
  return {
    type: 'WordPiece',
    unk_token: '[UNK]',
    continuing_subword_prefix: '##',
    max_input_chars_per_word: 100,
    vocab: new Map(vocab.map((token, id) => [token, id])),
  };
}

export function buildTokenizerJson(vocab: readonly string[]): string {
  SPECIAL_TOKENS.forEach((token) => {
    if (vocab[SPECIAL_TOKEN_IDS[token]] !== token)
      throw new Error(`vocabulary must have ${token} at id ${SPECIAL_TOKEN_IDS[token]}`);
  });
  const text = stableJson({
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: addedTokens(),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: postProcessor(),
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: wordPieceModel(vocab),
  });
  // Without the trailing newline the text is byte-identical to what the Rust
  // `tokenizers` library writes for this tokenizer with save(path, pretty).
  return text.slice(0, -1);
}
