import { join } from 'node:path';
import { ROOT, startProcess, waitReady, type BenchProcess } from '../router/bench-processes';

export { ROOT, waitReady };

export type Proc = BenchProcess;

/**
 * Starts one mesh app from a build (`<distRoot>/dist/apps/<app>/src/main.js`) and waits for its
 * `listening` events. `distRoot` lets a run measure another checkout's build side by side.
 */
export function startApp(
  app: 'router' | 'model-host' | 'batch-worker',
  env: Record<string, string>,
  listeners: string[],
  distRoot = ROOT,
  args: string[] = [],
): Promise<Proc> {
  const script = join('dist', 'apps', app, 'src', 'main.js');
  return startProcess(app, script, args, env, listeners, 180_000, distRoot);
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
