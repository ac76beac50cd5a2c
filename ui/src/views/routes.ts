import { h, table, time } from '../dom';
import type { ViewFactory } from '../view';
import { editWeights } from './route-weights-dialog';

interface VersionRow {
  version: number;
  weight: number;
  routable: boolean;
  blocking: { routerId: string; reason: string }[];
}
interface Audit {
  epoch: number;
  who: string;
  when: string;
  action: string;
  target?: string;
}
interface RouteRow {
  tenant: string;
  task: string;
  model: string;
  versions: VersionRow[];
  shadow?: { version: number; percent?: number };
  activeRollout?: string;
  audit: Audit[];
}
interface RoutesData {
  epoch: number | null;
  routers: { routerId: string; epoch: number; at: number; inFlight: number }[];
  routes: RouteRow[];
  audit: Audit[];
}

/** Routes: tenant/task → versions and weights, routability per version, audit; weight edits. */
export const routesView: ViewFactory = (root, ctx) => {
  let epoch = 0;
  const dialog = h('dialog', { 'aria-labelledby': 'edit-title' }) as HTMLDialogElement;
  document.body.append(dialog);

  const edit = (route: RouteRow) => editWeights(dialog, route, epoch, ctx);

  return {
    render(raw) {
      const data = raw as RoutesData;
      epoch = data.epoch ?? 0;
      const rows = data.routes.map((r) => routeRow(r, edit));
      root.replaceChildren(
        h(
          'section',
          { class: 'card' },
          h(
            'h2',
            {},
            'Routes ',
            h(
              'span',
              { class: 'muted', 'data-epoch': epoch },
              `epoch ${data.epoch ?? 'not seeded'}`,
            ),
          ),
          table(
            ['Tenant', 'Task', 'Model', 'Versions (weight, routability)', 'Last changes', ''],
            rows,
            'Routes',
          ),
        ),
        routersSection(data.routers, epoch),
        auditSection(data.audit),
      );
    },
    dispose() {
      dialog.remove();
    },
  };
};

/** One route: who and what, each version's weight and routability, recent changes, edit. */
function routeRow(r: RouteRow, edit: (route: RouteRow) => void): HTMLElement {
  return h(
    'tr',
    { 'data-route': `${r.tenant}/${r.task}` },
    h('td', {}, r.tenant === '*' ? h('span', { title: 'default route' }, '* (default)') : r.tenant),
    h('td', {}, r.task),
    h('td', {}, r.model),
    versionsCell(r),
    h(
      'td',
      {},
      ...r.audit
        .slice(0, 3)
        .map((a) =>
          h('div', { class: 'muted' }, `#${a.epoch} ${a.action} by ${a.who} at ${time(a.when)}`),
        ),
    ),
    h(
      'td',
      {},
      r.activeRollout
        ? h('span', { class: 'warn' }, `rollout ${r.activeRollout}`)
        : h(
            'button',
            {
              type: 'button',
              onclick: () => edit(r),
              'aria-label': `Edit weights of ${r.tenant}/${r.task}`,
            },
            'Edit weights',
          ),
    ),
  );
}

/** Each version's weight and whether every live router can route it (why not, per router). */
function versionsCell(r: RouteRow): HTMLElement {
  return h(
    'td',
    {},
    ...r.versions.map((v) =>
      h(
        'div',
        { 'data-version': v.version },
        `v${v.version}: ${v.weight} `,
        v.routable
          ? h('span', { class: 'ok' }, 'routable')
          : h(
              'span',
              {
                class: 'bad',
                title: v.blocking.map((b) => `${b.routerId}: ${b.reason}`).join('\n'),
              },
              `not routable: ${v.blocking[0]?.reason ?? 'no live router'}`,
            ),
      ),
    ),
    r.shadow
      ? h('div', { class: 'muted' }, `shadow v${r.shadow.version} (${r.shadow.percent ?? 100} %)`)
      : null,
  );
}

/** Live routers with the epoch each has applied (behind the table's: warn). */
function routersSection(routers: RoutesData['routers'], epoch: number): HTMLElement {
  return h(
    'section',
    { class: 'card' },
    h('h2', {}, `Routers (${routers.length} live)`),
    table(
      ['Router', 'Epoch', 'In flight', 'Heartbeat'],
      routers.map((r) =>
        h(
          'tr',
          {},
          h('td', { class: 'mono' }, r.routerId),
          h('td', { class: r.epoch < epoch ? 'warn' : '' }, r.epoch),
          h('td', { class: 'num' }, r.inFlight),
          h('td', {}, time(r.at)),
        ),
      ),
      'Routers',
    ),
  );
}

/** The audit log of routing-table edits. */
function auditSection(audit: Audit[]): HTMLElement {
  return h(
    'section',
    { class: 'card' },
    h('h2', {}, 'Audit log'),
    table(
      ['Epoch', 'When', 'Who', 'Action', 'Target'],
      audit.map((a) =>
        h(
          'tr',
          {},
          h('td', { class: 'num' }, a.epoch),
          h('td', {}, time(a.when)),
          h('td', {}, a.who),
          h('td', {}, a.action),
          h('td', {}, a.target ?? '—'),
        ),
      ),
      'Audit log',
    ),
  );
}
