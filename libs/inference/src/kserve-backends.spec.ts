import pino from 'pino';
import { KServeBackends } from './kserve-backends';

/** Discovery rounds a test releases one by one, counted by when they started. */
function heldRounds(backends: KServeBackends) {
  const started: (() => void)[] = [];
  jest
    .spyOn(backends as unknown as { discoverOnce(): Promise<void> }, 'discoverOnce')
    .mockImplementation(() => new Promise<void>((resolve) => started.push(resolve)));
  return started;
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('KServeBackends discovery rounds', () => {
  // Never started: no connection is made, only the round bookkeeping runs.
  const make = () => new KServeBackends({ endpoints: ['127.0.0.1:1'] }, pino({ level: 'silent' }));

  it('discover() joins the round under way', async () => {
    const backends = make();
    const rounds = heldRounds(backends);
    const first = backends.discover();
    const joined = backends.discover();
    expect(rounds).toHaveLength(1);
    rounds[0]!();
    await Promise.all([first, joined]);
    expect(rounds).toHaveLength(1);
  });

  it('discoverFresh() waits out the round under way and joins the next one', async () => {
    const backends = make();
    const rounds = heldRounds(backends);
    const stale = backends.discover();
    let freshDone = false;
    const fresh = Promise.all([backends.discoverFresh(), backends.discoverFresh()]).then(() => {
      freshDone = true;
    });
    rounds[0]!();
    await stale;
    await flush();
    // The round begun before the calls ended; theirs is the one after it, shared by both.
    expect(freshDone).toBe(false);
    expect(rounds).toHaveLength(2);
    rounds[1]!();
    await fresh;
    expect(rounds).toHaveLength(2);
  });

  it('discoverFresh() starts a round at once when none is under way', async () => {
    const backends = make();
    const rounds = heldRounds(backends);
    const fresh = backends.discoverFresh();
    await flush();
    expect(rounds).toHaveLength(1);
    rounds[0]!();
    await fresh;
  });
});
