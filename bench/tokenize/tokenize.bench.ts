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
import { measureOrt, type OrtResult } from './ort-throughput';
import { machineLine, renderMarkdown, type ArmResult } from './tokenize.report';
import { buildArms, type Arm } from './tokenizer-arms';

const ROOT = join(__dirname, '..', '..');
const QUICK = process.argv.includes('--quick');
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

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const vocab = Object.keys(
    (JSON.parse(readFileSync(TOKENIZER, 'utf8')) as { model: { vocab: object } }).model.vocab,
  );
  const corpora = [
    buildBenchCorpus(vocab, 'short', 20, 2048, 11),
    buildBenchCorpus(vocab, 'long', 256, 512, 12),
  ];
  const arms = buildArms(TOKENIZER, MAX_LENGTH);
  const encoder = (maxLength: number): BatchEncoder =>
    new BatchEncoder(
      BertTokenizer.fromJson(readFileSync(TOKENIZER, 'utf8')),
      new PipelineRegistry().get('bert-wordpiece', 2)!,
      {
        maxLength,
        hardMaxChars: 1_000_000,
        inputNames: { ids: 'input_ids', mask: 'attention_mask', typeIds: 'token_type_ids' },
      },
    );
  const histograms = Object.fromEntries(
    corpora.map((c) => [
      c.name,
      histogram(
        Array.from(encoder(MAX_LENGTH).encode(c.texts.map((text) => ({ text }))).tokenCounts),
        c.name === 'short' ? 4 : 32,
      ),
    ]),
  );
  process.stdout.write(
    `${machineLine()}\ntoken-length histograms: ${JSON.stringify(histograms)}\n`,
  );

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
  const results: ArmResult[] = [...samples.entries()].map(([key, rs]) => {
    const [arm, corpus] = key.split('/') as [string, string];
    return {
      arm,
      corpus,
      textsPerSec: median(rs.map((r) => r.textsPerSec)),
      tokensPerSec: median(rs.map((r) => r.tokensPerSec)),
      cpuUsPerText: median(rs.map((r) => r.cpuUsPerText)),
    };
  });

  // Share of CPU at host saturation: the router's real configuration (maxLength 128).
  const ort: Record<string, OrtResult | undefined> = {};
  const routerTokenize: Record<string, number> = {};
  for (const c of corpora) {
    const enc = encoder(128);
    const batch = enc.encode(c.texts.slice(0, 32).map((text) => ({ text })));
    ort[c.name] = await measureOrt(SMALL_MODEL, batch, QUICK ? 2 : 5);
    const arm: Arm = {
      name: 'js-128',
      description: '',
      run: async (ts) => {
        let n = 0;
        for (let i = 0; i < ts.length; i += 32)
          n += enc.encode(ts.slice(i, i + 32).map((text) => ({ text }))).batchSize;
        return n;
      },
    };
    routerTokenize[c.name] = median(
      [await window(arm, c), await window(arm, c), await window(arm, c)].map((r) => r.cpuUsPerText),
    );
  }
  const report = {
    benchmark: 'tokenize',
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
    results,
    share: Object.fromEntries(
      corpora.map((c) => [
        c.name,
        { ort: ort[c.name], jsTokenizeCpuUsPerText: routerTokenize[c.name] },
      ]),
    ),
  };
  writeFileSync(
    join(ROOT, 'docs', 'benchmarks', 'tokenize.json'),
    JSON.stringify(report, null, 2) + '\n',
  );
  writeFileSync(join(ROOT, 'docs', 'benchmarks', 'tokenize.md'), renderMarkdown(report));
  process.stdout.write(
    `wrote docs/benchmarks/tokenize.json and tokenize.md${existsSync(SMALL_MODEL) ? '' : ' (no small model: run `npm run models -- --size small --out .bench-models` for the CPU share)'}\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
