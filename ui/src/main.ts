import { Api, ApiError } from './api';
import { h } from './dom';
import type { View, ViewContext, ViewFactory } from './view';
import { jobsView } from './views/jobs';
import { modelsView } from './views/models';
import { rolloutsView } from './views/rollouts';
import { routesView } from './views/routes';
import { trafficView } from './views/traffic';

const VIEWS: Record<string, { title: string; factory: ViewFactory }> = {
  routes: { title: 'Routes', factory: routesView },
  traffic: { title: 'Traffic', factory: trafficView },
  rollouts: { title: 'Rollouts', factory: rolloutsView },
  jobs: { title: 'Jobs', factory: jobsView },
  models: { title: 'Models', factory: modelsView },
};

const app = document.getElementById('app')!;

/** The key is asked for on every page load and kept in memory only. */
function signIn(error?: string): void {
  const input = h('input', {
    id: 'admin-key',
    type: 'password',
    autocomplete: 'off',
    required: true,
  }) as HTMLInputElement;
  const form = h(
    'form',
    { class: 'signin', 'aria-label': 'Sign in' },
    h('h1', {}, 'Model mesh dashboard'),
    h('label', { for: 'admin-key' }, 'Admin API key'),
    input,
    error ? h('p', { class: 'error', role: 'alert' }, error) : null,
    h('button', { type: 'submit', class: 'primary' }, 'Sign in'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const api = new Api(input.value);
    api
      .json('GET', '/v1/dashboard/routes')
      .then(() => shell(api))
      .catch((err: unknown) =>
        signIn(
          err instanceof ApiError && err.status < 500
            ? 'That key was refused.'
            : `Sign-in failed: ${String(err)}`,
        ),
      );
  });
  app.replaceChildren(form);
  input.focus();
}

function shell(api: Api): void {
  const status = h('span', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const links = Object.entries(VIEWS).map(([id, v]) =>
    h('a', { href: `#/${id}`, 'data-view': id }, v.title),
  );
  const root = h('div', { id: 'view' });
  app.replaceChildren(
    h(
      'header',
      {},
      h('h1', {}, 'Model mesh'),
      h('nav', { 'aria-label': 'Views' }, ...links),
      status,
    ),
    h('main', {}, root),
  );
  const ctx: ViewContext = {
    api,
    notify(message, isError = false) {
      status.textContent = message;
      status.className = `status ${isError ? 'stale' : ''}`;
    },
  };
  let current: { view: View; stop: AbortController } | undefined;

  const open = () => {
    const id =
      location.hash.replace(/^#\//, '') in VIEWS ? location.hash.replace(/^#\//, '') : 'routes';
    current?.stop.abort();
    current?.view.dispose?.();
    for (const a of links) a.toggleAttribute('aria-current', false);
    links.find((a) => a.dataset.view === id)?.setAttribute('aria-current', 'page');
    document.title = `${VIEWS[id]!.title} — model mesh`;
    root.replaceChildren(h('p', { class: 'muted' }, 'Loading…'));
    root.dataset.view = id;
    const view = VIEWS[id]!.factory(root, ctx);
    const stop = new AbortController();
    current = { view, stop };
    void api.follow(
      `/v1/dashboard/${id}/stream`,
      (line) => {
        if ('error' in line)
          return ctx.notify(
            `${VIEWS[id]!.title}: read failed (${line.error}); showing older data`,
            true,
          );
        view.render(line.data);
        root.dataset.updated = String(line.at);
        ctx.notify(`Live · updated ${new Date(line.at).toLocaleTimeString()}`);
      },
      (why) => ctx.notify(`Disconnected (${why}); reconnecting…`, true),
      stop.signal,
    );
  };
  window.addEventListener('hashchange', open);
  open();
}

signIn();
