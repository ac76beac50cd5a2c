/**
 * Parity with Hugging Face's Rust `tokenizers` (npm binding, native; a dev dependency used only
 * here): for every corpus string and every pipeline version, the ids this library produces
 * equal the Rust tokenizer's on the same pipeline pre-step, untruncated, truncated, and for
 * text pairs (longest-first). Runs on the test fixture and on the demo models' tokenizer.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer as HfJsTokenizer } from '@huggingface/tokenizers';
import { Tokenizer as RustTokenizer, type TruncationStrategy } from 'tokenizers';
import { BatchEncoder } from './batch-encoder';
import { BertTokenizer } from './bert-tokenizer';
import { buildParityCorpus } from './testing/parity-corpus';
import { PipelineRegistry, type PipelineDefinition } from './pipeline-registry';

const ROOT = join(__dirname, '..', '..', '..');
const TOKENIZER_FILES = [
  join(__dirname, 'testing', 'bert-fixture.tokenizer.json'),
  join(ROOT, 'model_repository', 'intent-zh', '1', 'tokenizer.json'),
].filter((f) => existsSync(f));
const LONGEST_FIRST = 'LongestFirst' as TruncationStrategy;
const wellFormed = (s: string): string =>
  (s as unknown as { toWellFormed(): string }).toWellFormed();
const corpus = buildParityCorpus();

// Thousands of native encodes per test on a shared 2-core machine.
jest.setTimeout(60_000);
const names = { ids: 'input_ids', mask: 'attention_mask', typeIds: 'token_type_ids' };

function encoder(tok: BertTokenizer, p: PipelineDefinition, maxLength: number): BatchEncoder {
  return new BatchEncoder(tok, p, { maxLength, hardMaxChars: 1_000_000, inputNames: names });
}

/** Encodes with Rust (same pre-step as the pipeline) and lists the corpus indexes that differ. */
async function divergences(
  rust: RustTokenizer,
  ours: BatchEncoder,
  p: PipelineDefinition,
  inputs: { text: string; textPair?: string }[],
): Promise<string[]> {
  const prep = (s: string): string => p.prepare(wellFormed(s));
  // encodeBatch takes single strings only; pairs go through encode(a, b).
  const encoded = inputs.every((i) => i.textPair === undefined)
    ? await rust.encodeBatch(inputs.map((i) => prep(i.text)))
    : await Promise.all(
        inputs.map((i) =>
          rust.encode(prep(i.text), i.textPair === undefined ? null : prep(i.textPair)),
        ),
      );
  const bad: string[] = [];
  inputs.forEach((input, i) => {
    const mine = ours.tokenize(input);
    const theirs = encoded[i]!;
    if (
      mine.ids.join() !== theirs.getIds().join() ||
      mine.typeIds.join() !== theirs.getTypeIds().join()
    ) {
      bad.push(
        `${JSON.stringify(input).slice(0, 120)}\n  ours ${mine.tokens.join(' ').slice(0, 200)}\n  rust ${theirs.getTokens().join(' ').slice(0, 200)}`,
      );
    }
  });
  return bad;
}

it('uses a corpus of at least 2,000 strings covering every category', () => {
  expect(corpus.length).toBeGreaterThanOrEqual(2000);
  const categories = new Set(corpus.map((c) => c.category));
  for (const c of [
    'chinese',
    'english',
    'mixed',
    'punctuation',
    'full_width',
    'emoji',
    'accents',
    'very_long',
  ]) {
    expect(categories).toContain(c);
  }
});

describe.each(TOKENIZER_FILES.map((f) => [f.slice(ROOT.length + 1), f]))(
  'tokenizer %s',
  (_label, file) => {
    const ours = BertTokenizer.fromJson(readFileSync(file, 'utf8'));
    const rust = RustTokenizer.fromFile(file);

    describe.each(new PipelineRegistry().list().map((p) => [p.id, p] as const))(
      '%s',
      (_id, pipeline) => {
        it('gives the Rust ids for every corpus string (untruncated)', async () => {
          rust.disableTruncation();
          const bad = await divergences(rust, encoder(ours, pipeline, 1_000_000), pipeline, corpus);
          expect(bad).toEqual([]);
        });

        it('gives the Rust ids for every corpus string truncated to 128', async () => {
          rust.setTruncation(128, { strategy: LONGEST_FIRST });
          const bad = await divergences(rust, encoder(ours, pipeline, 128), pipeline, corpus);
          expect(bad).toEqual([]);
        });

        if (pipeline.pairs) {
          it('gives the Rust ids and type ids for 1,000 text pairs truncated longest-first', async () => {
            const pairs = Array.from({ length: 1000 }, (_, i) => ({
              text: corpus[(i * 7) % corpus.length]!.text,
              textPair: corpus[(i * 13 + 5) % corpus.length]!.text,
            }));
            for (const maxLength of [24, 25]) {
              rust.setTruncation(maxLength, { strategy: LONGEST_FIRST });
              expect(
                await divergences(rust, encoder(ours, pipeline, maxLength), pipeline, pairs),
              ).toEqual([]);
            }
          });
        }
      },
    );
  },
);

describe('@huggingface/tokenizers 0.2.0 divergence this library corrects', () => {
  // The JS BertNormalizer tests UTF-16 units, so CJK ideographs outside the BMP are not
  // isolated as words; the Rust normalizer isolates them. BertTokenizer spaces them first.
  const file = join(__dirname, 'testing', 'bert-fixture.tokenizer.json');
  const text = 'brown𪚥intern';

  it('raw @huggingface/tokenizers glues the ideograph to its neighbours', () => {
    const raw = new HfJsTokenizer(JSON.parse(readFileSync(file, 'utf8')) as object, {});
    expect(raw.tokenize(text)).toEqual(['[UNK]']);
  });

  it('BertTokenizer matches Rust', async () => {
    const rust = RustTokenizer.fromFile(file);
    const ours = BertTokenizer.fromJson(readFileSync(file, 'utf8')).segment(text, (s) => s);
    const theirs = await rust.encode(text, null, { addSpecialTokens: false });
    expect(ours.tokens).toEqual([
      'b',
      '##r',
      '##o',
      '##w',
      '##n',
      '[UNK]',
      'in',
      '##t',
      '##er',
      '##n',
    ]);
    expect(ours.ids).toEqual(theirs.getIds());
  });
});

describe('longest-first truncation of pairs matches Rust on a length grid', () => {
  // Words of 1, 2 and ~20 tokens so the "cap at the word that reaches maxLength" rule and
  // the odd-token assignment are both exercised.
  const file = join(__dirname, 'testing', 'bert-fixture.tokenizer.json');
  const words = (n: number, w: string): string => Array.from({ length: n }, () => w).join(' ');
  const texts = [0, 1, 3, 6, 9, 10, 11, 12, 13, 20].flatMap((n) => [
    words(n, 'a'),
    words(n, 'unable'),
    `supercalifragilistic ${words(n, 'a')}`,
  ]);

  it.each([5, 10, 11, 12])('maxLength %i', async (maxLength) => {
    const rust = RustTokenizer.fromFile(file);
    rust.setTruncation(maxLength, { strategy: LONGEST_FIRST });
    const ours = encoder(
      BertTokenizer.fromJson(readFileSync(file, 'utf8')),
      new PipelineRegistry().get('bert-wordpiece', 2)!,
      maxLength,
    );
    const pairs = texts.flatMap((text) => texts.map((textPair) => ({ text, textPair })));
    const p = new PipelineRegistry().get('bert-wordpiece', 2)!;
    expect(await divergences(rust, ours, p, pairs)).toEqual([]);
  });
});

describe('Greek capital sigma with a vocabulary that holds σ and ς', () => {
  // JS toLowerCase turns a word-final Σ into ς; the Rust normalizer lowercases per character.
  it('lowercases Σ to σ everywhere, as Rust does', async () => {
    const json = JSON.parse(
      readFileSync(join(__dirname, 'testing', 'bert-fixture.tokenizer.json'), 'utf8'),
    ) as { model: { vocab: Record<string, number> } };
    let next = Math.max(...Object.values(json.model.vocab)) + 1;
    for (const c of 'αβγδεοσςλ') for (const t of [c, `##${c}`]) json.model.vocab[t] = next++;
    const text = JSON.stringify(json);
    const rust = RustTokenizer.fromString(text);
    const ours = BertTokenizer.fromJson(text);
    for (const input of ['ΣΑΣ ΟΔΟΣ', 'ΑΣ.', 'σας Σ ς']) {
      const theirs = await rust.encode(input, null, { addSpecialTokens: false });
      expect(ours.segment(input, (s) => s).tokens).toEqual(theirs.getTokens());
    }
  });
});
