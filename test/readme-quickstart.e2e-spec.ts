/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- the commands print wire JSON */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRedis, closeRedis } from '@mesh/config';
import { parse as parseYaml } from 'yaml';
import { hostPort } from './support/router-mesh';
import { ROOT, killGroup, uniquePrefix } from './support/app-process';
import { commandsOf, fencedBlocks } from './support/readme-blocks';

/**
 * The README's quick start, run as written: every ```` ```bash quickstart ```` block, in order,
 * in one bash session at the repository root (a block's variables and files carry into the
 * next, as in a terminal), against the mesh `npm run up` starts (scripts/up.js on free ports,
 * with this file's own Redis key prefix). The default addresses in the commands are swapped for
 * the started apps' ports, and MESH_URL, COORDINATOR_URL and MESH_GRPC_ADDRESS point the CLIs
 * there; keys are the demo keys the README names (none is set for the commands). A command that
 * exits non-zero, prints an error body, or does not show what the README says it shows fails
 * the test, naming the command.
 */
jest.setTimeout(600_000);

const README = join(ROOT, 'README.md');
const DEFAULT_PORTS = { router: '8080', coordinator: '8090', grpc: '50051' } as const;
/** A job the commands just submitted: on its way or done, never failed or waiting. */
const JOB_STATES = ['queued', 'running', 'completed'];

interface MeshUpEvent {
  event: 'mesh-up';
  ready: boolean;
  urls: Record<string, Record<string, string>>;
}

interface Ran {
  command: string;
  output: string;
}

const prefix = uniquePrefix(__filename);
const blocks = fencedBlocks(readFileSync(README, 'utf8'));
const commands = blocks
  .filter((b) => b.info === 'bash quickstart')
  .flatMap((b) => commandsOf(b.body));
/** Files the commands write (`> file`), restored or removed afterwards. */
const written = [
  ...new Set(commands.flatMap((c) => [...c.matchAll(/(?:^|\s)>\s*([\w.-]+)/g)].map((m) => m[1]!))),
];
const saved = new Map<string, string>();
let up: ChildProcess | undefined;
let upOutput = '';
let urls: MeshUpEvent['urls'];

/** Without the keys and addresses a reader would not have set. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [
    'ADMIN_API_KEY',
    'MESH_API_KEY',
    'MESH_URL',
    'COORDINATOR_URL',
    'MESH_GRPC_ADDRESS',
  ]) {
    delete env[name];
  }
  return env;
}

/** The command with the README's default addresses swapped for the started apps'. */
function localize(command: string): string {
  const to: Record<string, string> = {
    [DEFAULT_PORTS.router]: hostPort(urls.router!.http!),
    [DEFAULT_PORTS.coordinator]: hostPort(urls.coordinator!.http!),
    [DEFAULT_PORTS.grpc]: hostPort(urls.router!.grpc!),
  };
  return command.replace(/\b(?:localhost|127\.0\.0\.1):(\d+)\b/g, (address, port: string) => {
    const local = to[port];
    if (!local) throw new Error(`\`${command}\` names ${address}, which this test does not map`);
    return local;
  });
}

/**
 * Runs the commands in one `bash -euo pipefail` at the repository root, a marker line before
 * each, and splits the combined output per command. Stops at the first failing command.
 */
async function runAll(
  list: string[],
  timeoutMs: number,
): Promise<{ ran: Ran[]; code: number | null }> {
  const script = [
    'set -euo pipefail',
    'exec 2>&1',
    ...list.flatMap((c, i) => [`printf '\\n@@quickstart %d@@\\n' ${i}`, localize(c)]),
    `printf '\\n@@quickstart done@@\\n'`,
  ].join('\n');
  const env = {
    ...cleanEnv(),
    MESH_URL: urls.router!.http!,
    COORDINATOR_URL: urls.coordinator!.http!,
    MESH_GRPC_ADDRESS: hostPort(urls.router!.grpc!),
    REDIS_KEY_PREFIX: prefix,
  };
  const bash = spawn('bash', ['-c', script], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  bash.stdout.on('data', (d: Buffer) => (output += d.toString()));
  bash.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const timer = setTimeout(() => killGroup(bash), timeoutMs);
  const code = await new Promise<number | null>((resolve) => bash.on('exit', resolve));
  clearTimeout(timer);
  const parts = output.split(/\n?@@quickstart (\d+|done)@@\n/);
  const ran: Ran[] = [];
  for (let i = 1; i + 1 < parts.length; i += 2) {
    const index = parts[i]!;
    if (index === 'done') break;
    ran.push({ command: list[Number(index)]!, output: parts[i + 1]! });
  }
  return { ran, code };
}

/** The output without npm's banner (`> model-mesh@… name` / `> node …`) and blank lines. */
function printed(output: string): string[] {
  return output.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('> '));
}

function json(output: string): any {
  return JSON.parse(printed(output).join('\n'));
}

function ndjson(output: string): any[] {
  return printed(output).map((l) => JSON.parse(l));
}

function itemCount(): number {
  const file = join(ROOT, 'items.ndjson');
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '').length;
}

function expectResults(lines: any[]): void {
  expect(lines.map((l) => l.index)).toEqual([...Array(itemCount()).keys()]);
  for (const l of lines) expect(typeof l.label).toBe('string');
}

/** What each use the README shows must print: the command (by pattern) and its check. */
const EXPECTED: {
  what: string;
  command: RegExp;
  check: (output: string, command: string) => void;
}[] = [
  {
    what: 'a predict over HTTP',
    command: /^curl [\s\S]*\/v1\/predict\b/,
    check: (out) => expect(json(out)).toMatchObject({ label: expect.any(String) }),
  },
  {
    what: 'a gRPC Predict',
    command: /^npm run (-s )?grpc -- (?![\s\S]*--text\s[\s\S]*--text\s)[\s\S]*--text\s/,
    check: (out) =>
      expect(json(out)).toMatchObject({
        model: expect.any(String),
        prediction: { label: expect.any(String) },
      }),
  },
  {
    what: 'a gRPC PredictBatch',
    command: /^npm run (-s )?grpc -- [\s\S]*--text\s[\s\S]*--text\s/,
    check: (out, command) =>
      expect(json(out).results).toHaveLength(command.match(/--text\s/g)!.length),
  },
  {
    what: 'a bulk job submitted with the CLI, followed to its end',
    command: /npm run (-s )?mesh -- job submit /,
    check: (out) => expect(out).toMatch(/: completed, \d+ ok, 0 failed/),
  },
  {
    what: "a bulk job's status with the CLI",
    command: /^npm run (-s )?mesh -- job status /,
    check: (out) => expect(json(out)).toMatchObject({ state: 'completed', failedItems: 0 }),
  },
  {
    what: "a bulk job's results with the CLI",
    command: /^npm run (-s )?mesh -- job results /,
    check: (out) => expectResults(ndjson(out)),
  },
  {
    what: 'a bulk job submitted with curl',
    command: /curl [\s\S]*\/v1\/jobs\?task=/,
    check: () => undefined,
  },
  {
    what: "a bulk job's progress with curl",
    command: /^curl [\s\S]*\/v1\/jobs\/\$\w+(\s|$)/,
    check: (out) => {
      const status = json(out);
      expect(JOB_STATES).toContain(status.state);
      expect(status.total).toBe(itemCount());
    },
  },
  {
    what: "a bulk job's results with curl",
    command: /^curl [\s\S]*\/v1\/jobs\/\$\w+\/results/,
    check: (out) => expectResults(ndjson(out)),
  },
  {
    what: 'a rollout created with the CLI',
    command: /npm run (-s )?mesh -- rollout create -f /,
    check: () => undefined,
  },
  {
    what: 'a completed rollout undone with the CLI',
    command: /npm run (-s )?mesh -- rollout undo /,
    check: () => undefined,
  },
  {
    what: 'a rollout watched to its end with the CLI',
    command: /^npm run (-s )?mesh -- rollout status \S+ --watch/,
    check: (out) => {
      expect(out).toContain('→ completed');
      expect(printed(out).at(-1)).toMatch(/^ro-\S+ completed, weights /);
    },
  },
];

beforeAll(async () => {
  for (const file of written) {
    const path = join(ROOT, file);
    if (existsSync(path)) saved.set(file, readFileSync(path, 'utf8'));
  }
  const ports = {
    MODEL_HOST_HTTP_PORT: '0',
    MODEL_HOST_GRPC_PORT: '0',
    MODEL_HOST_METRICS_PORT: '0',
    ROUTER_HTTP_PORT: '0',
    ROUTER_GRPC_PORT: '0',
    WORKER_PORT: '0',
    COORDINATOR_PORT: '0',
  };
  // Detached: its own process group, so the apps it starts can be killed with it.
  up = spawn(process.execPath, [join(ROOT, 'scripts', 'up.js')], {
    cwd: ROOT,
    env: { ...cleanEnv(), ...ports, MESH_UP_SKIP_SETUP: '1', REDIS_KEY_PREFIX: prefix },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  up.stdout!.on('data', (d: Buffer) => (upOutput += d.toString()));
  up.stderr!.on('data', (d: Buffer) => (upOutput += d.toString()));
  // The `mesh-up` line, or the end of `npm run up` when a mesh fails to start.
  const event = await new Promise<MeshUpEvent>((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      reject(new Error(`${why}; output:\n${upOutput.slice(-3000)}`));
    };
    const timer = setTimeout(() => fail('the mesh did not come up within 180 s'), 180_000);
    up!.stdout!.on('data', () => {
      const line = upOutput.split('\n').find((l) => l.startsWith('{"event":"mesh-up"'));
      if (!line) return;
      clearTimeout(timer);
      resolve(JSON.parse(line) as MeshUpEvent);
    });
    up!.once('exit', (code) => fail(`npm run up exited with ${code}`));
  });
  expect(event.ready).toBe(true);
  urls = event.urls;
}, 240_000);

afterAll(async () => {
  if (up && up.exitCode === null && up.signalCode === null) {
    let timer: NodeJS.Timeout | undefined;
    const exited = new Promise((resolve) => up!.once('exit', resolve));
    up.kill('SIGINT');
    await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 30_000)))]);
    clearTimeout(timer);
    killGroup(up);
  }
  for (const file of written) {
    const path = join(ROOT, file);
    const before = saved.get(file);
    if (before === undefined) rmSync(path, { force: true });
    else writeFileSync(path, before);
  }
  const redis = createRedis('commands', {
    url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    name: 'readme-quickstart-e2e',
  });
  try {
    const stale = await redis.keys(`${prefix}*`);
    if (stale.length > 0) await redis.del(...stale);
  } finally {
    await closeRedis(redis);
  }
});

describe('README quick start', () => {
  it('shows each use: predict over HTTP and gRPC, a bulk job (CLI and curl), a rollout and its undo', () => {
    const missing = EXPECTED.filter((e) => !commands.some((c) => e.command.test(c)));
    expect(missing.map((e) => e.what)).toEqual([]);
  });

  it('shows the example rollout plan as the file holds it', () => {
    const shown = blocks.filter((b) => /^ya?ml \S+$/.test(b.info));
    expect(shown.length).toBeGreaterThan(0);
    for (const block of shown) {
      const file = block.info.split(' ')[1]!;
      expect({ file, plan: parseYaml(block.body) }).toEqual({
        file,
        plan: parseYaml(readFileSync(join(ROOT, file), 'utf8')),
      });
      // ... and the commands submit that file.
      expect(commands.some((c) => c.includes(`-f ${file}`))).toBe(true);
    }
  });

  it('runs every quick-start command as written against `npm run up`', async () => {
    const { ran, code } = await runAll(commands, 480_000);
    const last = ran.at(-1);
    if (code !== 0 || ran.length !== commands.length) {
      throw new Error(
        `bash exited ${code} after ${ran.length} of ${commands.length} commands; the last:\n` +
          `$ ${last?.command ?? '(none)'}\n${last?.output ?? ''}`,
      );
    }
    for (const { command, output } of ran) {
      const problem = printed(output).find(
        (l) => l.startsWith('{"error":') || /^npm (ERR!|error)/.test(l),
      );
      if (problem) throw new Error(`$ ${command}\nanswered an error: ${problem}\n${output}`);
      for (const e of EXPECTED.filter((x) => x.command.test(command))) {
        try {
          e.check(output, command);
        } catch (err) {
          throw new Error(
            `${e.what}: $ ${command}\n${err instanceof Error ? err.message : String(err)}\n` +
              `output:\n${output}`,
          );
        }
      }
    }
  });
});
