import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { join } from 'node:path';
import { execSync } from 'node:child_process';
import { LONE_REST_MS, SessionPoolClient } from './session-pool-client';
import { pollUntil } from '../../../../test/support/poll';

const ROOT = join(__dirname, '..', '..', '..', '..');
const MODEL = join(ROOT, 'model_repository', 'sentiment-en', '1', 'model.onnx');
const options = {
  intraOpThreads: 1,
  interOpThreads: 1,
  graphOptimizationLevel: 'all' as const,
  allowSpinning: false,
};

const int64 = (values: number[]) => BigInt64Array.from(values.map(BigInt)).buffer;

/** Every thread of this process and its nice value (the 19th field of /proc/<pid>/task/<tid>/stat). */
function threadNices(): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      out.set(tid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/** Threads started while `fn` ran, with their nice values. */
async function threadsStartedBy<T>(fn: () => Promise<T>): Promise<{ value: T; nices: number[] }> {
  const before = threadNices();
  const value = await fn();
  const nices = [...threadNices()].filter(([tid]) => !before.has(tid)).map(([, n]) => n);
  return { value, nices };
}

const onLinux = process.platform === 'linux' ? it : it.skip;

describe('SessionPoolClient (real ORT in worker threads)', () => {
  jest.setTimeout(60_000);

  beforeAll(() => {
    if (!existsSync(MODEL)) execSync('npm run -s models', { cwd: ROOT, stdio: 'inherit' });
  });

  it('reports the graph signature and runs a batch with buffers transferred to the worker', async () => {
    const pool = await SessionPoolClient.start(2, { ...options, modelPath: MODEL });
    try {
      expect(pool.size).toBe(2);
      expect(pool.inputs.map((i) => [i.name, i.type, i.shape])).toEqual([
        ['input_ids', 'int64', [-1, -1]],
        ['attention_mask', 'int64', [-1, -1]],
        ['token_type_ids', 'int64', [-1, -1]],
      ]);
      expect(pool.outputs).toEqual([{ name: 'logits', type: 'float32', shape: [-1, 3] }]);
      const ids = int64([2, 500, 600, 3, 2, 700, 3, 0]);
      const feeds = [
        { name: 'input_ids', type: 'int64', dims: [2, 4], buffer: ids },
        {
          name: 'attention_mask',
          type: 'int64',
          dims: [2, 4],
          buffer: int64([1, 1, 1, 1, 1, 1, 1, 0]),
        },
        {
          name: 'token_type_ids',
          type: 'int64',
          dims: [2, 4],
          buffer: int64([0, 0, 0, 0, 0, 0, 0, 0]),
        },
      ];
      const run = pool.run(feeds, ['logits']);
      // Transferred, not copied: the sender's buffer is detached.
      expect(ids.byteLength).toBe(0);
      expect(pool.idleCount).toBe(1);
      const result = await run;
      expect(result.outputs[0]?.dims).toEqual([2, 3]);
      expect(new Float32Array(result.outputs[0]!.buffer).every(Number.isFinite)).toBe(true);
      expect(result.inferNs).toBeGreaterThan(0);
      expect(pool.idleCount).toBe(2);
    } finally {
      await pool.close();
    }
  });

  const feeds = () =>
    ['input_ids', 'attention_mask', 'token_type_ids'].map((name) => ({
      name,
      type: 'int64',
      dims: [1, 3],
      buffer: int64(name === 'token_type_ids' ? [0, 0, 0] : [2, 500, 3]),
    }));

  it('runs a batch that is alone on the lone-batch session, and one that is not on an instance', async () => {
    const pool = await SessionPoolClient.start(2, { ...options, modelPath: MODEL }, 2);
    try {
      expect(pool.size).toBe(2);
      expect(pool.hasLoneSession).toBe(true);
      const alone = await pool.run(feeds(), ['logits'], { alone: true });
      const queued = await pool.run(feeds(), ['logits'], { alone: false });
      expect(alone.lone).toBe(true);
      expect(queued.lone).toBeUndefined();
      // Same model, same input: the lone session's answer is the instances' answer.
      const a = new Float32Array(alone.outputs[0]!.buffer);
      const b = new Float32Array(queued.outputs[0]!.buffer);
      a.forEach((v, i) => expect(v).toBeCloseTo(b[i]!, 5));
      // While an instance is busy, a batch that is alone still runs on an instance.
      const busy = pool.run(feeds(), ['logits']);
      const beside = pool.run(feeds(), ['logits'], { alone: true });
      expect(pool.idleCount).toBe(0);
      expect((await beside).lone).toBeUndefined();
      await busy;
    } finally {
      await pool.close();
    }
  });

  it('rests the lone-batch session after a run that another batch overlapped', async () => {
    let now = 0;
    const pool = await SessionPoolClient.start(2, { ...options, modelPath: MODEL }, 2, {
      now: () => now,
    });
    try {
      // Lone runs one after another (a lone caller) keep the session.
      for (let k = 0; k < 2; k++) {
        expect((await pool.run(feeds(), ['logits'], { alone: true })).lone).toBe(true);
      }
      expect(pool.loneResting).toBe(false);
      // A batch started on an instance while a lone run is busy: the session rests after it.
      const lone = pool.run(feeds(), ['logits'], { alone: true });
      const beside = pool.run(feeds(), ['logits']);
      expect((await lone).lone).toBe(true);
      expect((await beside).lone).toBeUndefined();
      expect(pool.loneResting).toBe(true);
      now += LONE_REST_MS - 1;
      expect((await pool.run(feeds(), ['logits'], { alone: true })).lone).toBeUndefined();
      now += 1;
      expect(pool.loneResting).toBe(false);
      expect((await pool.run(feeds(), ['logits'], { alone: true })).lone).toBe(true);
    } finally {
      await pool.close();
    }
  });

  it('rejects a bad feed in the worker without killing it', async () => {
    const pool = await SessionPoolClient.start(1, { ...options, modelPath: MODEL });
    try {
      const bad = [{ name: 'input_ids', type: 'int64', dims: [1, 2], buffer: int64([1, 2]) }];
      await expect(pool.run(bad, ['logits'])).rejects.toThrow(/input/i);
      const ok = ['input_ids', 'attention_mask', 'token_type_ids'].map((name) => ({
        name,
        type: 'int64',
        dims: [1, 2],
        buffer: int64([1, 1]),
      }));
      await expect(pool.run(ok, ['logits'])).resolves.toMatchObject({
        outputs: [{ dims: [1, 3] }],
      });
    } finally {
      await pool.close();
    }
  });

  it('replaces a worker that dies while serving, failing only its in-flight batch', async () => {
    const pool = await SessionPoolClient.start(1, { ...options, modelPath: MODEL });
    let capacity = 0;
    pool.onCapacity = () => capacity++;
    const feeds = () =>
      ['input_ids', 'attention_mask', 'token_type_ids'].map((name) => ({
        name,
        type: 'int64',
        dims: [1, 2],
        buffer: int64([1, 1]),
      }));
    try {
      const worker = (
        pool as unknown as { instances: { worker: { terminate(): Promise<number> } }[] }
      ).instances[0]!.worker;
      // Kill the thread first, then hand it a batch it will never run. Killing it while ORT is
      // inside session.run() would abort the whole process from native code, which is why the
      // host drains runs before it terminates workers.
      const dying = worker.terminate();
      const inFlight = pool.run(feeds(), ['logits']);
      await dying;
      await expect(inFlight).rejects.toThrow('session worker exited');
      await pollUntil(() => (capacity !== 0 ? true : undefined), {
        timeoutMs: 30_000,
        what: 'a replacement worker to report capacity',
      });
      expect(capacity).toBe(1);
      expect(pool.size).toBe(1);
      expect(pool.idleCount).toBe(1);
      await expect(pool.run(feeds(), ['logits'])).resolves.toMatchObject({
        outputs: [{ dims: [1, 3] }],
      });
    } finally {
      await pool.close();
    }
  });

  onLinux(
    'starts the pool threads of a 2-thread session at poolThreadNice, and leaves the rest',
    async () => {
      const own = getPriority();
      const { value: pool, nices } = await threadsStartedBy(() =>
        SessionPoolClient.start(1, {
          ...options,
          intraOpThreads: 2,
          allowSpinning: true,
          poolThreadNice: 15,
          modelPath: MODEL,
        }),
      );
      try {
        expect(pool.nice.pool).toBe(15);
        // The worker thread gets its own value back where the process may lower one (root here,
        // CAP_SYS_NICE in a container); elsewhere it stays with its pool.
        expect([own, 15]).toContain(pool.nice.worker);
        const workerAt15 = pool.nice.worker === 15 ? 1 : 0;
        // The worker thread and ORT's one pool thread; ORT may start a thread of its own once per
        // process, on the first session, which inherits the value too.
        expect(nices.filter((n) => n === 15).length).toBeGreaterThanOrEqual(1 + workerAt15);
        expect(nices.filter((n) => n === own).length).toBeGreaterThanOrEqual(1 - workerAt15);
        expect(getPriority()).toBe(own);
      } finally {
        await pool.close();
      }
    },
  );

  onLinux("starts a 1-thread session, which has no pool, at the host's priority", async () => {
    const own = getPriority();
    const { value: pool, nices } = await threadsStartedBy(() =>
      SessionPoolClient.start(1, { ...options, poolThreadNice: 15, modelPath: MODEL }),
    );
    try {
      expect(pool.nice).toEqual({ pool: 0, worker: own });
      expect(nices).not.toContain(15);
    } finally {
      await pool.close();
    }
  });

  it('fails to start with the ORT reason when the model file is not an ONNX model', async () => {
    await expect(
      SessionPoolClient.start(1, { ...options, modelPath: __filename }),
    ).rejects.toThrow();
  });
});
