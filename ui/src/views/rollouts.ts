import {
  OPERATOR_COMMANDS,
  acceptsCommand,
  isTerminal,
  roundForPeople,
  type OperatorCommandKind,
  type RolloutView as Rollout,
} from '@mesh/rollout-contract';
import { h, table, time } from '../dom';
import type { ViewFactory } from '../view';

/** Rollouts: list, and the selected one's timeline with its operator commands. */
export const rolloutsView: ViewFactory = (root, ctx) => {
  let selected: string | undefined;
  let last: Rollout[] = [];

  function command(r: Rollout, kind: OperatorCommandKind): void {
    if (kind !== 'pause' && kind !== 'resume' && !window.confirm(`${kind} rollout ${r.id}?`))
      return;
    ctx.api
      .json<Rollout>('POST', `/v1/rollouts/${encodeURIComponent(r.id)}/${kind}`)
      .then((answer) => {
        if (kind !== 'undo') return ctx.notify(`${kind} queued for ${r.id}`);
        // An undo is a new rollout: select it so its timeline shows at once.
        selected = answer.id;
        ctx.notify(`undo of ${r.id} started as ${answer.id}`);
      })
      .catch((err: Error) => ctx.notify(`${kind} refused: ${err.message}`, true));
  }

  function draw(): void {
    const rows = last.map((r) =>
      rolloutRow(r, () => {
        selected = r.id;
        draw();
      }),
    );
    const chosen = last.find((r) => r.id === selected);
    root.replaceChildren(
      h(
        'section',
        { class: 'card' },
        h('h2', {}, 'Rollouts'),
        rows.length > 0
          ? table(['Id', 'Route', 'Change', 'State', 'Step', ''], rows, 'Rollouts')
          : h(
              'p',
              { class: 'muted' },
              'No rollouts yet: create one with `POST /v1/rollouts` or `npm run mesh -- rollout`.',
            ),
      ),
      chosen
        ? rolloutDetail(chosen, command)
        : h('p', { class: 'muted' }, 'Choose a rollout to see its timeline.'),
    );
  }

  return {
    render(raw) {
      last = (raw as { rollouts: Rollout[] }).rollouts;
      if (selected === undefined && last[0]) selected = last[0].id;
      draw();
    },
  };
};

/** The selected rollout: plan, state, weights, its operator commands and timeline. */
function rolloutDetail(
  r: Rollout,
  command: (r: Rollout, kind: OperatorCommandKind) => void,
): HTMLElement {
  return h(
    'section',
    { class: 'card', 'aria-label': `Rollout ${r.id}`, 'data-rollout-detail': r.id },
    h('h2', {}, `Rollout ${r.id}`),
    h(
      'p',
      {},
      r.undoOf
        ? `${r.plan.tenant}/${r.plan.task}: ${r.plan.model}, undo of ${r.undoOf} back to ${r.finalWeights.map((w) => `v${w.version}: ${w.weight}`).join(', ')}`
        : `${r.plan.tenant}/${r.plan.task}: ${r.plan.model} → v${r.plan.toVersion}, steps ${r.plan.steps.map((s) => `${s.weight} %`).join(' → ')}`,
      r.undoneBy ? ` · undone by ${r.undoneBy}` : '',
    ),
    h(
      'p',
      {},
      'State ',
      h('strong', { 'data-state': r.state }, r.state),
      ` · step ${r.step}/${r.plan.steps.length} · weights ${r.weights.map((w) => `v${w.version}: ${w.weight}`).join(', ')}`,
      r.pendingCommand ? h('span', { class: 'warn' }, ` · ${r.pendingCommand} pending`) : null,
    ),
    h(
      'div',
      { class: 'actions' },
      ...OPERATOR_COMMANDS.map((kind) =>
        h(
          'button',
          {
            type: 'button',
            class: kind === 'abort' ? 'danger' : '',
            disabled: !acceptsCommand(r.state, kind),
            onclick: () => command(r, kind),
            'aria-label': `${kind} rollout ${r.id}`,
          },
          kind,
        ),
      ),
    ),
    h('h3', {}, 'Timeline'),
    timelineTable(r),
  );
}

/** Every transition of the rollout, with the gate values that decided it. */
function timelineTable(r: Rollout): HTMLElement {
  return table(
    ['At', 'Transition', 'Step', 'Reason', 'Gate values'],
    r.timeline.map((t) =>
      h(
        'tr',
        { 'data-to': t.to },
        h('td', {}, time(t.at)),
        h('td', {}, `${t.from} → ${t.to}`),
        h('td', { class: 'num' }, t.step),
        h('td', {}, t.reason),
        h(
          'td',
          { class: 'mono' },
          t.metrics
            ? Object.entries(t.metrics)
                .map(([k, v]) => `${k}=${typeof v === 'number' ? roundForPeople(v) : String(v)}`)
                .join(' ')
            : '—',
        ),
      ),
    ),
    `Timeline of ${r.id}`,
  );
}

/** One rollout in the list, with the button that shows its detail. */
function rolloutRow(r: Rollout, show: () => void): HTMLElement {
  return h(
    'tr',
    { 'data-rollout': r.id },
    h('td', { class: 'mono' }, r.id),
    h('td', {}, `${r.plan.tenant}/${r.plan.task}`),
    h('td', {}, `${r.plan.model} → v${r.plan.toVersion}`),
    h('td', { class: isTerminal(r.state) ? 'muted' : 'ok' }, r.state),
    h('td', { class: 'num' }, `${r.step}/${r.plan.steps.length}`),
    h(
      'td',
      {},
      h(
        'button',
        {
          type: 'button',
          'aria-label': `Show rollout ${r.id}`,
          onclick: show,
        },
        'Details',
      ),
    ),
  );
}
