import { ERROR_TABLE } from '@mesh/errors';

/** Traffic of one version (or task) over a window, across every router. */
export interface VersionSignals {
  requests: number;
  /** Requests the version failed: the server-side classes (VERSION_ERROR_CODES) of errorsByClass. */
  errors: number;
  /** Every non-ok outcome by code, client mistakes (e.g. TEXT_TOO_LONG) included. */
  errorsByClass: Record<string, number>;
  /** errors / requests; 0 without requests. */
  errorRate: number;
  /** requests / window length in seconds. */
  ratePerSecond: number;
  /** Latency percentiles of successful requests; null without any. */
  p50Ms: number | null;
  p99Ms: number | null;
}

export interface TrafficSignalQuery {
  task: string;
  /** Omitted: every model of the task. */
  model?: string;
  /** Omitted: every version (of `model`, or of the task). */
  version?: number;
  /** Window start, unix ms (inclusive). */
  fromMs: number;
  /** Window end, unix ms (exclusive). */
  toMs: number;
}

/** Shadow copies of one version compared with the primary's answers, across every router. */
export interface ShadowAgreement {
  /** Mirrored items whose label was compared with the primary's. */
  compared: number;
  /** Of those, items whose shadow label equalled the primary's. */
  agreed: number;
  /** agreed / compared; null without comparisons. */
  agreement: number | null;
}

/** Where a rollout's shadow phase reads the measured agreement (`version` is the shadow). */
export interface ShadowAgreementSource {
  readShadow(q: TrafficSignalQuery): Promise<ShadowAgreement>;
}

/** Where rollout gates, the low-load detector and dashboards read per-version traffic. */
export interface TrafficSignalSource {
  read(q: TrafficSignalQuery): Promise<VersionSignals>;
}

/** One (task, model, version) that served requests. */
export interface TrafficVersionRef {
  task: string;
  model: string;
  version: number;
}

/**
 * Which versions served requests in a window, whether the routing table still names them or
 * not: a dashboard keeps a version a rollout retired while its traffic is in the window.
 */
export interface TrafficVersionsSource {
  versionsWithTraffic(window: { fromMs: number; toMs: number }): Promise<TrafficVersionRef[]>;
}

/**
 * Outcomes that count as the version's error: the server-side classes (HTTP 5xx). Client
 * mistakes (bad input, text too long) count as requests only, so users cannot fail a gate.
 */
export const VERSION_ERROR_CODES: readonly string[] = Object.entries(ERROR_TABLE)
  .filter(([, m]) => m.http >= 500)
  .map(([code]) => code);

export function isVersionError(outcome: string): boolean {
  return outcome !== 'ok' && (VERSION_ERROR_CODES.includes(outcome) || outcome.startsWith('GRPC_'));
}

/** Sum of the server-side classes of an errorsByClass map. */
export function versionErrors(errorsByClass: Record<string, number>): number {
  return Object.entries(errorsByClass)
    .filter(([code]) => isVersionError(code))
    .reduce((sum, [, n]) => sum + n, 0);
}
