import { startWithPoolNice, workersKeptPoolNice, type ThreadNice } from './pool-thread-priority';

/** A thread's nice value in memory; `mayLower: false` refuses to lower it, as without CAP_SYS_NICE. */
function fakeThread(platform: NodeJS.Platform, own: number, mayLower = true) {
  const calls: string[] = [];
  let nice = own;
  const self: ThreadNice = {
    platform,
    get: () => nice,
    set: (n) => {
      if (n < nice && !mayLower) throw new Error('EACCES');
      calls.push(`set ${n}`);
      nice = n;
    },
  };
  /** What a thread started now would inherit: its creator's value. */
  const start = () => {
    calls.push(`start at ${nice}`);
    return Promise.resolve('session');
  };
  return { self, calls, start };
}

describe('startWithPoolNice', () => {
  it('starts the session at the pool value and gives the thread its own back', async () => {
    const t = fakeThread('linux', 0);
    const out = await startWithPoolNice(19, 1, t.start, t.self);
    expect(t.calls).toEqual(['set 19', 'start at 19', 'set 0']);
    expect(out).toEqual({ value: 'session', poolNice: 19, threadNice: 0 });
  });

  it('reports a thread that may not lower its value again as running at the pool value', async () => {
    const t = fakeThread('linux', 0, false);
    const out = await startWithPoolNice(10, 1, t.start, t.self);
    expect(t.calls).toEqual(['set 10', 'start at 10']);
    expect(out).toEqual({ value: 'session', poolNice: 10, threadNice: 10 });
  });

  it('leaves the value alone for a session without pool threads, 0, or a host already that nice', async () => {
    for (const [nice, pool, own] of [
      [19, 0, 0],
      [0, 1, 0],
      [10, 1, 10],
      [10, 1, 15],
    ] as const) {
      const t = fakeThread('linux', own);
      const out = await startWithPoolNice(nice, pool, t.start, t.self);
      expect(t.calls).toEqual([`start at ${own}`]);
      expect(out).toEqual({ value: 'session', poolNice: 0, threadNice: own });
    }
  });

  it('does nothing off Linux, where a priority belongs to the whole process', async () => {
    const t = fakeThread('darwin', 0);
    const out = await startWithPoolNice(19, 1, t.start, t.self);
    expect(t.calls).toEqual(['start at 0']);
    expect(out.poolNice).toBe(0);
  });

  it('gives the thread its value back when the session fails to start', async () => {
    const t = fakeThread('linux', 0);
    const failing = () => {
      t.calls.push('start fails');
      return Promise.reject(new Error('bad model'));
    };
    await expect(startWithPoolNice(19, 1, failing, t.self)).rejects.toThrow('bad model');
    expect(t.calls).toEqual(['set 19', 'start fails', 'set 0']);
  });
});

describe('workersKeptPoolNice', () => {
  it('is true only where pool threads were lowered and the workers stayed with them', () => {
    expect(workersKeptPoolNice({ pool: 19, worker: 19 })).toBe(true);
    expect(workersKeptPoolNice({ pool: 19, worker: 0 })).toBe(false);
    // A host started at nice 5 gives its workers 5 back: they did not stay with the pool.
    expect(workersKeptPoolNice({ pool: 19, worker: 5 })).toBe(false);
    expect(workersKeptPoolNice({ pool: 0, worker: 10 })).toBe(false);
  });
});
