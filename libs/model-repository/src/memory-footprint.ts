import type { ModelConfig } from './model-config.types';

/**
 * A version's resident memory in whole MB, as config.pbtxt declares it (`memory_mb_v<N>`,
 * written by `mesh model add` from a measured load) and as placers add it up against a
 * backend's budget. Pure: the host measures, this only names, reads and rounds.
 */

const MB = 1024 * 1024;
const KEY = /^memory_mb_v(\d+)$/;

/** The config.pbtxt parameter holding version `version`'s footprint. */
export function memoryParameterKey(version: number | string): string {
  return `memory_mb_v${version}`;
}

/** A positive, finite number of MB, or undefined for anything else (absent, "", "abc", "-1"). */
export function parseMemoryMb(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const n = Number(text);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/**
 * One line per `memory_mb_v<N>` parameter that is not a positive number, naming it and its
 * value; callers prefix the file. A typo here would silently size a placement wrong.
 */
export function memoryParameterProblems(config: ModelConfig): string[] {
  return Object.entries(config.parameters)
    .filter(([k]) => KEY.test(k))
    .filter(([, p]) => parseMemoryMb(p.stringValue) === undefined)
    .map(
      ([k, p]) =>
        `parameter '${k}' must be a positive number of MB (got ${JSON.stringify(p.stringValue ?? '')})`,
    );
}

/** The declared footprint of `version`, or undefined when the parameter is absent or invalid. */
export function declaredMemoryMb(
  config: ModelConfig,
  version: number | string,
): number | undefined {
  return parseMemoryMb(config.parameters[memoryParameterKey(version)]?.stringValue);
}

/** Bytes as whole MB, rounded up, at least 1: a version never costs nothing. */
export function wholeMb(bytes: number): number {
  return Math.max(1, Math.ceil(Math.max(0, bytes) / MB));
}

/**
 * A footprint for a version nobody measured: each session holds roughly the model's weights,
 * one per instance plus one (the lone-batch session, or ORT's working memory).
 */
export function estimateMemoryMb(modelFileBytes: number, instances: number): number {
  return wholeMb(modelFileBytes * (Math.max(1, instances) + 1));
}
