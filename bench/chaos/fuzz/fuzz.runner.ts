import fc from 'fast-check';
import type { AnyFuzzTarget } from './fuzz.target';

export interface FuzzOptions {
  /** Requests per API. */
  runs: number;
  /** fast-check seed: the same seed replays the same inputs. */
  seed: number;
  /** Requests in flight per API at once. */
  concurrency: number;
}

/** A failing input and what was wrong with the answer. */
export interface FuzzFinding {
  api: string;
  problem: string;
  input: string;
}

export interface ApiFuzzResult {
  api: string;
  sent: number;
  /** Answers by outcome (`200`, `400 INVALID_JSON`, `grpc INVALID_ARGUMENT` …). */
  outcomes: Record<string, number>;
  /** Answers that broke the contract (5xx, crash, hang, undocumented shape). */
  violations: number;
  /** Those answers by outcome. */
  violationOutcomes: Record<string, number>;
  /** Requests that got no answer at all (connection reset, timeout). */
  unanswered: number;
  findings: FuzzFinding[];
  durationMs: number;
}

/** Findings kept per API (the counts are complete; the samples are for the report). */
const KEPT_FINDINGS = 5;

/**
 * Sends `runs` generated inputs to each target (APIs one after the other, `concurrency`
 * requests of one API in flight) and judges every answer. Inputs come from fast-check with a
 * fixed seed, so a finding can be replayed; every input is sent even after a failure, so the
 * counts say how often, not just whether.
 */
export async function runFuzz(
  targets: readonly AnyFuzzTarget[],
  opts: FuzzOptions,
): Promise<ApiFuzzResult[]> {
  const results: ApiFuzzResult[] = [];
  for (const [i, target] of targets.entries()) {
    results.push(await fuzzOne(target, { ...opts, seed: opts.seed + i }));
  }
  return results;
}

async function fuzzOne(target: AnyFuzzTarget, opts: FuzzOptions): Promise<ApiFuzzResult> {
  const started = Date.now();
  const inputs = fc.sample(target.cases, { numRuns: opts.runs, seed: opts.seed });
  const result: ApiFuzzResult = {
    api: target.api,
    sent: 0,
    outcomes: {},
    violations: 0,
    violationOutcomes: {},
    unanswered: 0,
    findings: [],
    durationMs: 0,
  };
  const note = (outcome: string, problem: string, input: unknown) => {
    result.violations++;
    result.violationOutcomes[outcome] = (result.violationOutcomes[outcome] ?? 0) + 1;
    if (result.findings.length < KEPT_FINDINGS) {
      result.findings.push({ api: target.api, problem, input: target.describe(input) });
    }
  };
  let next = 0;
  const worker = async () => {
    while (next < inputs.length) {
      const input = inputs[next++];
      result.sent++;
      try {
        const verdict = await target.send(input);
        result.outcomes[verdict.outcome] = (result.outcomes[verdict.outcome] ?? 0) + 1;
        if (verdict.problem) note(verdict.outcome, verdict.problem, input);
      } catch (err: unknown) {
        result.unanswered++;
        result.outcomes.unanswered = (result.outcomes.unanswered ?? 0) + 1;
        note('unanswered', `no answer: ${err instanceof Error ? err.message : String(err)}`, input);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency) }, worker));
  result.durationMs = Date.now() - started;
  return result;
}
