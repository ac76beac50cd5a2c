import { summarize, type LatencySummary } from '../bulk/bench-stats';
import type { Sample } from './placement-traffic';

export interface ArmRound {
  arm: 'placed' | 'all-resident';
  round: number;
  seconds: number;
  requests: number;
  failed: number;
  /** Every answered request. */
  latency: LatencySummary;
  /** Requests that found their version resident (no cold-start wait). */
  warm: LatencySummary;
  /** The router's cold-start waits of the requests that had one. */
  coldWait: LatencySummary;
  hitRatio: number;
  /** Audited loads and evictions during the round, per minute. */
  loadsPerMinute: number;
  evictionsPerMinute: number;
  /** Sum over the arm's hosts: the largest RSS seen, and the ledger at the end. */
  rssMb: number;
  ledgerMb: number;
  /** Ledger entries above their budget seen during the round. */
  overBudget: number;
}

export interface PlacementReport {
  name: 'placement';
  date: string;
  quick: boolean;
  machine: { cores: number; cpu: string; node: string };
  catalog: {
    versions: number;
    model: string;
    footprintMb: number;
    budgetMbPerHost: number;
    hosts: number;
    zipfS: number;
    hotSet: string[];
    concurrency: number;
  };
  load: { medianMs: number; maxMs: number; rssDeltaMb: number[] };
  rounds: ArmRound[];
  /** Unloads that left a hot-set version resident nowhere, after the first placed round. */
  hotSetEvictionsAfterSettle: string[];
  /** Unloads of one copy of a hot-set version (others may still serve it), after settling. */
  hotSetCopyUnloadsAfterSettle: number;
  goals: { goal: string; measured: string; met: boolean }[];
  durationSeconds: number;
}

/** One arm's round, from its samples and what the probes saw while it ran. */
export function summarizeRound(
  base: Pick<
    ArmRound,
    | 'arm'
    | 'round'
    | 'seconds'
    | 'loadsPerMinute'
    | 'evictionsPerMinute'
    | 'rssMb'
    | 'ledgerMb'
    | 'overBudget'
  >,
  samples: readonly Sample[],
): ArmRound {
  const ok = samples.filter((s) => s.status === 200);
  const warm = ok.filter((s) => s.coldMs === undefined);
  return {
    ...base,
    requests: samples.length,
    failed: samples.length - ok.length,
    latency: summarize(ok.map((s) => s.ms)),
    warm: summarize(warm.map((s) => s.ms)),
    coldWait: summarize(ok.flatMap((s) => (s.coldMs === undefined ? [] : [s.coldMs]))),
    hitRatio: ok.length > 0 ? round(warm.length / ok.length, 4) : 0,
  };
}

export function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

const fmt = (x: number) => (Number.isFinite(x) ? String(round(x, 2)) : '–');

export function renderMarkdown(r: PlacementReport): string {
  const c = r.catalog;
  const lines = [
    '# Placement: many models on a memory budget',
    '',
    `${r.date} · ${r.machine.cores} cores, ${r.machine.cpu} · Node ${r.machine.node}` +
      (r.quick ? ' · **--quick**' : ''),
    '',
    `${c.versions} copies of \`${c.model}\` (footprint ${c.footprintMb} MB each, as the host measured it) ` +
      `on ${c.hosts} hosts. Placed arm: each host's budget ${c.budgetMbPerHost} MB ` +
      `(${Math.floor(c.budgetMbPerHost / c.footprintMb)} versions). All-resident arm: the same hosts ` +
      `without a budget, every version loaded on each. Traffic: Zipf(s=${c.zipfS}) over all versions, ` +
      `closed loop, ${c.concurrency} clients, the same seeded sequence for both arms; rounds interleaved. ` +
      `Hot set (80 % of traffic): ${c.hotSet.length} versions. A version's load took ${fmt(r.load.medianMs)} ms ` +
      `(median; max ${fmt(r.load.maxMs)} ms).`,
    '',
    '## Goals',
    '',
    '| goal | measured | met |',
    '| --- | --- | --- |',
    ...r.goals.map((g) => `| ${g.goal} | ${g.measured} | ${g.met ? 'yes' : '**no**'} |`),
    '',
    '## Rounds',
    '',
    '| arm | round | requests | failed | p50 ms | p99 ms | warm p99 ms | cold waits | cold wait p50 / p99 ms | hit ratio | loads/min | evictions/min | ledger MB | RSS MB | over budget |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...r.rounds.map(
      (x) =>
        `| ${x.arm} | ${x.round} | ${x.requests} | ${x.failed} | ${fmt(x.latency.p50)} | ${fmt(x.latency.p99)} | ` +
        `${fmt(x.warm.p99)} | ${x.coldWait.n} | ${fmt(x.coldWait.p50)} / ${fmt(x.coldWait.p99)} | ` +
        `${x.hitRatio} | ${fmt(x.loadsPerMinute)} | ${fmt(x.evictionsPerMinute)} | ${fmt(x.ledgerMb)} | ` +
        `${fmt(x.rssMb)} | ${x.overBudget} |`,
    ),
    '',
    `Hot-set versions left resident nowhere after the first placed round: ${r.hotSetEvictionsAfterSettle.length === 0 ? 'none' : r.hotSetEvictionsAfterSettle.join(', ')}. ` +
      `Unloads of one copy of a hot-set version in that time: ${r.hotSetCopyUnloadsAfterSettle}.`,
    '',
    `Run time ${Math.round(r.durationSeconds)} s. Reproduce: \`npm run bench:placement${r.quick ? ' -- --quick' : ''}\`.`,
    '',
  ];
  return lines.join('\n');
}
