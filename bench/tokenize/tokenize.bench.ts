/**
 * `npm run bench:tokenize [-- --quick]`: texts/s and tokens/s of @huggingface/tokenizers (as
 * the mesh runs it) against Hugging Face's Rust tokenizers binding, short (~20 tokens) and long
 * (~256 tokens) texts, arms interleaved, median of 3 rounds; then the tokenizer's share of CPU
 * at the raw-ORT saturation throughput of the small benchmark model.
 * Writes docs/benchmarks/tokenize.json and tokenize.md.
 */
import './thread-budget';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatchEncoder, BertTokenizer, PipelineRegistry } from '@mesh/preprocessing';
import { buildBenchCorpus, histogram, type BenchCorpus } from './bench-corpus';
import { parseCliArgs } from '../../scripts/cli-args';
import { measureOrt } from './ort-throughput';
import { medianOf } from '../router/bench-measure';
import { machineLine, renderMarkdown, type ArmResult, type Report } from './tokenize.report';
import { buildArms, type Arm } from './tokenizer-arms';

const ROOT = join(__dirname, '..', '..');
const QUICK =
  parseCliArgs({ args: process.argv.slice(2), options: { quick: { type: 'boolean' } } }).values
    .quick ?? false;
const WINDOW_S = QUICK ? 0.5 : 2;
const ROUNDS = 3;
const MAX_LENGTH = 512; // no truncation: every arm tokenizes every character
const TOKENIZER = join(ROOT, 'model_repository', 'intent-zh', '2', 'tokenizer.json');
const SMALL_MODEL = join(ROOT, '.bench-models', 'intent-zh', '2', 'model.onnx');

/** Runs `arm` over the corpus (cycling) for one window; texts/s, tokens/s, CPU µs per text. */
async function window(arm: Arm, corpus: BenchCorpus): Promise<Omit<ArmResult, 'arm' | 'corpus'>> {
  const chunk = 256;
  let texts = 0;
  let tokens = 0;
  let i = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  while (performance.now() - t0 < WINDOW_S * 1000) {
    const slice = corpus.texts.slice(i, i + chunk);
    tokens += await arm.run(slice);
    texts += slice.length;
    i = (i + chunk) % corpus.texts.length;
  }
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return {
    textsPerSec: texts / wall,
    tokensPerSec: tokens / wall,
    cpuUsPerText: (cpu.user + cpu.system) / texts,
  };
}

function encoder(maxLength: number): BatchEncoder {
  return new BatchEncoder(
    BertTokenizer.fromJson(readFileSync(TOKENIZER, 'utf8')),
    new PipelineRegistry().get('bert-wordpiece', 2)!,
    {
      maxLength,
      hardMaxChars: 1_000_000,
      inputNames: { ids: 'input_ids', mask: 'attention_mask', typeIds: 'token_type_ids' },
    },
  );
}

/** Every arm on every text mix, interleaved (order reversed every round); medians. */
async function measureArms(arms: Arm[], corpora: BenchCorpus[]): Promise<ArmResult[]> {
  for (const arm of arms) for (const c of corpora) await arm.run(c.texts.slice(0, 256)); // warm-up
  const samples = new Map<string, Omit<ArmResult, 'arm' | 'corpus'>[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of corpora) {
      for (const arm of round % 2 === 0 ? arms : [...arms].reverse()) {
        const r = await window(arm, c);
        const key = `${arm.name}/${c.name}`;
        samples.set(key, [...(samples.get(key) ?? []), r]);
        process.stdout.write(
          `round ${round + 1} ${key}: ${r.textsPerSec.toFixed(0)} texts/s, ${r.tokensPerSec.toFixed(0)} tokens/s\n`,
        );
      }
    }
  }
  return [...samples.entries()].map(([key, rs]) => {
    const [arm, corpus] = key.split('/') as [string, string];
    return {
      arm,
      corpus,
      textsPerSec: medianOf(rs.map((r) => r.textsPerSec)),
      tokensPerSec: medianOf(rs.map((r) => r.tokensPerSec)),
      cpuUsPerText: medianOf(rs.map((r) => r.cpuUsPerText)),
    };
  });
}

/**
 * Raw ORT texts/s of the small model on each text mix, and the JS tokenizer's CPU per text with
 * the router's settings (maxLength 128): the inputs of the CPU-share estimate.
 */
async function measureShare(corpora: BenchCorpus[]): Promise<Report['share']> {
  const share: Report['share'] = {};
  for (const c of corpora) {
    const enc = encoder(128);
    const ort = await measureOrt(
      SMALL_MODEL,
      enc.encode(c.texts.slice(0, 32).map((text) => ({ text }))),
      QUICK ? 2 : 5,
    );
    const arm: Arm = {
      name: 'js-128',
      description: '',
      run: async (ts) => {
        for (let i = 0; i < ts.length; i += 32)
          enc.encode(ts.slice(i, i + 32).map((text) => ({ text })));
        return ts.length;
      },
    };
    const cpu = [await window(arm, c), await window(arm, c), await window(arm, c)];
    share[c.name] = { ort, jsTokenizeCpuUsPerText: medianOf(cpu.map((r) => r.cpuUsPerText)) };
  }
  return share;
}

async function main(): Promise<void> {
  const vocab = Object.keys(
    (JSON.parse(readFileSync(TOKENIZER, 'utf8')) as { model: { vocab: object } }).model.vocab,
  );
  const corpora = [
    buildBenchCorpus(vocab, 'short', 20, 2048, 11),
    buildBenchCorpus(vocab, 'long', 256, 512, 12),
  ];
  const arms = buildArms(TOKENIZER, MAX_LENGTH);
  const lengths = (c: BenchCorpus): number[] =>
    Array.from(encoder(MAX_LENGTH).encode(c.texts.map((text) => ({ text }))).tokenCounts);
  const histograms = Object.fromEntries(
    corpora.map((c) => [c.name, histogram(lengths(c), c.name === 'short' ? 4 : 32)]),
  );
  process.stdout.write(
    `${machineLine()}\ntoken-length histograms: ${JSON.stringify(histograms)}\n`,
  );
  const report: Report = {
    date: new Date().toISOString(),
    machine: machineLine(),
    quick: QUICK,
    tokenizer: TOKENIZER.slice(ROOT.length + 1),
    pipeline: 'bert-wordpiece@2 (NFKC pre-step on every arm)',
    maxLength: MAX_LENGTH,
    windowSeconds: WINDOW_S,
    rounds: ROUNDS,
    arms: arms.map((a) => ({ name: a.name, description: a.description })),
    histograms,
    results: await measureArms(arms, corpora),
    share: await measureShare(corpora),
  };
  const out = join(ROOT, 'docs', 'benchmarks');
  writeFileSync(
    join(out, 'tokenize.json'),
    JSON.stringify({ benchmark: 'tokenize', ...report }, null, 2) + '\n',
  );
  writeFileSync(join(out, 'tokenize.md'), renderMarkdown(report));
  const note = existsSync(SMALL_MODEL)
    ? ''
    : ' (no small model: `npm run models -- --size small --out .bench-models` for the CPU share)';
  process.stdout.write(`wrote docs/benchmarks/tokenize.json and tokenize.md${note}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
