/**
 * `npm run mesh -- rollout …`: the coordinator's rollout API from a terminal.
 *   rollout create -f plan.yaml     submit a plan (YAML or JSON)
 *   rollout list                    one line per rollout, newest first
 *   rollout status ID               state, weights and the timeline as a table
 *   rollout pause|resume|abort|promote ID
 * Uses COORDINATOR_URL (default http://127.0.0.1:8090) and ADMIN_API_KEY.
 */
import { readFileSync } from 'node:fs';
import {
  OPERATOR_COMMANDS,
  isOperatorCommand,
  type RolloutView,
  type TimelineEntry,
} from '@mesh/rollout-contract';
import { parse as parseYaml } from 'yaml';
import { ERROR_TABLE, isErrorCode, type ErrorBody } from '@mesh/errors';

export const ROLLOUT_USAGE = `usage: npm run mesh -- rollout create -f plan.yaml | list | status ID | ${OPERATOR_COMMANDS.map((c) => `${c} ID`).join(' | ')}`;

type Print = (line: string) => void;

export async function rolloutCommand(args: string[], print: Print = console.log): Promise<number> {
  const [sub, ...rest] = args;
  const base = (process.env.COORDINATOR_URL ?? 'http://127.0.0.1:8090').replace(/\/$/, '');
  const key = process.env.ADMIN_API_KEY ?? '';
  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await res.json()) as Partial<ErrorBody>;
    if (!res.ok) {
      const code = json.error?.code;
      // The one error table says whether the same command can succeed a little later.
      const later = isErrorCode(code) && ERROR_TABLE[code].retryable ? ' (try again shortly)' : '';
      throw new Error(`${res.status} ${code ?? ''}: ${json.error?.message ?? ''}${later}`);
    }
    return json;
  };
  if (isOperatorCommand(sub) && rest[0]) {
    const r = (await call(
      'POST',
      `/v1/rollouts/${encodeURIComponent(rest[0])}/${sub}`,
    )) as RolloutView;
    print(`${r.id} ${r.state} (${sub} queued)`);
    return 0;
  }
  switch (sub) {
    case 'create': {
      const file = rest[0] === '-f' ? rest[1] : undefined;
      if (!file) break;
      const plan = parseYaml(readFileSync(file, 'utf8')) as unknown;
      const view = (await call('POST', '/v1/rollouts', plan)) as RolloutView;
      print(`${view.id} ${view.state}`);
      return 0;
    }
    case 'list': {
      const { rollouts } = (await call('GET', '/v1/rollouts')) as { rollouts: RolloutView[] };
      print(
        table(
          ['ID', 'TENANT', 'TASK', 'MODEL', 'TO', 'STATE', 'STEP', 'WEIGHTS'],
          rollouts.map((r) => [
            r.id,
            r.plan.tenant,
            r.plan.task,
            r.plan.model,
            `v${r.plan.toVersion}`,
            r.state,
            `${r.step}/${r.plan.steps.length}`,
            weights(r),
          ]),
        ),
      );
      return 0;
    }
    case 'status': {
      if (!rest[0]) break;
      const r = (await call('GET', `/v1/rollouts/${encodeURIComponent(rest[0])}`)) as RolloutView;
      print(`${r.id}  ${r.plan.tenant}/${r.plan.task}  ${r.plan.model} → v${r.plan.toVersion}`);
      print(`state ${r.state}, step ${r.step}/${r.plan.steps.length}, weights ${weights(r)}`);
      if (r.pendingCommand) print(`pending command: ${r.pendingCommand}`);
      print('');
      print(
        table(
          ['AT', 'FROM', 'TO', 'STEP', 'REASON', 'METRICS'],
          r.timeline.map((t) => [t.at, t.from, t.to, String(t.step), t.reason, metrics(t)]),
        ),
      );
      return 0;
    }
    default:
      break;
  }
  console.error(ROLLOUT_USAGE);
  return 2;
}

function weights(r: RolloutView): string {
  return r.weights.map((w) => `v${w.version}:${w.weight}`).join(' ');
}

function metrics(t: TimelineEntry): string {
  return Object.entries(t.metrics ?? {})
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');
}

/** A plain text table, columns padded to their widest cell. */
export function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)].join('\n');
}
