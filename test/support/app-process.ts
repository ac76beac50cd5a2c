import { spawn, type ChildProcess } from 'node:child_process';
import { appArgv, ROOT, type AppName } from './app-main';
import { pollUntil } from './poll';

export { ROOT, type AppName } from './app-main';

export interface StartedApp {
  name: AppName;
  proc: ChildProcess;
  /** URL per listener name, as announced in the app's `listening` log events. */
  urls: Record<string, string>;
  logs: string[];
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Every app process a test file started and that has not exited yet. */
const running = new Set<ChildProcess>();

// A test that fails half-way (a timeout in a hook, say) must not leave its apps running: their
// open pipes would keep Jest from exiting. Registered once per test file that uses this module.
if (typeof afterAll === 'function') {
  afterAll(() => {
    for (const proc of running) proc.kill('SIGKILL');
  });
}

function track(proc: ChildProcess): void {
  running.add(proc);
  proc.on('exit', () => running.delete(proc));
}

/**
 * Starts an app from the build as its own process and waits until it has announced all
 * `listeners` (e.g. ['http'] or ['http', 'grpc']). Ports default to 0 (any free port).
 */
export async function startApp(
  name: AppName,
  env: Record<string, string>,
  { listeners = ['http'], args = [] as string[], timeoutMs = 30_000 } = {},
): Promise<StartedApp> {
  const proc = spawn(process.execPath, [...appArgv(name), ...args], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(proc);
  const logs: string[] = [];
  const urls: Record<string, string> = {};
  const onLine = (line: string) => {
    logs.push(line);
    if (!line.startsWith('{')) return;
    try {
      const evt = JSON.parse(line) as { event?: string; listener?: string; url?: string };
      if (evt.event === 'listening' && evt.listener && evt.url) urls[evt.listener] = evt.url;
    } catch {
      // not a JSON log line
    }
  };
  const split = (stream: NodeJS.ReadableStream | null) => {
    let buf = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      buf += chunk;
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        onLine(buf.slice(0, i));
        buf = buf.slice(i + 1);
      }
    });
  };
  split(proc.stdout);
  split(proc.stderr);
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    proc.on('exit', (code) => {
      exitCode = code;
      resolve(code);
    }),
  );
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (exitCode === undefined) proc.kill(signal);
    return exited;
  };
  try {
    await pollUntil(
      () => {
        if (exitCode !== undefined)
          throw new Error(`${name} exited with ${exitCode}:\n${logs.join('\n')}`);
        return listeners.every((l) => urls[l]) ? true : undefined;
      },
      { timeoutMs, what: `${name} to listen on ${listeners.join(', ')}` },
    );
  } catch (err) {
    proc.kill('SIGKILL');
    throw new Error(
      `${(err as Error).message}\n--- ${name} logs ---\n${logs.slice(-40).join('\n')}`,
    );
  }
  return { name, proc, urls, logs, exited, stop };
}

/** Runs an app expected to fail at boot; returns its exit code and combined output. */
export function runToExit(
  name: AppName,
  env: Record<string, string>,
  args: string[] = [],
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [...appArgv(name), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    track(proc);
    let output = '';
    proc.stdout.on('data', (d: Buffer) => (output += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

// Suites that start apps take their key prefix here too; it is registered for the leak check.
export { uniquePrefix } from './redis-prefix';

/**
 * Kills a process group a test started (a child spawned with `detached: true` and everything it
 * spawned), even when the child itself already exited and left its own children running.
 */
export function killGroup(proc: { pid?: number | undefined } | undefined): void {
  if (proc?.pid === undefined) return;
  try {
    process.kill(-proc.pid, 'SIGKILL');
  } catch {
    // the whole group is gone already
  }
}
