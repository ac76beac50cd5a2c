import { h } from '../dom';
import type { ViewContext } from '../view';

/** What the weights dialog shows and edits of a route. */
export interface WeightedRoute {
  tenant: string;
  task: string;
  model: string;
  versions: { version: number; weight: number }[];
}

/**
 * Opens the weight editor of `route` in `dialog`: the operator reviews the change (before →
 * after, at the epoch they saw) before applying it; a refusal (another edit since, a rollout
 * driving the route) shows in the dialog.
 */
export function editWeights(
  dialog: HTMLDialogElement,
  route: WeightedRoute,
  seenEpoch: number,
  ctx: ViewContext,
): void {
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
