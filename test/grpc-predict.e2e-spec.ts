import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createRedis, closeRedis } from '@mesh/config';
import { startMesh, type Mesh } from './support/router-mesh';
import { ROOT, uniquePrefix } from './support/app-process';
import { freePort } from './support/free-port';

/**
 * `npm run grpc` (scripts/grpc-predict.ts) as a process against a model host and a router:
 * what it prints for Predict, PredictBatch and an embedding task, and how it fails.
 */
jest.setTimeout(120_000);

const prefix = uniquePrefix(__filename);
let mesh: Mesh | undefined;

beforeAll(async () => {
  mesh = await startMesh(prefix);
}, 120_000);

afterAll(async () => {
  await mesh?.stop();
  const redis = createRedis('commands', {
    url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    name: 'grpc-predict-e2e',
  });
  try {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    await closeRedis(redis);
  }
});

/** Runs the client as `npm run grpc` does; MESH_API_KEY unset unless `env` sets it. */
function grpcPredict(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const base: NodeJS.ProcessEnv = { ...process.env, MESH_GRPC_ADDRESS: mesh!.grpcAddress };
  delete base.MESH_API_KEY;
  const proc = spawn(
    process.execPath,
    [join(ROOT, 'scripts', 'run-ts.js'), join(ROOT, 'scripts', 'grpc-predict.ts'), ...args],
    { cwd: ROOT, env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    proc.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

describe('npm run grpc', () => {
  it('calls Predict with one --text on the demo key and prints the answer as JSON', async () => {
    const r = await grpcPredict(['--task', 'sentiment', '--text', 'great service, thanks']);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const answer = JSON.parse(r.stdout);
    expect(answer).toEqual({
      model: 'sentiment-en',
      version: 1,
      prediction: {
        label: expect.any(String),
        score: expect.any(Number),
        scores: expect.any(Array),
      },
      latencyMs: expect.any(Number),
    });
    expect(answer.prediction.scores[0]).toEqual({
      label: answer.prediction.label,
      score: answer.prediction.score,
    });
  });

  it('calls PredictBatch with several --text, results in input order', async () => {
    const texts = ['为什么天空是蓝色的', '怎么去火车站', '明天几点开会'];
    const r = await grpcPredict([
      '--task',
      'question-type',
      ...texts.flatMap((t) => ['--text', t]),
    ]);
    expect(r.code).toBe(0);
    const answer = JSON.parse(r.stdout);
    expect(answer.model).toBe('question-type-zh');
    expect(answer.results).toHaveLength(texts.length);
    for (const p of answer.results)
      expect(p).toEqual(expect.objectContaining({ label: expect.any(String) }));
  });

  it('prints an embedding task its vector, without empty labels', async () => {
    const r = await grpcPredict(['--task', 'embed', '--text', '你好']);
    expect(r.code).toBe(0);
    const { prediction } = JSON.parse(r.stdout);
    expect(Object.keys(prediction)).toEqual(['embedding']);
    expect(prediction.embedding.length).toBeGreaterThan(0);
  });

  it.each([
    [
      'a task the key may not call',
      ['--task', 'intent', '--text', '帮我订票'],
      { MESH_API_KEY: 'globex-demo-key' },
      /^gRPC error NOT_FOUND \(TASK_NOT_FOUND\): \S/,
    ],
    [
      'an unknown key',
      ['--task', 'sentiment', '--text', 'hi', '--key', 'no-such-key'],
      {},
      /^gRPC error UNAUTHENTICATED \(UNAUTHENTICATED\): \S/,
    ],
  ] as [string, string[], Record<string, string>, RegExp][])(
    'exits 1 naming the gRPC status, the mesh code and the message: %s',
    async (_what, args, env, message) => {
      const r = await grpcPredict(args, env);
      expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: '' });
      expect(r.stderr.trim()).toMatch(message);
    },
  );

  it('exits 1 with UNAVAILABLE when nothing listens at the address', async () => {
    const port = await freePort();
    const r = await grpcPredict(['--task', 'sentiment', '--text', 'hi'], {
      MESH_GRPC_ADDRESS: `127.0.0.1:${port}`,
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(/^gRPC error UNAVAILABLE: /);
  });

  it('exits 2 with the usage on bad arguments, calling nothing', async () => {
    const r = await grpcPredict(['--task', 'sentiment']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--text is required');
    expect(r.stderr).toContain('usage: npm run grpc --');
  });
});
