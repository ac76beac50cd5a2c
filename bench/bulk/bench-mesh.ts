import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');

export interface Proc {
  name: string;
  pid: number;
  urls: Record<string, string>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts one mesh app from a build (`<distRoot>/dist/apps/<app>/src/main.js`) and waits for its
 * `listening` events. `distRoot` lets a run measure another checkout's build side by side.
 */
export async function startApp(
  app: 'router' | 'model-host' | 'batch-worker',
  env: Record<string, string>,
  listeners: string[],
  distRoot = ROOT,
  args: string[] = [],
): Promise<Proc> {
  const main = join(distRoot, 'dist', 'apps', app, 'src', 'main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first`);
  const proc: ChildProcess = spawn(process.execPath, [main, ...args], {
    cwd: distRoot,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const urls: Record<string, string> = {};
  const tail: string[] = [];
  const onData = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim()) tail.push(line.slice(0, 400));
      if (tail.length > 30) tail.shift();
      if (!line.includes('"listening"')) continue;
      try {
        const evt = JSON.parse(line) as { listener?: string; url?: string };
        if (evt.listener && evt.url) urls[evt.listener] = evt.url;
      } catch {
        // partial line
      }
    }
  };
  proc.stdout?.on('data', onData);
  proc.stderr?.on('data', onData);
  const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()));
  const deadline = Date.now() + 180_000;
  while (!listeners.every((l) => urls[l])) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`${app} did not start:\n${tail.join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    name: app,
    pid: proc.pid ?? 0,
    urls,
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      if (proc.exitCode === null) proc.kill(signal);
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      if (proc.exitCode === null) proc.kill('SIGKILL');
    },
  };
}

export async function waitReady(url: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${url} not ready after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export function hostPort(url: string): string {
  return url.replace(/^[a-z]+:\/\//, '').replace(/\/$/, '');
}

export async function post(
  url: string,
  key: string,
  body: unknown,
): Promise<{ status: number; json: unknown }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}
