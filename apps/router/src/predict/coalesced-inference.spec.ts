import { describeError } from '../errors/error-view';
import {
  CoalescedInference,
  DEFAULT_IN_FLIGHT,
  inFlightFor,
  type CoalescingOptions,
} from './coalesced-inference';
import { HeldGateway, markedRow as row, markedVersion as version } from '../testing/marked-rows';

function setup(now = () => 0, over: Partial<CoalescingOptions> = { maxInFlight: 1 }) {
  const gateway = new HeldGateway();
  const observed: number[] = [];
  const inference = new CoalescedInference(
    gateway,
    { maxRows: 8, maxTokens: 1024, bucket: 16, deadlineMs: 1000, now, ...over },
    (_v, requests) => observed.push(requests),
  );
  const call = (mark: number, seq = 10, signal?: AbortSignal) =>
    inference
      .infer(version, row(mark, seq), {
        requestId: `r${mark}`,
        traceparent: undefined,
        ...(signal ? { signal } : {}),
      })
      .then(
        (out) => Array.from(out.data),
        (err: unknown) => describeError(err).code,
      );
  return { gateway, observed, call };
}

describe('inFlightFor', () => {
  it("follows the backend's instances + 1, unless ROUTER_COALESCE_IN_FLIGHT is set", () => {
    expect(inFlightFor(undefined, 1)).toBe(2);
    expect(inFlightFor(undefined, 2)).toBe(3);
    expect(inFlightFor(undefined, 8)).toBe(9);
    expect(inFlightFor(5, 2)).toBe(5);
    expect(inFlightFor(1, undefined)).toBe(1);
  });

  it('keeps the former fixed default while the instances are unknown', () => {
    expect(DEFAULT_IN_FLIGHT).toBe(2);
    expect(inFlightFor(undefined, undefined)).toBe(2);
    expect(inFlightFor(undefined, 0)).toBe(2);
  });
});

describe('CoalescedInference', () => {
  it("sends at once as many calls as the backend's instances + 1, then merges", async () => {
    const { gateway, call } = setup(() => 0, { instancesOf: () => 2 });
    const answers = [call(1), call(2), call(3), call(4), call(5)];
    await Promise.resolve();
    expect(gateway.calls.map((c) => c.marks)).toEqual([[1], [2], [3]]);
    await gateway.finish();
    expect(gateway.calls.map((c) => c.marks)).toEqual([[1], [2], [3], [4, 5]]);
    for (let i = 0; i < 3; i++) await gateway.finish();
    expect(await Promise.all(answers)).toEqual([[1], [2], [3], [4], [5]]);
  });

  it('lets an explicit in-flight setting override the instances', async () => {
    const { gateway, call } = setup(() => 0, { maxInFlight: 1, instancesOf: () => 4 });
    const answers = [call(1), call(2), call(3)];
    await Promise.resolve();
    expect(gateway.calls.map((c) => c.marks)).toEqual([[1]]);
    await gateway.finish();
    await gateway.finish();
    expect(gateway.calls.map((c) => c.marks)).toEqual([[1], [2, 3]]);
    expect(await Promise.all(answers)).toEqual([[1], [2], [3]]);
  });

  it("follows a change in the backend's instances on the next request", async () => {
    const backend: { instances?: number } = {};
    const { gateway, call } = setup(() => 0, { instancesOf: () => backend.instances });
    const first = [call(1), call(2), call(3)];
    await Promise.resolve();
    // Unknown: two in flight.
    expect(gateway.calls).toHaveLength(2);
    for (let i = 0; i < 3; i++) await gateway.finish();
    await Promise.all(first);
    backend.instances = 3;
    const later = [call(4), call(5), call(6), call(7), call(8)];
    await Promise.resolve();
    expect(gateway.calls.slice(3).map((c) => c.marks)).toEqual([[4], [5], [6], [7]]);
    for (let i = 0; i < 5; i++) await gateway.finish();
    await Promise.all(later);
  });

  it('merges waiting predicts of one bucket into one call and gives each its own row', async () => {
    const { gateway, observed, call } = setup();
    const answers = [call(1), call(2, 12), call(3, 16), call(4, 17)];
    await gateway.finish();
    expect(gateway.calls.map((c) => c.marks)).toEqual([[1], [2, 3]]);
    expect(gateway.calls[1]!.seq).toBe(16);
    expect(gateway.calls[1]!.meta).toMatchObject({ requestId: 'r2', priority: 1 });
    await gateway.finish();
    await gateway.finish();
    expect(gateway.calls.map((c) => c.marks)).toEqual([[1], [2, 3], [4]]);
    expect(await Promise.all(answers)).toEqual([[1], [2], [3], [4]]);
    expect(observed).toEqual([1, 2, 1]);
  });

  it('fails a predict that waited past its deadline with BACKEND_TIMEOUT', async () => {
    let clock = 0;
    const { gateway, call } = setup(() => clock);
    const first = call(1);
    const late = call(2);
    clock = 1500;
    await gateway.finish();
    expect(await first).toEqual([1]);
    expect(await late).toBe('BACKEND_TIMEOUT');
    expect(gateway.calls).toHaveLength(1);
  });

  it('answers CLIENT_CLOSED to a caller that leaves while waiting and never sends it', async () => {
    const { gateway, call } = setup();
    const first = call(1);
    const leaving = new AbortController();
    const gone = call(2, 10, leaving.signal);
    leaving.abort();
    expect(await gone).toBe('CLIENT_CLOSED');
    await gateway.finish();
    expect(await first).toEqual([1]);
    expect(gateway.calls).toHaveLength(1);
  });

  it('cancels a sent call once every caller in it has left, not before', async () => {
    const { gateway, call } = setup();
    const first = call(1);
    const a = new AbortController();
    const b = new AbortController();
    const left = [call(2, 10, a.signal), call(3, 10, b.signal)];
    await gateway.finish();
    expect(await first).toEqual([1]);
    const merged = gateway.calls[1]!;
    expect(merged.marks).toEqual([2, 3]);
    a.abort();
    expect(merged.meta.signal?.aborted).toBe(false);
    b.abort();
    expect(merged.meta.signal?.aborted).toBe(true);
    expect(await Promise.all(left)).toEqual(['CLIENT_CLOSED', 'CLIENT_CLOSED']);
  });

  it("passes a lone caller's own signal to its call", async () => {
    const { gateway, call } = setup();
    const leaving = new AbortController();
    void call(1, 10, leaving.signal);
    expect(gateway.calls[0]!.meta.signal).toBe(leaving.signal);
  });
});
