import type { ItemResult, PinnedVersion } from './job.types';

/** One line of a job's results: a prediction on the pinned version, or an item error. */
export type JobResultLine = { index: number; id?: string | number } & (
  | ({ model: string; version: number; pipeline: string } & (
      | { label: string; score: number; scores: { label: string; score: number }[] }
      | { embedding: number[] }
    ))
  | { error: { code: string; message: string } }
);

/** The wire form of item `index`'s result, shared by every API that hands results out. */
export function jobResultLine(
  index: number,
  id: string | number | undefined,
  pin: PinnedVersion,
  r: ItemResult,
): JobResultLine {
  const head = id === undefined ? { index } : { index, id };
  switch (r.kind) {
    case 'classification':
      return { ...head, ...pin, label: r.label, score: r.score, scores: r.scores };
    case 'embedding':
      return { ...head, ...pin, embedding: Array.from(r.embedding) };
    case 'error':
      return { ...head, error: r.error };
  }
}
