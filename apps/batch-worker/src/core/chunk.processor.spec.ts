import type { JobItem, JobRecord, JobRepository } from '@mesh/jobs';
import pino from 'pino';
import { Registry } from 'prom-client';
import type { ChunkInference, PinnedModel } from './chunk-inference';
import { ChunkProcessor, WaitForVersion } from './chunk.processor';
import type { ChunkRunner } from './chunk.runner';
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
