import { RequestCoalescer, type CoalescedItem, type CoalescerOptions } from './request-coalescer';

/** A backend whose calls finish only when the test says so. */
class FakeBackend {
  readonly calls: { lane: string; payloads: string[]; deadlineMs: number }[] = [];
  private readonly pending: {
    resolve: (r: string[]) => void;
    reject: (e: unknown) => void;
    payloads: string[];
  }[] = [];

  run = (lane: string, payloads: string[], deadlineMs: number): Promise<string[]> => {
    this.calls.push({ lane, payloads, deadlineMs });
    return new Promise((resolve, reject) => this.pending.push({ resolve, reject, payloads }));
  };

  /** Completes the oldest running call, answering `<payload>!` per payload. */
  async finish(answer?: (p: string[]) => string[]): Promise<void> {
    const c = this.pending.shift();
    if (!c) throw new Error('no call running');
    c.resolve(answer ? answer(c.payloads) : c.payloads.map((p) => `${p}!`));
    await flush();
  }

  async fail(err: unknown): Promise<void> {
    this.pending.shift()!.reject(err);
    await flush();
  }
}

async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

const errors = {
  expired: () => new Error('expired'),
  cancelled: () => new Error('cancelled'),
  mismatch: (got: number, want: number) => new Error(`mismatch ${got}/${want}`),
};

function setup(options: Partial<CoalescerOptions> = {}) {
  let clock = 1000;
  const backend = new FakeBackend();
  const c = new RequestCoalescer<string, string>(
    backend.run,
    { maxInFlight: 1, maxRows: 8, maxTokens: 1000, now: () => clock, ...options },
    errors,
  );
  const item = (payload: string, more: Partial<CoalescedItem<string>> = {}) => ({
    group: 'g16',
    payload,
    rows: 1,
    tokens: 16,
    deadlineAt: clock + 10_000,
    ...more,
  });
  const results: Record<string, string> = {};
  const submit = (lane: string, it: CoalescedItem<string>) =>
    c.submit(lane, it).then(
      (r) => {
        results[it.payload] = r;
      },
      (e: unknown) => {
        results[it.payload] = `error: ${(e as Error).message}`;
      },
    );
  return { c, backend, item, submit, results, tick: (ms: number) => (clock += ms) };
}

describe('RequestCoalescer', () => {
  it('sends a request at once while the lane has room, so a lone request never waits', async () => {
    const { backend, item, submit, results } = setup({ maxInFlight: 2 });
    void submit('m@1', item('a'));
    void submit('m@1', item('b'));
    expect(backend.calls.map((x) => x.payloads)).toEqual([['a'], ['b']]);
    await backend.finish();
    await backend.finish();
    expect(results).toEqual({ a: 'a!', b: 'b!' });
  });

  it('merges requests that arrive while the lane is full into one call, answers split in order', async () => {
    const { c, backend, item, submit, results } = setup();
    void submit('m@1', item('a'));
    for (const p of ['b', 'c', 'd']) void submit('m@1', item(p));
    expect(backend.calls).toHaveLength(1);
    expect(c.waiting('m@1')).toBe(3);
    await backend.finish();
    expect(backend.calls.map((x) => x.payloads)).toEqual([['a'], ['b', 'c', 'd']]);
    await backend.finish();
    expect(results).toEqual({ a: 'a!', b: 'b!', c: 'c!', d: 'd!' });
    expect(c.inFlight('m@1')).toBe(0);
  });

  it('never merges different groups or lanes', async () => {
    const { backend, item, submit } = setup();
    void submit('m@1', item('a'));
    void submit('m@2', item('x'));
    void submit('m@1', item('b', { group: 'g16' }));
    void submit('m@1', item('c', { group: 'g32', tokens: 32 }));
    void submit('m@1', item('d', { group: 'g16' }));
    expect(backend.calls.map((x) => x.payloads)).toEqual([['a'], ['x']]);
    await backend.finish(); // a: the oldest waiting batch (g16) goes
    expect(backend.calls.map((x) => x.payloads)).toEqual([['a'], ['x'], ['b', 'd']]);
    await backend.finish(); // x: lane m@2 has nothing waiting
    await backend.finish(); // b, d
    expect(backend.calls.map((x) => x.payloads)).toEqual([['a'], ['x'], ['b', 'd'], ['c']]);
  });

  it('closes a batch at the row budget (and at the model’s own bound)', async () => {
    const { backend, item, submit } = setup({ maxRows: 2 });
    void submit('m@1', item('a'));
    for (const p of ['b', 'c', 'd', 'e', 'f']) void submit('m@1', item(p));
    await backend.finish();
    await backend.finish();
    await backend.finish();
    expect(backend.calls.map((x) => x.payloads)).toEqual([['a'], ['b', 'c'], ['d', 'e'], ['f']]);

    const small = setup({ maxRows: 8 });
    void small.submit('m@1', small.item('a'));
    for (const p of ['b', 'c', 'd']) void small.submit('m@1', small.item(p, { maxRows: 2 }));
    await small.backend.finish();
    expect(small.backend.calls.map((x) => x.payloads)).toEqual([['a'], ['b', 'c']]);
  });

  it('closes a batch at the padded-token budget', async () => {
    const { backend, item, submit } = setup({ maxTokens: 64 });
    void submit('m@1', item('a'));
    for (const p of ['b', 'c', 'd']) void submit('m@1', item(p, { tokens: 32, group: 'g32' }));
    await backend.finish();
    expect(backend.calls.map((x) => x.payloads)).toEqual([['a'], ['b', 'c']]);
    await backend.finish();
    expect(backend.calls.map((x) => x.payloads)).toEqual([['a'], ['b', 'c'], ['d']]);
  });

  it('removes a caller that leaves while waiting, and fails only that caller', async () => {
    const { c, backend, item, submit, results } = setup();
    void submit('m@1', item('a'));
    const leaving = new AbortController();
    void submit('m@1', item('b', { signal: leaving.signal }));
    void submit('m@1', item('c'));
    leaving.abort();
    await flush();
    expect(results.b).toBe('error: cancelled');
    expect(c.waiting('m@1')).toBe(1);
    await backend.finish();
    expect(backend.calls.map((x) => x.payloads)).toEqual([['a'], ['c']]);
  });

  it('drops a batch whose every caller left, and a caller that left before submitting', async () => {
    const { backend, item, submit, results } = setup();
    void submit('m@1', item('a'));
    const gone = new AbortController();
    void submit('m@1', item('b', { signal: gone.signal }));
    gone.abort();
    void submit('m@1', item('z', { signal: gone.signal }));
    await flush();
    await backend.finish();
    expect(backend.calls).toHaveLength(1);
    expect(results).toEqual({ a: 'a!', b: 'error: cancelled', z: 'error: cancelled' });
  });

  it('answers a sent caller that leaves at once; the others still get their rows', async () => {
    const { backend, item, submit, results } = setup({ maxInFlight: 1 });
    void submit('m@1', item('a'));
    const leaving = new AbortController();
    void submit('m@1', item('b', { signal: leaving.signal }));
    void submit('m@1', item('c'));
    await backend.finish();
    leaving.abort();
    await flush();
    expect(results.b).toBe('error: cancelled');
    await backend.finish();
    expect(results).toEqual({ a: 'a!', b: 'error: cancelled', c: 'c!' });
  });

  it('fails every caller of a failed call with the same error, then goes on', async () => {
    const { backend, item, submit, results } = setup();
    void submit('m@1', item('a'));
    void submit('m@1', item('b'));
    void submit('m@1', item('c'));
    await backend.finish();
    await backend.fail(new Error('UNAVAILABLE'));
    expect(results).toEqual({ a: 'a!', b: 'error: UNAVAILABLE', c: 'error: UNAVAILABLE' });
    void submit('m@1', item('d'));
    await backend.finish();
    expect(results.d).toBe('d!');
  });

  it('fails the callers of a call that answers the wrong number of parts', async () => {
    const { backend, item, submit, results } = setup();
    void submit('m@1', item('a'));
    void submit('m@1', item('b'));
    void submit('m@1', item('c'));
    await backend.finish();
    await backend.finish(() => ['only one']);
    expect(results.b).toBe('error: mismatch 1/2');
    expect(results.c).toBe('error: mismatch 1/2');
  });

  it('fails a waiting caller whose deadline passed; the call gets the earliest live deadline', async () => {
    const { backend, item, submit, results, tick } = setup();
    void submit('m@1', item('a'));
    void submit('m@1', item('old', { deadlineAt: 1000 + 50 }));
    tick(20);
    void submit('m@1', item('new', { deadlineAt: 1020 + 500 }));
    void submit('m@1', item('mid', { deadlineAt: 1020 + 300 }));
    tick(100); // now 1120: `old` is past its deadline
    await backend.finish();
    expect(results.old).toBe('error: expired');
    expect(backend.calls[1]).toEqual({ lane: 'm@1', payloads: ['new', 'mid'], deadlineMs: 200 });
  });

  it('runs up to maxInFlight merged calls per lane and flushes as each completes', async () => {
    const { backend, item, submit } = setup({ maxInFlight: 2, maxRows: 2 });
    for (const p of ['a', 'b', 'c', 'd', 'e', 'f']) void submit('m@1', item(p));
    expect(backend.calls.map((x) => x.payloads)).toEqual([['a'], ['b']]);
    await backend.finish();
    expect(backend.calls.map((x) => x.payloads)).toEqual([['a'], ['b'], ['c', 'd']]);
    await backend.finish();
    expect(backend.calls.map((x) => x.payloads)).toEqual([['a'], ['b'], ['c', 'd'], ['e', 'f']]);
  });

  it('answers a run that throws synchronously as a failed call', async () => {
    const c = new RequestCoalescer<string, string>(
      () => {
        throw new Error('boom');
      },
      { maxInFlight: 1, maxRows: 4, maxTokens: 100 },
      errors,
    );
    await expect(
      c.submit('m@1', { group: 'g', payload: 'a', rows: 1, tokens: 1, deadlineAt: Infinity }),
    ).rejects.toThrow('boom');
    expect(c.inFlight('m@1')).toBe(0);
  });
});
