import { fmt, h, table, time } from '../dom';
import type { ViewContext, ViewFactory } from '../view';

interface Job {
  id: string;
  tenant: string;
  task: string;
  state: string;
  reason?: string;
  total: number;
  processed: number;
  succeeded: number;
  failedItems: number;
  itemsPerSecond: number;
  etaSeconds: number | null;
  model: string;
  version: number;
  createdAt: string;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

function eta(s: number | null, state: string): string {
  if (TERMINAL.has(state)) return '—';
  if (s === null) return 'unknown';
  return s >= 90 ? `${Math.round(s / 60)} min` : `${s} s`;
}

/** One job's row: identity, state, progress, rate, ETA and its actions. */
function jobRow(j: Job, ctx: ViewContext): HTMLElement {
  return h(
    'tr',
    { 'data-job': j.id, 'data-state': j.state, 'data-processed': j.processed },
    h('td', { class: 'mono' }, j.id),
    h('td', {}, j.tenant),
    h('td', {}, j.task, h('div', { class: 'muted' }, `${j.model} v${j.version}`)),
    h(
      'td',
      { class: j.state === 'failed' ? 'bad' : j.state === 'completed' ? 'ok' : '' },
      j.state,
      j.reason ? h('div', { class: 'muted' }, j.reason) : null,
    ),
    h(
      'td',
      {},
      h('progress', {
        max: j.total,
        value: j.processed,
        'aria-label': `Progress of job ${j.id}`,
      }),
      h(
        'div',
        { class: 'muted' },
        `${j.processed}/${j.total}${j.failedItems ? `, ${j.failedItems} failed` : ''}`,
      ),
    ),
    h('td', { class: 'num' }, fmt(j.itemsPerSecond)),
    h('td', { class: 'num' }, eta(j.etaSeconds, j.state)),
    h('td', {}, time(j.createdAt)),
    jobActions(j, ctx),
  );
}

/** Cancel (asks first; not for an ended job) and results download (once any item ran). */
function jobActions(j: Job, ctx: ViewContext): HTMLElement {
  return h(
    'td',
    { class: 'actions' },
    h(
      'button',
      {
        type: 'button',
        class: 'danger',
        disabled: TERMINAL.has(j.state),
        'aria-label': `Cancel job ${j.id}`,
        onclick: () => {
          if (!window.confirm(`Cancel job ${j.id} of ${j.tenant}?`)) return;
          ctx.api
            .json('POST', `/v1/dashboard/jobs/${encodeURIComponent(j.id)}/cancel`)
            .then(() => ctx.notify(`Job ${j.id} cancelled`))
            .catch((err: Error) => ctx.notify(err.message, true));
        },
      },
      'Cancel',
    ),
    h(
      'button',
      {
        type: 'button',
        disabled: j.processed === 0,
        'aria-label': `Download results of job ${j.id}`,
        onclick: () =>
          void ctx.api
            .download(`/v1/dashboard/jobs/${encodeURIComponent(j.id)}/results`, `${j.id}.ndjson`)
            .catch((err: Error) => ctx.notify(err.message, true)),
      },
      'Results',
    ),
  );
}

/** Jobs: bulk jobs of every tenant with progress, rate, ETA; cancel and results download. */
export const jobsView: ViewFactory = (root, ctx) => ({
  render(raw) {
    const jobs = (raw as { jobs: Job[] }).jobs;
    const rows = jobs.map((j) => jobRow(j, ctx));
    root.replaceChildren(
      h(
        'section',
        { class: 'card' },
        h('h2', {}, `Bulk jobs (${jobs.length})`),
        rows.length > 0
          ? table(
              ['Job', 'Tenant', 'Task', 'State', 'Progress', 'items/s', 'ETA', 'Created', ''],
              rows,
              'Bulk jobs',
            )
          : h('p', { class: 'muted' }, 'No bulk jobs in the retention period.'),
      ),
    );
  },
});
