import { setTimeout as sleep } from 'node:timers/promises';

export const DASHBOARD_VIEWS = ['routes', 'traffic', 'rollouts', 'jobs', 'models'] as const;
export type DashboardView = (typeof DASHBOARD_VIEWS)[number];

/** How one view is read, and how often its live stream re-reads it. */
export interface DashboardFeed {
  read(): Promise<unknown>;
  everyMs: number;
}

export type DashboardFeeds = Record<DashboardView, DashboardFeed>;

/** One NDJSON line of a view's stream: a new snapshot, or why the last read failed. */
export type FeedLine =
  | { view: DashboardView; at: number; data: unknown }
  | { view: DashboardView; at: number; error: string };

/** An empty line keeps proxies from closing a stream whose view has not changed. */
const KEEPALIVE_MS = 15_000;

/**
 * A view's snapshots as NDJSON lines: the first at once, then one whenever a re-read differs
 * from the last line sent. A failed read becomes an `error` line and the stream goes on, so
 * the page can show that its data is stale instead of silently freezing.
 */
export async function* feedLines(
  view: DashboardView,
  feed: DashboardFeed,
  signal: AbortSignal,
  now: () => number = Date.now,
): AsyncGenerator<string> {
  let last = '';
  let sentAt = now();
  while (!signal.aborted) {
    let line: FeedLine;
    try {
      line = { view, at: now(), data: await feed.read() };
    } catch (err: unknown) {
      line = { view, at: now(), error: err instanceof Error ? err.message : String(err) };
    }
    const key = JSON.stringify('data' in line ? line.data : line.error);
    if (key !== last) {
      last = key;
      sentAt = now();
      yield `${JSON.stringify(line)}\n`;
    } else if (now() - sentAt >= KEEPALIVE_MS) {
      sentAt = now();
      yield '\n';
    }
    await sleep(feed.everyMs, undefined, { signal }).catch(() => undefined);
  }
}
