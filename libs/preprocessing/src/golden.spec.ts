import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatchEncoder } from './batch-encoder';
import { BertTokenizer } from './bert-tokenizer';
import { GOLDEN_CASES } from './testing/golden-cases';
import { PipelineRegistry } from './pipeline-registry';

interface Golden {
  pipeline: string;
  tokenizer: { file: string; sha256: string };
  maxLength: number;
  cases: {
    name: string;
    input: { text: string; textPair?: string };
    expected: Record<string, unknown>;
  }[];
  batches: {
    name: string;
    inputs: { text: string; textPair?: string }[];
    expected: Record<string, unknown>;
  }[];
}

const LIB = join(__dirname, '..');
const registry = new PipelineRegistry();

const rows = (data: BigInt64Array, seq: number): number[][] =>
  Array.from({ length: data.length / seq }, (_, r) =>
    Array.from(data.subarray(r * seq, (r + 1) * seq), Number),
  );

describe.each(registry.list().map((p) => p.id))('golden vectors of %s', (id) => {
  const golden = JSON.parse(readFileSync(join(LIB, 'golden', `${id}.json`), 'utf8')) as Golden;
  const bytes = readFileSync(join(LIB, golden.tokenizer.file));
  const pipeline = registry.list().find((p) => p.id === id)!;
  const encoder = new BatchEncoder(BertTokenizer.fromJson(bytes.toString('utf8')), pipeline, {
    maxLength: golden.maxLength,
    hardMaxChars: 10_000,
    inputNames: { ids: 'input_ids', mask: 'attention_mask', typeIds: 'token_type_ids' },
  });

  it('is pinned to the tokenizer file it was written with', () => {
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(golden.tokenizer.sha256);
  });

  it('covers every golden case', () => {
    expect(golden.cases.map((c) => c.name)).toEqual(GOLDEN_CASES.map((c) => c.name));
  });

  it.each(golden.cases.map((c) => [c.name, c] as const))('encodes %s as released', (_name, c) => {
    let actual: Record<string, unknown>;
    try {
      const t = encoder.tokenize(c.input);
      actual = {
        tokens: t.tokens,
        ids: t.ids,
        attentionMask: t.attentionMask,
        typeIds: t.typeIds,
        truncated: t.truncated,
      };
    } catch (err: unknown) {
      actual = { error: (err as { code?: string }).code };
    }
    expect(actual).toEqual(c.expected);
  });

  it.each(golden.batches.map((b) => [b.name, b] as const))(
    'pads batch %s as released',
    (_name, b) => {
      const batch = encoder.encode(b.inputs);
      expect({
        shape: [batch.batchSize, batch.seqLength],
        inputIds: rows(batch.inputIds.data, batch.seqLength),
        attentionMask: rows(batch.attentionMask.data, batch.seqLength),
        tokenTypeIds: rows(batch.tokenTypeIds.data, batch.seqLength),
        tokenCounts: Array.from(batch.tokenCounts),
      }).toEqual(b.expected);
    },
  );
});
