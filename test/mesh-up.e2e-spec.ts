import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, uniquePrefix } from './support/app-process';
import { pollUntil } from './support/poll';

interface MeshUpEvent {
  event: 'mesh-up';
  ready: boolean;
  urls: Record<string, Record<string, string>>;
}

describe('npm run up', () => {
  it('brings up all four apps, each ready, and stops them all on Ctrl-C', async () => {
    const prefix = uniquePrefix(__filename);
    const proc = spawn(process.execPath, [join(ROOT, 'scripts', 'up.js')], {
      cwd: ROOT,
      env: {
        ...process.env,
        MESH_UP_SKIP_SETUP: '1',
        REDIS_KEY_PREFIX: prefix,
        MODEL_HOST_HTTP_PORT: '0',
        MODEL_HOST_GRPC_PORT: '0',
        MODEL_HOST_METRICS_PORT: '0',
        ROUTER_HTTP_PORT: '0',
        ROUTER_GRPC_PORT: '0',
        WORKER_PORT: '0',
        COORDINATOR_PORT: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    proc.stdout.on('data', (d: Buffer) => (output += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => proc.on('exit', resolve));
    try {
      const up = await pollUntil(
        () => {
          const line = output.split('\n').find((l) => l.startsWith('{"event":"mesh-up"'));
          return line ? (JSON.parse(line) as MeshUpEvent) : undefined;
        },
        { timeoutMs: 90_000, what: 'the mesh to come up' },
      ).catch((err: unknown) => {
        // The message is built after the poll failed, so it shows the output up to the timeout.
        const why = err instanceof Error ? err.message : String(err);
        throw new Error(`${why}; output:\n${output.slice(-3000)}`);
      });
      expect(up.ready).toBe(true);
      for (const app of ['model-host', 'router', 'batch-worker', 'coordinator']) {
        const res = await fetch(`${up.urls[app]!.http}/healthz/ready`);
        expect({ app, status: res.status }).toEqual({ app, status: 200 });
      }
      expect(output).toContain('model mesh is up:');
      // People open the dashboard: the summary prints its URL, not the coordinator's root.
      expect(output).toContain(
        `coordinator   ${up.urls.coordinator!.http}/ui (operator dashboard), API ${up.urls.coordinator!.http} (OpenAPI at /docs)`,
      );
      // The summary names the key namespace; each app announced it at start.
      expect(output).toMatch(new RegExp(`redis +redis://\\S+, key prefix "${prefix}"`));
      for (const app of ['router', 'batch-worker', 'coordinator']) {
        expect(output).toContain(`${app.padEnd(12)}| info  redis key prefix "${prefix}"`);
      }
      // Routability lines say which version they are about.
      expect(output).toMatch(/router +\| info {2}version routable: [a-z-]+ v\d+/);
      proc.kill('SIGINT');
      await expect(exited).resolves.toBe(0);
    } finally {
      proc.kill('SIGKILL');
    }
  }, 120_000);
});
