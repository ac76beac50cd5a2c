/**
 * `npm run mesh -- rollout …`: the coordinator's rollout API from a terminal.
 *   rollout create -f plan.yaml     submit a plan (YAML or JSON)
 *   rollout list                    one line per rollout, newest first
 *   rollout status ID [--watch]     state, weights and the timeline as a table; --watch then
 *                                   prints each transition until the rollout ends
 *   rollout pause|resume|abort|promote ID
 *   rollout undo ID [--force]       a completed rollout: start a new one back to the weights it
 *                                   started from; --force even if the route was edited since
 * Uses COORDINATOR_URL (default http://127.0.0.1:8090) and ADMIN_API_KEY.
 */
import { readFileSync } from 'node:fs';
import {
  OPERATOR_COMMANDS,
  isOperatorCommand,
  isTerminal,
  type RolloutView,
  type TimelineEntry,
} from '@mesh/rollout-contract';
import { parse as parseYaml } from 'yaml';
import { ERROR_TABLE, isErrorCode, type ErrorBody } from '@mesh/errors';
import { USAGE_EXIT_CODE, UsageError, parseCliArgs } from '../cli-args';

export const ROLLOUT_USAGE = `usage: npm run mesh -- rollout create -f plan.yaml | list | status ID [--watch [--interval SECONDS]] | ${OPERATOR_COMMANDS.map((c) => (c === 'undo' ? 'undo ID [--force]' : `${c} ID`)).join(' | ')}`;

type Print = (line: string) => void;
type Sleep = (ms: number) => Promise<void>;

/** Seconds between two polls of `status --watch` unless `--interval` says otherwise. */
const WATCH_INTERVAL_SECONDS = 2;
/** Polls in a row that may fail to reach the coordinator before `--watch` gives up. */
const WATCH_UNREACHABLE_LIMIT = 10;

const sleepFor: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs one rollout command; returns the exit code. `status --watch` ends when the rollout is
 * in a terminal state: 0 when it completed, 1 when it ended otherwise (rolled back, aborted,
 * failed). A command line it cannot run prints why and the usage, exit 2.
 */
export async function rolloutCommand(
  args: string[],
  print: Print = console.log,
  sleep: Sleep = sleepFor,
): Promise<number> {
  try {
    return await run(args, print, sleep);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`${err.message}\n${ROLLOUT_USAGE}`);
    return USAGE_EXIT_CODE;
  }
}

async function run(args: string[], print: Print, sleep: Sleep): Promise<number> {
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
  if (sub === 'undo') {
    const options = undoOptions(rest);
    const query = options.force ? '?force=true' : '';
    const r = (await call(
      'POST',
      `/v1/rollouts/${encodeURIComponent(options.id)}/undo${query}`,
    )) as RolloutView;
    print(`${r.id} ${r.state} (undo of ${options.id}: back to ${weightList(r.finalWeights)})`);
    return 0;
  }
  if (isOperatorCommand(sub)) {
    const id = rolloutId(sub, parseCliArgs({ args: rest, allowPositionals: true }).positionals);
    const r = (await call('POST', `/v1/rollouts/${encodeURIComponent(id)}/${sub}`)) as RolloutView;
    print(`${r.id} ${r.state} (${sub} queued)`);
    return 0;
  }
  switch (sub) {
    case 'create': {
      const file = createFile(rest);
      const plan = parseYaml(readFileSync(file, 'utf8')) as unknown;
      const view = (await call('POST', '/v1/rollouts', plan)) as RolloutView;
      print(`${view.id} ${view.state}`);
      return 0;
    }
    case 'list': {
      parseCliArgs({ args: rest });
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
      const options = statusOptions(rest);
      const get = async () =>
        (await call('GET', `/v1/rollouts/${encodeURIComponent(options.id)}`)) as RolloutView;
      const r = await get();
      printStatus(r, print);
      if (!options.watch) return 0;
      return watch(r, get, print, sleep, options.intervalMs);
    }
    default:
      break;
  }
  console.error(ROLLOUT_USAGE);
  return 2;
}

/** The one rollout ID a command names; a UsageError without it or with more. */
function rolloutId(command: string, positionals: string[]): string {
  const [id, ...extra] = positionals;
  if (!id) throw new UsageError(`${command} needs a rollout ID`);
  if (extra.length > 0) throw new UsageError(`Unexpected argument '${extra[0]}'`);
  return id;
}

/** `create -f plan.yaml`: the plan file. Throws a UsageError naming what is wrong. */
export function createFile(args: string[]): string {
  const { values } = parseCliArgs({ args, options: { file: { type: 'string', short: 'f' } } });
  if (!values.file) throw new UsageError('create needs -f plan.yaml');
  return values.file;
}

/** `undo ID [--force]`. Throws a UsageError naming what is wrong. */
export function undoOptions(args: string[]): { id: string; force: boolean } {
  const { values, positionals } = parseCliArgs({
    args,
    options: { force: { type: 'boolean' } },
    allowPositionals: true,
  });
  return { id: rolloutId('undo', positionals), force: values.force ?? false };
}

interface StatusOptions {
  id: string;
  watch: boolean;
  intervalMs: number;
}

/** `status ID [--watch] [--interval SECONDS]`. Throws a UsageError naming what is wrong. */
export function statusOptions(args: string[]): StatusOptions {
  const { values, positionals } = parseCliArgs({
    args,
    options: { watch: { type: 'boolean', short: 'w' }, interval: { type: 'string' } },
    allowPositionals: true,
  });
  const id = rolloutId('status', positionals);
  const { watch = false, interval } = values;
  const seconds = interval === undefined ? WATCH_INTERVAL_SECONDS : Number(interval);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new UsageError(`--interval must be a positive number of seconds (got "${interval}")`);
  }
  if (interval !== undefined && !watch) throw new UsageError('--interval goes with --watch');
  return { id, watch, intervalMs: Math.round(seconds * 1000) };
}

function printStatus(r: RolloutView, print: Print): void {
  const target = r.undoOf ? `undo of ${r.undoOf}, back to ${weightList(r.finalWeights)}` : '';
  print(
    `${r.id}  ${r.plan.tenant}/${r.plan.task}  ${r.plan.model} → ${target || `v${r.plan.toVersion}`}`,
  );
  if (r.undoneBy) print(`undone by ${r.undoneBy}`);
  print(`state ${r.state}, step ${r.step}/${r.plan.steps.length}, weights ${weights(r)}`);
  if (r.pendingCommand) print(`pending command: ${r.pendingCommand}`);
  print('');
  print(
    table(
      ['AT', 'FROM', 'TO', 'STEP', 'REASON', 'METRICS'],
      r.timeline.map((t) => [t.at, t.from, t.to, String(t.step), t.reason, metrics(t)]),
    ),
  );
}

/**
 * Polls the rollout until it is in a terminal state, printing each new timeline entry as one
 * line, and the weights and pending command when they change. A coordinator that cannot be
 * reached (a restart, a failover) is polled again, up to WATCH_UNREACHABLE_LIMIT times in a row.
 */
async function watch(
  first: RolloutView,
  get: () => Promise<RolloutView>,
  print: Print,
  sleep: Sleep,
  intervalMs: number,
): Promise<number> {
  let r = first;
  let seen = r.timeline.length;
  let shownWeights = weights(r);
  let shownCommand = r.pendingCommand;
  let unreachable = 0;
  if (!isTerminal(r.state)) print(`watching ${r.id} (every ${intervalMs / 1000} s, Ctrl-C stops)`);
  while (!isTerminal(r.state)) {
    await sleep(intervalMs);
    try {
      r = await get();
      unreachable = 0;
    } catch (err) {
      // fetch rejects with a TypeError when nothing answers; an HTTP error is an Error.
      if (!(err instanceof TypeError) || ++unreachable >= WATCH_UNREACHABLE_LIMIT) throw err;
      if (unreachable === 1) print(`coordinator unreachable (${err.message}); polling again`);
      continue;
    }
    for (const t of r.timeline.slice(seen)) print(transitionLine(t, r.plan.steps.length));
    seen = r.timeline.length;
    if (weights(r) !== shownWeights) print(`  weights ${(shownWeights = weights(r))}`);
    if (r.pendingCommand !== shownCommand) {
      shownCommand = r.pendingCommand;
      if (shownCommand) print(`  pending command: ${shownCommand}`);
    }
  }
  print(`${r.id} ${r.state}, weights ${weights(r)}`);
  return r.state === 'completed' ? 0 : 1;
}

/** One timeline entry on one line: `<at>  <from> → <to>  step s/n  <reason>  <metrics>`. */
export function transitionLine(t: TimelineEntry, steps: number): string {
  const m = metrics(t);
  return `${t.at}  ${t.from} → ${t.to}  step ${t.step}/${steps}  ${t.reason}${m ? `  ${m}` : ''}`;
}

function weights(r: RolloutView): string {
  return weightList(r.weights);
}

function weightList(list: readonly { version: number; weight: number }[]): string {
  return list.map((w) => `v${w.version}:${w.weight}`).join(' ');
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
