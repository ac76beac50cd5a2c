import { cpus } from 'node:os';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OrtResult } from './ort-throughput';

export interface ArmResult {
  arm: string;
  corpus: string;
  textsPerSec: number;
  tokensPerSec: number;
  cpuUsPerText: number;
}

export interface Report {
  date: string;
  machine: string;
  quick: boolean;
  tokenizer: string;
  pipeline: string;
  maxLength: number;
  windowSeconds: number;
  rounds: number;
  arms: { name: string; description: string }[];
  histograms: Record<string, Record<string, number>>;
  results: ArmResult[];
  share: Record<string, { ort: OrtResult | undefined; jsTokenizeCpuUsPerText: number | undefined }>;
}

const version = (pkg: string): string => {
  try {
    // Read the file directly: some export maps hide package.json from require.resolve.
    const file = join(__dirname, '..', '..', 'node_modules', pkg, 'package.json');
    return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
};

/** Cores, CPU model and flags that matter, Node, ORT and both tokenizer versions. */
export function machineLine(): string {
  const cpuInfo = readFileSync('/proc/cpuinfo', 'utf8');
  const flags = (/^flags\s*:(.*)$/m.exec(cpuInfo)?.[1] ?? '').trim().split(/\s+/);
  const shown = ['avx2', 'avx512f', 'fma', 'sse4_2'].filter((f) => flags.includes(f));
  return (
    `${cpus().length} cores, ${cpus()[0]?.model ?? 'unknown CPU'} (${shown.join(' ') || 'no flags read'}), ` +
    `Node ${process.version}, onnxruntime-node ${version('onnxruntime-node')}, ` +
    `@huggingface/tokenizers ${version('@huggingface/tokenizers')}, tokenizers (Rust) ${version('tokenizers')}`
  );
}

const f0 = (n: number): string => Math.round(n).toLocaleString('en-US');
const f2 = (n: number): string => n.toFixed(2);

export function renderMarkdown(r: Report): string {
  const get = (arm: string, corpus: string) =>
    r.results.find((x) => x.arm === arm && x.corpus === corpus);
  const corpora = Object.keys(r.histograms);
  const lines = [
    '# Tokenizer benchmark',
    '',
    `Machine: ${r.machine}`,
    '',
    `${r.date}${r.quick ? ' (quick run)' : ''}. Tokenizer \`${r.tokenizer}\`, pipeline ${r.pipeline}, ` +
      `maxLength ${r.maxLength} (nothing truncated). Arms interleaved (order reversed every round), ` +
      `${r.rounds} rounds of ${r.windowSeconds} s windows per arm and text mix, median kept. One ` +
      'thread per arm. The machine is shared: read the ratios, not the absolute numbers.',
    '',
    ...r.arms.map((a) => `- **${a.name}**: ${a.description}`),
    '',
    `Token-length histograms (tokens incl. [CLS]/[SEP]): ${corpora.map((c) => `${c}: \`${JSON.stringify(r.histograms[c])}\``).join('; ')}`,
    '',
    '| text mix | arm | texts/s | tokens/s | CPU µs / text |',
    '|---|---|---:|---:|---:|',
    ...r.results.map(
      (x) =>
        `| ${x.corpus} | ${x.arm} | ${f0(x.textsPerSec)} | ${f0(x.tokensPerSec)} | ${f2(x.cpuUsPerText)} |`,
    ),
    '',
    '| text mix | JS ÷ Rust encodeBatch (tokens/s) | JS ÷ Rust encode per text (tokens/s) | JS ÷ Rust encodeBatch (CPU per text, lower = JS cheaper) |',
    '|---|---:|---:|---:|',
    ...corpora.map((c) => {
      const js = get('js', c);
      const rb = get('rust-batch', c);
      const rs = get('rust-single', c);
      if (!js || !rb || !rs) return `| ${c} | n/a | n/a | n/a |`;
      return `| ${c} | ${f2(js.tokensPerSec / rb.tokensPerSec)} | ${f2(js.tokensPerSec / rs.tokensPerSec)} | ${f2(js.cpuUsPerText / rb.cpuUsPerText)} |`;
    }),
    '',
    ...headline(r),
    '',
    '## Tokenizer share of CPU at host saturation',
    '',
    'Raw ORT throughput of the small benchmark model (MiniLM-like, 6 layers, hidden 384), batch ' +
      '32, intra-op 2 / inter-op 1, pre-tokenized tensors: the most texts per second this box ' +
      'can infer. The tokenizer must encode as many; its CPU cost per text is measured with the ' +
      "router's settings (maxLength 128, bert-wordpiece@2, batches of 32).",
    '',
    '| text mix | seq | raw ORT texts/s | ORT CPU ms / text | tokenize CPU µs / text | tokenizer cores at saturation | share of 2 cores | tokenizer ÷ (tokenizer + model) CPU |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...corpora.map((c) => {
      const s = r.share[c];
      if (!s?.ort || s.jsTokenizeCpuUsPerText === undefined)
        return `| ${c} | n/a (small model not generated) | | | | | | |`;
      const cores = (s.ort.textsPerSec * s.jsTokenizeCpuUsPerText) / 1e6;
      const tokMs = s.jsTokenizeCpuUsPerText / 1000;
      return `| ${c} | ${s.ort.seqLength} | ${f0(s.ort.textsPerSec)} | ${f2(s.ort.cpuMsPerText)} | ${f2(s.jsTokenizeCpuUsPerText)} | ${cores.toFixed(3)} | ${(cores * 50).toFixed(1)} % | ${((100 * tokMs) / (tokMs + s.ort.cpuMsPerText)).toFixed(1)} % |`;
    }),
    '',
  ];
  return lines.join('\n') + '\n';
}

/** One-paragraph summary: the ratios and the 15 % verdict. */
function headline(r: Report): string[] {
  const get = (arm: string, corpus: string) =>
    r.results.find((x) => x.arm === arm && x.corpus === corpus);
  const parts = Object.keys(r.histograms).map((c) => {
    const js = get('js', c);
    const rb = get('rust-batch', c);
    if (!js || !rb) return `${c}: n/a`;
    return `${c} ${f2(js.tokensPerSec / rb.tokensPerSec)}× tokens/s, ${f2(js.cpuUsPerText / rb.cpuUsPerText)}× CPU per text`;
  });
  const shares = Object.entries(r.share).flatMap(([c, s]) =>
    s.ort && s.jsTokenizeCpuUsPerText !== undefined
      ? [[c, (100 * (s.ort.textsPerSec * s.jsTokenizeCpuUsPerText)) / 1e6 / 2] as const]
      : [],
  );
  const worst = shares.reduce((m, [, v]) => Math.max(m, v), 0);
  const verdict =
    shares.length === 0
      ? 'CPU share not measured (no small model).'
      : worst > 15
        ? `Tokenizer share at host saturation reaches ${worst.toFixed(1)} % (> 15 %): see the proposal in docs/adr/0003-tokenizer.md.`
        : `Tokenizer share at host saturation: at most ${worst.toFixed(1)} % of the 2 cores (budget 15 %).`;
  return [
    `**Headline** (JS ÷ Rust encodeBatch, median of ${r.rounds}): ${parts.join('; ')}. ${verdict}`,
  ];
}
