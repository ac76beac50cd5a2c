import { roundForPeople } from '@mesh/rollout-contract';
import uPlot from 'uplot';
import { fmt, h, pct, table } from '../dom';
import type { ViewFactory } from '../view';

interface Signals {
  requests: number;
  errors: number;
  errorRate: number;
  ratePerSecond: number;
  p50Ms: number | null;
  p99Ms: number | null;
}
interface Row {
  task: string;
  model: string;
  version: number;
  /** No longer in the route (e.g. a rollout retired it) but it had traffic in the window. */
  retired: boolean;
  summary: Signals;
  series: {
    ratePerSecond: number[];
    errorRate: number[];
    p50Ms: (number | null)[];
    p99Ms: (number | null)[];
  };
}
interface TrafficData {
  fromMs: number;
  toMs: number;
  stepMs: number;
  times: number[];
  rows: Row[];
}

const COLORS = ['#0b5cad', '#c2410c', '#1a7f37', '#7c3aed', '#b42318', '#0e7490'];

/** `v1`, or `v1 (retired)` for a version the route no longer names. */
function versionLabel(r: Row): string {
  return r.retired ? `v${r.version} (retired)` : `v${r.version}`;
}

/** One version's signals over the window; a retired version is muted. */
function signalsRow(r: Row): HTMLElement {
  return h(
    'tr',
    {
      'data-version': `${r.model}/${r.version}`,
      'data-retired': r.retired,
      class: r.retired ? 'muted' : undefined,
    },
    h('td', {}, r.model),
    h('td', {}, versionLabel(r)),
    h('td', { class: 'num', 'data-requests': r.summary.requests }, r.summary.requests),
    h('td', { class: 'num' }, fmt(r.summary.ratePerSecond, 2)),
    h('td', { class: `num ${r.summary.errorRate > 0.01 ? 'bad' : ''}` }, pct(r.summary.errorRate)),
    h('td', { class: 'num' }, r.summary.p50Ms === null ? '—' : `${fmt(r.summary.p50Ms)} ms`),
    h('td', { class: 'num' }, r.summary.p99Ms === null ? '—' : `${fmt(r.summary.p99Ms)} ms`),
  );
}

/** One line per version, in a stable colour order, values rounded for people. */
function chartOptions(rows: Row[], unit: string, width: number): uPlot.Options {
  return {
    width,
    height: 180,
    series: [
      {},
      ...rows.map((r, i) => ({
        label: versionLabel(r),
        stroke: COLORS[i % COLORS.length],
        width: 2,
        value: (_u: uPlot, v: number | null) => (v === null ? '—' : `${roundForPeople(v)} ${unit}`),
      })),
    ],
    axes: [{}, { label: unit, size: 60 }],
    scales: { x: { time: true } },
  };
}

/**
 * Traffic: per task and version, the last 15 minutes as the rollout gates read them; a version
 * a rollout retired stays, marked, while its traffic is in the window.
 */
export const trafficView: ViewFactory = (root) => {
  let charts: uPlot[] = [];

  function chart(
    title: string,
    times: number[],
    rows: Row[],
    pick: (r: Row) => (number | null)[],
    unit: string,
  ): HTMLElement {
    const box = h('div', {
      class: 'chart',
      role: 'img',
      'aria-label': `${title} per version over the last 15 minutes`,
    });
    const width = Math.max(300, Math.min(640, root.clientWidth - 48));
    const plot = new uPlot(
      chartOptions(rows, unit, width),
      [times.map((t) => t / 1000), ...rows.map(pick)] as uPlot.AlignedData,
      box,
    );
    charts.push(plot);
    return h('div', {}, h('h3', {}, title), box);
  }

  return {
    render(raw) {
      const data = raw as TrafficData;
      for (const c of charts) c.destroy();
      charts = [];
      const tasks = [...new Set(data.rows.map((r) => r.task))];
      const sections = tasks.map((task) => {
        const rows = data.rows.filter((r) => r.task === task);
        return h(
          'section',
          { class: 'card', 'data-task': task },
          h('h2', {}, task),
          table(
            ['Model', 'Version', 'Requests', 'req/s', 'Error rate', 'p50', 'p99'],
            rows.map(signalsRow),
            `Traffic of ${task}`,
          ),
          h(
            'div',
            { class: 'charts' },
            chart('Requests per second', data.times, rows, (r) => r.series.ratePerSecond, 'req/s'),
            chart('p99 latency', data.times, rows, (r) => r.series.p99Ms, 'ms'),
          ),
        );
      });
      root.replaceChildren(
        h(
          'p',
          { class: 'muted' },
          `Window ${new Date(data.fromMs).toLocaleTimeString()} – ${new Date(data.toMs).toLocaleTimeString()}, ${data.stepMs / 1000} s steps, all routers.`,
        ),
        ...(sections.length > 0
          ? sections
          : [h('section', { class: 'card' }, 'No routed versions and no traffic in the window.')]),
      );
    },
    dispose() {
      for (const c of charts) c.destroy();
      charts = [];
    },
  };
};
