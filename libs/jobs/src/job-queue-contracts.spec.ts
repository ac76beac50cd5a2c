import { chunkJobSpec, chunkPriority, parentJobSpec } from './job-queue-contracts';

const RETRY = { attempts: 4, backoffMs: 100 };

describe('job queue contracts', () => {
  it('gives chunk k of every job priority k + 1, so early chunks of new jobs run first', () => {
    expect([0, 1, 99].map(chunkPriority)).toEqual([1, 2, 100]);
    expect(chunkPriority(10_000_000)).toBe(2 ** 21 - 1);
  });

  it('builds chunk jobs with deterministic ids and the one retry policy', () => {
    const spec = chunkJobSpec({ jobId: 'j1', tenant: 'acme', chunk: 3 }, RETRY);
    expect(spec.opts).toMatchObject({
      jobId: 'j1-c3',
      priority: 4,
      attempts: 4,
      backoff: { type: 'exponential', delay: 100 },
    });
    expect(parentJobSpec({ jobId: 'j1', tenant: 'acme' }, RETRY).opts.jobId).toBe('j1');
  });

  it('refuses a payload that does not match the contract', () => {
    expect(() => chunkJobSpec({ jobId: 'j1', tenant: 'acme', chunk: -1 }, RETRY)).toThrow();
    expect(() =>
      chunkJobSpec({ jobId: 'j1', tenant: 'acme', chunk: 1, extra: 1 } as never, RETRY),
    ).toThrow();
  });
});
