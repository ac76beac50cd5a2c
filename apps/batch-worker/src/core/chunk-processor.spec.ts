import type { JobItem, JobRecord, JobRepository } from '@mesh/jobs';
import pino from 'pino';
import { Registry } from 'prom-client';
import type { ChunkInference, PinnedModel } from './chunk-inference';
import { ChunkProcessor, WaitForVersion } from './chunk-processor';
import type { ChunkRunner } from './chunk-runner';
import { ColdStartRequester } from './cold-start-requester';
import { WorkerMetrics } from './worker.metrics';

const pinned = { model: 'm', version: 2, pipeline: 'p@2', kind: 'classification' } as PinnedModel;
const job = { id: 'j-c0', data: { jobId: 'j', tenant: 't', chunk: 0 }, opts: { attempts: 3 } };
const unavailable = () =>
  Object.assign(new Error('backend went away'), { code: 'BACKEND_UNAVAILABLE' });

/** A processor over an in-memory store, a backend whose routability the test flips. */
function setup(runError: () => Error) {
  const calls: string[] = [];
  let reason: string | undefined;
  const record = { id: 'j', tenant: 't', model: 'm', version: 2, state: 'running' } as JobRecord;
  const repository = {
    get: () => Promise.resolve(record),
    markRunning: () => Promise.resolve('running'),
    markWaiting: (_id: string, why: string) => {
      calls.push(`waiting: ${why}`);
      return Promise.resolve('waiting_for_version');
    },
    readItems: () => Promise.resolve([{ text: 'a' }] as JobItem[]),
    writeResults: (_id: string, _c: number, _i: unknown, results: { kind: string }[]) => {
      calls.push(`write: ${results.map((r) => r.kind).join(',')}`);
      return Promise.resolve(true);
    },
  } as unknown as JobRepository;
  const inference = {
    servable: () => pinned,
    unroutableReason: () => reason,
  } as unknown as ChunkInference;
  const runner = {
    run: () => {
      // The version disappears while the chunk runs (unloaded on its backend).
      reason = 'no backend reports m v2 READY';
      return Promise.reject(runError());
    },
  } as unknown as ChunkRunner<PinnedModel>;
  const metrics = new WorkerMetrics(new Registry(), () => Promise.resolve({ depth: {}, jobs: {} }));
  const processor = new ChunkProcessor(
    repository,
    inference,
    runner,
    metrics,
    pino({ enabled: false }),
    { inFlightBatches: 2, batchRows: 8 },
  );
  return { processor, calls };
}

describe('ChunkProcessor', () => {
  it('parks the chunk (waiting_for_version) when its version goes away mid-chunk, even on the last attempt', async () => {
    for (const attemptsMade of [0, 2]) {
      const { processor, calls } = setup(unavailable);
      await expect(processor.process({ ...job, attemptsMade })).rejects.toBeInstanceOf(
        WaitForVersion,
      );
      expect(calls).toEqual(['waiting: no backend reports m v2 READY']);
    }
  });

  it('writes item errors for a non-retryable failure instead of waiting', async () => {
    const { processor, calls } = setup(() => new Error('bad output'));
    await expect(processor.process({ ...job, attemptsMade: 0 })).resolves.toBe('failed_items');
    expect(calls).toEqual(['write: error']);
  });
});

describe('ChunkProcessor cold starts', () => {
  /** A version resident nowhere until the test "loads" it; writes and runs are counted. */
  function coldSetup() {
    let resident = false;
    const waiting: string[] = [];
    const writes: string[] = [];
    const asks: string[] = [];
    let runs = 0;
    let now = 0;
    const record = { id: 'j', tenant: 't', model: 'm', version: 2, state: 'queued' } as JobRecord;
    const repository = {
      get: () => Promise.resolve(record),
      markRunning: () => Promise.resolve('running'),
      markWaiting: (_id: string, why: string) => {
        waiting.push(why);
        return Promise.resolve('waiting_for_version');
      },
      readItems: () => Promise.resolve([{ text: 'a' }, { text: 'b' }] as JobItem[]),
      writeResults: (_id: string, chunk: number) => {
        writes.push(`chunk ${chunk}`);
        return Promise.resolve(true);
      },
    } as unknown as JobRepository;
    const inference = {
      servable: () => pinned,
      unroutableReason: () => (resident ? undefined : 'no backend reports m v2 READY'),
      isCold: () => !resident,
    } as unknown as ChunkInference;
    const runner = {
      run: (_v: PinnedModel, items: JobItem[]) => {
        runs += 1;
        return Promise.resolve(items.map(() => ({ kind: 'ok', prediction: {} })));
      },
    } as unknown as ChunkRunner<PinnedModel>;
    const requester = new ColdStartRequester(
      async (m, v) => {
        asks.push(`${m}@${v}`);
      },
      2000,
      () => undefined,
      () => now,
    );
    const processor = new ChunkProcessor(
      repository,
      inference,
      runner,
      new WorkerMetrics(new Registry(), () => Promise.resolve({ depth: {}, jobs: {} })),
      pino({ enabled: false }),
      { inFlightBatches: 2, batchRows: 8 },
      requester,
    );
    return {
      processor,
      waiting,
      writes,
      asks,
      runs: () => runs,
      load: () => (resident = true),
      tick: (ms: number) => (now += ms),
    };
  }

  it('parks chunks of a version resident nowhere, asks once, then runs each exactly once when loaded', async () => {
    const t = coldSetup();
    const chunk = (n: number) => ({ ...job, id: `j-c${n}`, data: { ...job.data, chunk: n } });
    for (const n of [0, 1]) {
      await expect(t.processor.process({ ...chunk(n), attemptsMade: 0 })).rejects.toBeInstanceOf(
        WaitForVersion,
      );
    }
    expect(t.asks).toEqual(['m@2']);
    expect(t.waiting).toEqual([
      'm v2 is loading: no backend serves it yet, its load was asked for',
      'm v2 is loading: no backend serves it yet, its load was asked for',
    ]);
    expect(t.runs()).toBe(0);
    // Still cold after its wait: parked again, and the ask is renewed.
    t.tick(2000);
    await expect(t.processor.process({ ...chunk(0), attemptsMade: 0 })).rejects.toBeInstanceOf(
      WaitForVersion,
    );
    expect(t.asks).toEqual(['m@2', 'm@2']);
    t.load();
    for (const n of [0, 1]) {
      await expect(t.processor.process({ ...chunk(n), attemptsMade: 0 })).resolves.toBe('written');
    }
    expect(t.runs()).toBe(2);
    expect(t.writes).toEqual(['chunk 0', 'chunk 1']);
  });
});
