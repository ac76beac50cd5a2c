import { h, table, time } from '../dom';
import type { ViewFactory } from '../view';

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

  function edit(route: RouteRow): void {
    const seenEpoch = epoch;
    const inputs = route.versions.map(
      (v) =>
        h('input', {
          type: 'number',
          min: 0,
          max: 100,
          step: 1,
          value: v.weight,
          id: `w-${v.version}`,
          'aria-label': `Weight of version ${v.version}`,
        }) as HTMLInputElement,
    );
    const message = h('p', { role: 'status' });
    const confirm = h(
      'button',
      { type: 'button', class: 'primary', hidden: true },
      'Apply change',
    ) as HTMLButtonElement;
    const review = h('button', { type: 'button' }, 'Review change') as HTMLButtonElement;
    const next = () =>
      route.versions.map((v, i) => ({ version: v.version, weight: Number(inputs[i]!.value) }));
    review.addEventListener('click', () => {
      const before = route.versions.map((v) => `v${v.version}: ${v.weight}`).join(', ');
      const after = next()
        .map((v) => `v${v.version}: ${v.weight}`)
        .join(', ');
      message.textContent = `Change ${route.tenant}/${route.task} from [${before}] to [${after}] at epoch ${seenEpoch}?`;
      confirm.hidden = false;
    });
    confirm.addEventListener('click', () => {
      confirm.disabled = true;
      const path = `/v1/dashboard/routes/${encodeURIComponent(route.tenant)}/${encodeURIComponent(route.task)}/weights`;
      ctx.api
        .json<{ epoch: number }>('PUT', path, { expectedEpoch: seenEpoch, versions: next() })
        .then((res) => {
          ctx.notify(`Weights of ${route.tenant}/${route.task} saved (epoch ${res.epoch})`);
          dialog.close();
        })
        .catch((err: Error) => {
          message.textContent = `Refused: ${err.message}`;
          message.className = 'error';
          confirm.disabled = false;
        });
    });
    dialog.replaceChildren(
      h('h2', { id: 'edit-title' }, `Weights of ${route.tenant}/${route.task} (${route.model})`),
      ...route.versions.map((v, i) =>
        h('p', {}, h('label', { for: `w-${v.version}` }, `Version ${v.version}`), inputs[i]),
      ),
      message,
      h(
        'div',
        { class: 'actions' },
        review,
        confirm,
        h('button', { type: 'button', onclick: () => dialog.close() }, 'Cancel'),
      ),
    );
    dialog.showModal();
  }

  return {
    render(raw) {
      const data = raw as RoutesData;
      epoch = data.epoch ?? 0;
      const rows = data.routes.map((r) =>
        h(
          'tr',
          { 'data-route': `${r.tenant}/${r.task}` },
          h(
            'td',
            {},
            r.tenant === '*' ? h('span', { title: 'default route' }, '* (default)') : r.tenant,
          ),
          h('td', {}, r.task),
          h('td', {}, r.model),
          h(
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
              ? h(
                  'div',
                  { class: 'muted' },
                  `shadow v${r.shadow.version} (${r.shadow.percent ?? 100} %)`,
                )
              : null,
          ),
          h(
            'td',
            {},
            ...r.audit
              .slice(0, 3)
              .map((a) =>
                h(
                  'div',
                  { class: 'muted' },
                  `#${a.epoch} ${a.action} by ${a.who} at ${time(a.when)}`,
                ),
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
        ),
      );
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
        h(
          'section',
          { class: 'card' },
          h('h2', {}, `Routers (${data.routers.length} live)`),
          table(
            ['Router', 'Epoch', 'In flight', 'Heartbeat'],
            data.routers.map((r) =>
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
        ),
        h(
          'section',
          { class: 'card' },
          h('h2', {}, 'Audit log'),
          table(
            ['Epoch', 'When', 'Who', 'Action', 'Target'],
            data.audit.map((a) =>
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
        ),
      );
    },
    dispose() {
      dialog.remove();
    },
  };
};
