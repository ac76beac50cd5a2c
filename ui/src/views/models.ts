import { h, table, time } from '../dom';
import type { ViewFactory } from '../view';

interface Resident {
  model: string;
  version: number;
  mb: number;
  since: number;
  lastUsedAt: number;
}

interface Backend {
  address: string;
  error?: string;
  models: { model: string; version: string; state: string; reason: string; modelSha256?: string }[];
  ledger?: { budgetMb: number | null; usedMb: number; resident: Resident[]; at: number };
}

interface Decision {
  at: number;
  action: 'load' | 'unload';
  model: string;
  version: number;
  backend: string;
  reason: string;
  mb: number;
  error?: string;
}

/** Ledger MB against the budget as a bar (no budget: the MB alone). */
function ledgerBar(address: string, ledger: NonNullable<Backend['ledger']>): HTMLElement {
  const used = Math.round(ledger.usedMb);
  if (ledger.budgetMb === null) return h('p', {}, `${used} MB placed, no budget`);
  const label = `${used} / ${Math.round(ledger.budgetMb)} MB`;
  return h(
    'p',
    {},
    h('progress', {
      max: ledger.budgetMb,
      value: Math.min(ledger.usedMb, ledger.budgetMb),
      'aria-label': `Memory placed on ${address}: ${label}`,
    }),
    ` ${label}`,
  );
}

function residentTable(address: string, resident: Resident[]): HTMLElement {
  const rows = [...resident]
    .sort((a, b) => b.lastUsedAt - a.lastUsedAt)
    .map((r) =>
      h(
        'tr',
        { 'data-resident': `${r.model}/${r.version}` },
        h('td', {}, r.model),
        h('td', {}, String(r.version)),
        h('td', {}, `${Math.round(r.mb)} MB`),
        h('td', {}, r.lastUsedAt > 0 ? time(r.lastUsedAt) : 'never'),
        h('td', {}, time(r.since)),
      ),
    );
  return table(
    ['Model', 'Version', 'Footprint', 'Last use', 'Resident since'],
    rows,
    `Versions placed on ${address}`,
  );
}

function indexTable(b: Backend): HTMLElement {
  return table(
    ['Model', 'Version', 'State', 'Reason', 'model_sha256'],
    b.models.map((m) =>
      h(
        'tr',
        { 'data-model': `${m.model}/${m.version}` },
        h('td', {}, m.model),
        h('td', {}, m.version),
        h('td', { class: m.state === 'READY' ? 'ok' : 'warn' }, m.state),
        h('td', {}, m.reason || '—'),
        h(
          'td',
          { class: 'mono', title: m.modelSha256 ?? '' },
          m.modelSha256 ? `${m.modelSha256.slice(0, 16)}…` : '—',
        ),
      ),
    ),
    `Repository index of ${b.address}`,
  );
}

function decisionsCard(decisions: Decision[]): HTMLElement {
  return h(
    'section',
    { class: 'card', 'data-placement-decisions': '' },
    h('h2', {}, 'Recent placement decisions'),
    decisions.length === 0
      ? h('p', {}, 'none yet')
      : table(
          ['Time', 'Action', 'Model', 'Version', 'Backend', 'Reason', 'MB'],
          decisions.map((d) =>
            h(
              'tr',
              {},
              h('td', {}, time(d.at)),
              h('td', { class: d.error ? 'bad' : '' }, d.error ? `${d.action} failed` : d.action),
              h('td', {}, d.model),
              h('td', {}, String(d.version)),
              h('td', {}, d.backend),
              h('td', { title: d.error ?? '' }, d.reason),
              h('td', {}, String(Math.round(d.mb))),
            ),
          ),
          'Recent placement decisions',
        ),
  );
}

/**
 * Models: per backend the placer's ledger (MB placed against the budget, resident versions with
 * their last use) and the repository index with states, reasons and digests; then the placer's
 * recent decisions.
 */
export const modelsView: ViewFactory = (root) => ({
  render(raw) {
    const view = raw as { backends: Backend[]; decisions?: Decision[] };
    root.replaceChildren(
      ...view.backends.map((b) =>
        h(
          'section',
          { class: 'card', 'data-backend': b.address },
          h('h2', {}, `Backend ${b.address}`),
          b.ledger ? ledgerBar(b.address, b.ledger) : null,
          b.ledger ? residentTable(b.address, b.ledger.resident) : null,
          b.error ? h('p', { class: 'bad' }, `unreachable: ${b.error}`) : indexTable(b),
        ),
      ),
      decisionsCard(view.decisions ?? []),
    );
  },
});
