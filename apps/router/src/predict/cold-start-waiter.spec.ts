import { ModelLoadingError } from '../errors/router.errors';
import { ColdStartWaiter, type ColdStartClock, type ColdStartOutcome } from './cold-start-waiter';

/** A clock whose timers fire only when the test moves time on. */
class ManualClock implements ColdStartClock {
  private t = 0;
  private seq = 0;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.timers.set(id, { at: this.t + ms, fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** Moves time on, firing due timers in order (and the promise work they start). */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      const due = [...this.timers.entries()]
        .filter(([, x]) => x.at <= end)
        .sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.t = due[1].at;
      due[1].fn();
      await settle();
    }
    this.t = end;
    await settle();
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
}

/** A pool that serves what the test says, counting discovery rounds and demand writes. */
function setup(waitMs = 1000, refreshEveryMs = 100, askAgainEveryMs = 10_000) {
  const clock = new ManualClock();
  const serving = new Set<string>();
  const demands: string[] = [];
  const observed: { outcome: ColdStartOutcome; seconds: number }[] = [];
  let refreshes = 0;
  const waiter = new ColdStartWaiter(
    {
      isReady: (m, v) => serving.has(`${m}@${v}`),
      refresh: async () => {
        refreshes += 1;
      },
      demand: async (m, v) => {
        demands.push(`${m}@${v}`);
      },
      observe: (_m, _v, outcome, seconds) => observed.push({ outcome, seconds }),
      warn: () => undefined,
    },
    { waitMs, refreshEveryMs, askAgainEveryMs },
    clock,
  );
  return { clock, serving, demands, observed, waiter, refreshes: () => refreshes };
}

function track(p: Promise<void>) {
  const state: { done: 'pending' | 'ok' | Error } = { done: 'pending' };
  p.then(
    () => (state.done = 'ok'),
    (err: Error) => (state.done = err),
  );
  return state;
}

describe('ColdStartWaiter', () => {
  it('returns at once for a version already served, asking for nothing', async () => {
    const { waiter, serving, demands } = setup();
    serving.add('m@1');
    await waiter.wait('m', 1);
    expect(demands).toEqual([]);
    expect(waiter.pending()).toEqual([]);
  });

  it('shares one wait and one demand among concurrent requests for a version', async () => {
    const { waiter, demands, clock, serving, observed } = setup();
    const calls = [1, 2, 3, 4, 5].map(() => track(waiter.wait('m', 2)));
    await settle();
    expect(demands).toEqual(['m@2']);
    expect(waiter.pending()).toEqual([{ model: 'm', version: 2, waiters: 5 }]);
    await clock.advance(250);
    expect(calls.every((c) => c.done === 'pending')).toBe(true);
    serving.add('m@2');
    await clock.advance(100);
    expect(calls.map((c) => c.done)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(observed.map((o) => o.outcome)).toEqual(Array(5).fill('loaded'));
    expect(waiter.pending()).toEqual([]);
    expect(demands).toEqual(['m@2']);
  });

  it('asks separately per version', async () => {
    const { waiter, demands } = setup();
    track(waiter.wait('m', 1));
    track(waiter.wait('m', 2));
    track(waiter.wait('m', 1));
    await settle();
    expect(demands.sort()).toEqual(['m@1', 'm@2']);
  });

  it('refreshes on a loaded notice without waiting for the next round', async () => {
    const { waiter, serving, refreshes } = setup(1000, 10_000);
    const call = track(waiter.wait('m', 3));
    await settle();
    expect(refreshes()).toBe(0);
    serving.add('m@3');
    waiter.loaded('m', 3);
    await settle();
    expect(refreshes()).toBe(1);
    expect(call.done).toBe('ok');
  });

  it('asks again at once when a loaded notice is followed by a round that still misses it', async () => {
    // The placer cleared the demand when it loaded the copy; the copy left before this router
    // saw it READY (evicted for another cold start), so nobody would load it again.
    const { waiter, serving, demands, clock } = setup(60_000, 10_000, 60_000);
    const call = track(waiter.wait('m', 10));
    await settle();
    waiter.loaded('m', 10);
    await settle();
    expect(demands).toEqual(['m@10', 'm@10']);
    expect(call.done).toBe('pending');
    // A round without a notice does not ask again before askAgainEveryMs.
    await clock.advance(10_000);
    expect(demands).toEqual(['m@10', 'm@10']);
    serving.add('m@10');
    waiter.loaded('m', 10);
    await settle();
    expect(call.done).toBe('ok');
    expect(demands).toEqual(['m@10', 'm@10']);
  });

  it('renews its demand every askAgainEveryMs while it waits, and stops with the wait', async () => {
    const { waiter, serving, demands, clock } = setup(20_000, 500, 5_000);
    const call = track(waiter.wait('m', 11));
    await settle();
    await clock.advance(4_900);
    expect(demands).toEqual(['m@11']);
    await clock.advance(600);
    expect(demands).toEqual(['m@11', 'm@11']);
    await clock.advance(5_000);
    expect(demands).toEqual(['m@11', 'm@11', 'm@11']);
    serving.add('m@11');
    await clock.advance(500);
    expect(call.done).toBe('ok');
    await clock.advance(20_000);
    expect(demands).toHaveLength(3);
  });

  it('ignores a loaded notice for a version nobody waits for', async () => {
    const { waiter, refreshes } = setup();
    waiter.loaded('m', 9);
    await settle();
    expect(refreshes()).toBe(0);
  });

  it('times out into MODEL_LOADING naming model and version, with Retry-After', async () => {
    const { waiter, clock, observed } = setup(1000, 2500);
    const call = track(waiter.wait('sentiment', 4));
    await clock.advance(999);
    expect(call.done).toBe('pending');
    await clock.advance(1);
    expect(call.done).toBeInstanceOf(ModelLoadingError);
    const err = call.done as ModelLoadingError;
    expect(err.code).toBe('MODEL_LOADING');
    expect(err.message).toContain("model 'sentiment' version 4");
    expect(err.retryAfterSeconds).toBe(3);
    expect(observed).toEqual([{ outcome: 'timeout', seconds: 1 }]);
    // The last waiter gone, the version's wait stops (no timer left behind).
    expect(waiter.pending()).toEqual([]);
  });

  it('gives each request its own deadline within the shared wait', async () => {
    const { waiter, clock, demands } = setup(1000);
    const first = track(waiter.wait('m', 5));
    await clock.advance(600);
    const second = track(waiter.wait('m', 5));
    await clock.advance(400);
    expect(first.done).toBeInstanceOf(ModelLoadingError);
    expect(second.done).toBe('pending');
    await clock.advance(600);
    expect(second.done).toBeInstanceOf(ModelLoadingError);
    expect(demands).toEqual(['m@5']);
  });

  it('with a wait of 0 asks once per round and refuses at once', async () => {
    const { waiter, demands, observed, clock } = setup(0, 100);
    await expect(waiter.wait('m', 6)).rejects.toBeInstanceOf(ModelLoadingError);
    await expect(waiter.wait('m', 6)).rejects.toBeInstanceOf(ModelLoadingError);
    expect(demands).toEqual(['m@6']);
    await clock.advance(100);
    await expect(waiter.wait('m', 6)).rejects.toBeInstanceOf(ModelLoadingError);
    expect(demands).toEqual(['m@6', 'm@6']);
    expect(observed).toEqual(Array(3).fill({ outcome: 'timeout', seconds: 0 }));
    expect(waiter.pending()).toEqual([]);
  });

  it('lets a caller that left go with its own reason, keeping the others waiting', async () => {
    const { waiter } = setup();
    const gone = new AbortController();
    const leaving = track(waiter.wait('m', 7, gone.signal));
    const staying = track(waiter.wait('m', 7));
    gone.abort(new Error('caller left'));
    await settle();
    expect((leaving.done as Error).message).toBe('caller left');
    expect(staying.done).toBe('pending');
    expect(waiter.pending()).toEqual([{ model: 'm', version: 7, waiters: 1 }]);
  });

  it('keeps waiting when the demand cannot be written (discovery can still end the wait)', async () => {
    const clock = new ManualClock();
    let served = false;
    const warnings: string[] = [];
    const waiter = new ColdStartWaiter(
      {
        isReady: () => served,
        refresh: async () => undefined,
        demand: async () => {
          throw new Error('redis down');
        },
        observe: () => undefined,
        warn: (_f, message) => warnings.push(message),
      },
      { waitMs: 1000, refreshEveryMs: 100, askAgainEveryMs: 10_000 },
      clock,
    );
    const call = track(waiter.wait('m', 8));
    await settle();
    expect(warnings).toEqual(['cold-start demand could not be recorded']);
    served = true;
    await clock.advance(100);
    expect(call.done).toBe('ok');
  });
});

describe('ColdStartWaiter after a miss', () => {
  /** The router's view says `m@1` is served; the backends no longer hold it. */
  function stale() {
    const clock = new ManualClock();
    const view = new Set(['m@1']);
    const truth = new Set<string>();
    const demands: string[] = [];
    const waiter = new ColdStartWaiter(
      {
        isReady: (m, v) => view.has(`${m}@${v}`),
        refresh: async () => {
          view.clear();
          for (const x of truth) view.add(x);
        },
        demand: async (m, v) => {
          demands.push(`${m}@${v}`);
        },
        observe: () => undefined,
        warn: () => undefined,
      },
      { waitMs: 1000, refreshEveryMs: 100, askAgainEveryMs: 10_000 },
      clock,
    );
    return { clock, truth, demands, waiter };
  }

  it('looks at the backends before trusting its view, then waits as for a cold version', async () => {
    const { clock, truth, demands, waiter } = stale();
    const state = track(waiter.waitAfterMiss('m', 1));
    await settle();
    expect(state.done).toBe('pending');
    expect(demands).toEqual(['m@1']);
    truth.add('m@1'); // the placer loaded it again
    await clock.advance(100);
    expect(state.done).toBe('ok');
  });

  it('goes on at once when another backend still holds it', async () => {
    const { truth, demands, waiter } = stale();
    truth.add('m@1');
    await expect(waiter.waitAfterMiss('m', 1)).resolves.toBeUndefined();
    expect(demands).toEqual([]);
  });
});
