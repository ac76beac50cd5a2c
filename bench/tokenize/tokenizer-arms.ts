import { readFileSync } from 'node:fs';
import {
  BatchEncoder,
  BertTokenizer,
  PipelineRegistry,
  type PipelineDefinition,
} from '@mesh/preprocessing';
import { Tokenizer as RustTokenizer, type TruncationStrategy } from 'tokenizers';

/** One way of tokenizing a chunk of texts; resolves to the number of real tokens produced. */
export interface Arm {
  name: string;
  description: string;
  run(texts: readonly string[]): Promise<number>;
}

export const BATCH = 32;

/** The arms compared, all on the same tokenizer.json, the same texts and @2's pre-step. */
export function buildArms(tokenizerFile: string, maxLength: number): Arm[] {
  const pipeline: PipelineDefinition = new PipelineRegistry().get('bert-wordpiece', 2)!;
  const encoder = new BatchEncoder(
    BertTokenizer.fromJson(readFileSync(tokenizerFile, 'utf8')),
    pipeline,
    {
      maxLength,
      hardMaxChars: 1_000_000,
      inputNames: { ids: 'input_ids', mask: 'attention_mask', typeIds: 'token_type_ids' },
    },
  );
  const rust = RustTokenizer.fromFile(tokenizerFile);
  rust.setTruncation(maxLength, { strategy: 'LongestFirst' as TruncationStrategy });
  const prep = (t: string): string => pipeline.prepare(t);
  return [
    {
      name: 'js',
      description: `@huggingface/tokenizers via BatchEncoder.encode, batches of ${BATCH}, INT64 tensors included`,
      async run(texts) {
        let tokens = 0;
        for (let i = 0; i < texts.length; i += BATCH) {
          const batch = encoder.encode(texts.slice(i, i + BATCH).map((text) => ({ text })));
          for (const n of batch.tokenCounts) tokens += n;
        }
        return tokens;
      },
    },
    {
      name: 'rust-batch',
      description: `Rust tokenizers encodeBatch, batches of ${BATCH}, TOKENIZERS_PARALLELISM=false`,
      async run(texts) {
        let tokens = 0;
        for (let i = 0; i < texts.length; i += BATCH) {
          const encodings = await rust.encodeBatch(texts.slice(i, i + BATCH).map(prep));
          for (const e of encodings) tokens += e.getLength();
        }
        return tokens;
      },
    },
    {
      name: 'rust-single',
      description: 'Rust tokenizers encode, one awaited call per text (per-request use)',
      async run(texts) {
        let tokens = 0;
        for (const t of texts) tokens += (await rust.encode(prep(t))).getLength();
        return tokens;
      },
    },
  ];
}
