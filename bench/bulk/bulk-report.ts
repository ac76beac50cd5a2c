/* Markdown rendering of a bench:bulk report. */
import type { CeilingResult } from './raw-ceiling';

interface Probe {
  p50: number;
  p90: number;
  p99: number;
  n: number;
  errors: number;
}

export interface BulkReport {
  at: string;
  quick: boolean;
  machine: { cores: number; cpu: string; loadavg: number[]; node: string };
  model: string;
  /** How the bulk runs' host serves the model (instances, threads, reservation). */
  host?: string;
  /** The better of the two measurements; `before` / `after` the jobs when both were taken. */
  ceiling: CeilingResult & { before?: CeilingResult; after?: CeilingResult };
  runs: {
    workers: number;
    items: number;
    seconds: number;
    itemsPerSecond: number;
    ratioToRawOrt: number;
    acceptedMs?: number;
    timeToFirstResultMs: number;
    redisPeakBytesPer100k: number;
    cpuMsPerItem?: Partial<Record<CpuPart, number>> & { total: number };
    online?: { idle: Probe; withBulk: Probe };
  }[];
  contention: {
    idle: Probe;
    underBatches: Probe;
    batchCalls: { completed: number; errors: number };
  };
  /** Written into the JSON by hand after a run; rendered under the tables (`--render`). */
  analysis?: string[];
}

type CpuPart = 'hostInference' | 'hostEventLoop' | 'workers' | 'router' | 'redis';

const CPU_PARTS: [CpuPart, string][] = [
  ['hostInference', 'host inference threads'],
  ['hostEventLoop', 'host event loop'],
  ['workers', 'batch workers'],
  ['router', 'router'],
  ['redis', 'Redis'],
];

/** Where each job's CPU went, per item, beside what raw ORT spends at the ceiling. */
function cpuTable(r: BulkReport): string[] {
  const runs = r.runs.filter((x) => x.cpuMsPerItem);
  if (runs.length === 0) return [];
  const cores = r.machine.cores;
  const raw = (cores * 1000) / r.ceiling.bestItemsPerSecond;
  const label = (x: BulkReport['runs'][number]) =>
    `${x.workers} worker${x.workers > 1 ? 's' : ''}${x.online ? ' + probe' : ''}`;
  return [
    `CPU-ms per item, from each process’s CPU time (/proc) between the submit and \`completed\`; raw ORT at the ceiling spends ${raw.toFixed(2)} (${cores} cores ÷ ${r.ceiling.bestItemsPerSecond} items/s, every core busy):`,
    '',
    `| CPU-ms per item | ${runs.map(label).join(' | ')} |`,
    `|---|${runs.map(() => '---|').join('')}`,
    ...CPU_PARTS.filter(([k]) => runs.some((x) => x.cpuMsPerItem![k] !== undefined)).map(
      ([k, name]) => `| ${name} | ${runs.map((x) => x.cpuMsPerItem![k] ?? '–').join(' | ')} |`,
    ),
    `| total | ${runs.map((x) => x.cpuMsPerItem!.total).join(' | ')} |`,
    '',
  ];
}

const probe = (p: Probe) => `${p.p50} / ${p.p90} / ${p.p99} ms (n=${p.n}, errors ${p.errors})`;

function configList(byConfig: Record<string, number>): string {
  return Object.entries(byConfig)
    .map(([c, v]) => `${c}: ${v}`)
    .join(', ');
}

function ceilingLine(r: BulkReport): string {
  const { before, after } = r.ceiling;
  if (!before || !after) {
    return `Raw ORT ceiling: best ${r.ceiling.bestItemsPerSecond} items/s (${configList(r.ceiling.byConfig)}).`;
  }
  return [
    `Raw ORT ceiling: ${r.ceiling.bestItemsPerSecond} items/s, the better of two measurements:`,
    `before the jobs ${before.bestItemsPerSecond} (${configList(before.byConfig)});`,
    `after them ${after.bestItemsPerSecond} (${configList(after.byConfig)}).`,
  ].join(' ');
}

export function renderBulk(r: BulkReport): string {
  const lines = [
    `# Bulk jobs benchmark${r.quick ? ' (quick)' : ''}`,
    '',
    `${r.at} · ${r.machine.cores} cores (${r.machine.cpu}) · Node ${r.machine.node} · load average ${r.machine.loadavg.map((x) => x.toFixed(1)).join(' ')} (shared machine)`,
    '',
    `Model: ${r.model}. ${ceilingLine(r)}`,
    ...(r.host ? ['', `Host for the bulk runs: ${r.host}.`] : []),
    '',
    '| workers | online probe | items | seconds | items/s | ÷ raw ORT | 202 after | first result | Redis peak / 100k items |',
    '|---|---|---|---|---|---|---|---|---|',
    ...r.runs.map(
      (x) =>
        `| ${x.workers} | ${x.online ? 'yes' : 'no'} | ${x.items} | ${x.seconds} | ${x.itemsPerSecond} | ${x.ratioToRawOrt} | ${x.acceptedMs ?? '–'} ms | ${x.timeToFirstResultMs} ms | ${(x.redisPeakBytesPer100k / 1048576).toFixed(1)} MiB |`,
    ),
    '',
    'The bulk ÷ raw ORT goal is read on the jobs without the probe: the probe’s own requests take the same cores.',
    '',
    ...cpuTable(r),
  ];
  const withProbe = r.runs.find((x) => x.online);
  if (withProbe?.online) {
    const ratio = withProbe.online.withBulk.p99 / withProbe.online.idle.p99;
    lines.push(
      'Single predict (intent, another tenant, c=4), p50 / p90 / p99:',
      '',
      `- without bulk: ${probe(withProbe.online.idle)}`,
      `- while the ${withProbe.workers}-worker job runs: ${probe(withProbe.online.withBulk)} — p99 ratio ${ratio.toFixed(2)} (goal ≤ 2)`,
      '',
    );
  }
  lines.push(
    'Six concurrent 256-text `predict:batch` calls (acme) vs single predicts (c=1, tiny model), p50 / p90 / p99:',
    '',
    `- idle: ${probe(r.contention.idle)}`,
    `- under the batches: ${probe(r.contention.underBatches)} (${r.contention.batchCalls.completed} batch calls done, ${r.contention.batchCalls.errors} errors)`,
    '',
  );
  if (r.analysis) lines.push('## Analysis', '', ...r.analysis, '');
  return `${lines.join('\n')}\n`;
}
