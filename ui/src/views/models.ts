import { h, table } from '../dom';
import type { ViewFactory } from '../view';

interface Backend {
  address: string;
  error?: string;
  models: { model: string; version: string; state: string; reason: string; modelSha256?: string }[];
}

/** Models: each backend's repository index with states, reasons and digests. */
export const modelsView: ViewFactory = (root) => ({
  render(raw) {
    const backends = (raw as { backends: Backend[] }).backends;
    root.replaceChildren(
      ...backends.map((b) =>
        h(
          'section',
          { class: 'card', 'data-backend': b.address },
          h('h2', {}, `Backend ${b.address}`),
          b.error
            ? h('p', { class: 'bad' }, `unreachable: ${b.error}`)
            : table(
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
              ),
        ),
      ),
    );
  },
});
