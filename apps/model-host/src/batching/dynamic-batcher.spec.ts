import { parseModelConfig } from '@mesh/model-repository';
import { ModelUnavailableError } from '../core/model-host.errors';
import { batchingPolicyOf } from '../repository/batching-policy';
import type { BatchingPolicy } from './batching.types';
import { batchingPolicy, turn } from '../testing/batching-fixture';
import { heldBatcher } from '../testing/held-batcher';

describe('DynamicBatcher', () => {
  it('runs each request alone when dynamic batching is off', async () => {
    const h = heldBatcher(batchingPolicy({ enabled: false }));
    const results = ['a', 'b', 'c'].map((x) => h.batcher.submit(x, 1, 0, 0));
    await turn();
    expect(h.payloads()).toEqual([['a']]);
    await h.finishNext();
    await h.finishNext();
    await h.finishNext();
    expect(h.payloads()).toEqual([['a'], ['b'], ['c']]);
    await expect(Promise.all(results)).resolves.toEqual(['done:a', 'done:b', 'done:c']);
  });

  it('batches what queued while the only instance was busy, up to max_batch_size rows', async () => {
    const h = heldBatcher(batchingPolicy({ maxBatchSize: 4 }));
    const all = ['a', 'b', 'c', 'd', 'e', 'f'].map((x) => h.batcher.submit(x, 1, 0, 0));
    await turn();
    expect(h.payloads()).toEqual([['a']]);
    await h.finishNext();
    expect(h.payloads()[1]).toEqual(['b', 'c', 'd', 'e']);
    await h.finishNext();
    expect(h.payloads()[2]).toEqual(['f']);
    await h.finishNext();
    await Promise.all(all);
  });

  it('counts rows, not requests, against max_batch_size', async () => {
    const h = heldBatcher(batchingPolicy({ maxBatchSize: 4 }));
    const x = h.batcher.submit('x', 1, 0, 0);
    await turn();
    const rest = [h.batcher.submit('a', 3, 0, 0), h.batcher.submit('b', 2, 0, 0)];
    await h.finishNext();
    expect(h.payloads()[1]).toEqual(['a']);
    await h.finishNext();
    expect(h.payloads()[2]).toEqual(['b']);
    await h.finishNext();
    await Promise.all([x, ...rest]);
  });

  it('waits up to max_queue_delay for a fuller batch, then sends what it has', async () => {
    const h = heldBatcher(batchingPolicy({ maxQueueDelayUs: 30_000 }));
    const a = h.batcher.submit('a', 1, 0, 0);
    const b = h.batcher.submit('b', 1, 0, 0);
    await turn();
    expect(h.batches).toHaveLength(0);
    h.clock.advance(29);
    expect(h.batches).toHaveLength(0);
    h.clock.advance(1);
    expect(h.payloads()).toEqual([['a', 'b']]);
    await h.finishNext();
    await Promise.all([a, b]);
  });

  it('sends a preferred batch size at once instead of waiting for the delay', async () => {
    const h = heldBatcher(
      batchingPolicy({ preferredBatchSizes: [4], maxQueueDelayUs: 10_000_000 }),
    );
    const first = ['a', 'b', 'c'].map((x) => h.batcher.submit(x, 1, 0, 0));
    await turn();
    expect(h.batches).toHaveLength(0);
    const last = h.batcher.submit('d', 1, 0, 0);
    await turn();
    expect(h.payloads()).toEqual([['a', 'b', 'c', 'd']]);
    await h.finishNext();
    await Promise.all([...first, last]);
  });

  it('rejects with UNAVAILABLE once max_queue_size requests are waiting', async () => {
    const h = heldBatcher(
      batchingPolicy({
        defaultQueuePolicy: { maxQueueSize: 2, defaultTimeoutUs: 0, allowTimeoutOverride: false },
      }),
      0,
    );
    const a = h.batcher.submit('a', 1, 0, 0);
    const b = h.batcher.submit('b', 1, 0, 0);
    const err = await h.batcher.submit('c', 1, 0, 0).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelUnavailableError);
    expect((err as Error).message).toContain('exceeds maximum queue size (2');
    void a.catch(() => undefined);
    void b.catch(() => undefined);
  });

  it('rejects a request whose timeout expires while it waits for an instance', async () => {
    const h = heldBatcher(
      batchingPolicy({
        defaultQueuePolicy: {
          maxQueueSize: 0,
          defaultTimeoutUs: 10_000,
          allowTimeoutOverride: false,
        },
      }),
    );
    const first = h.batcher.submit('first', 1, 0, 0);
    await turn();
    const late = h.batcher.submit('late', 1, 0, 0).catch((e: unknown) => e);
    h.clock.advance(11);
    await h.finishNext();
    const err = await late;
    expect(err).toBeInstanceOf(ModelUnavailableError);
    expect((err as Error).message).toContain('timeout expired');
    await first;
    expect(h.payloads()).toEqual([['first']]);
  });

  it('serves priority level 1 before level 2, FIFO within a level', async () => {
    const h = heldBatcher(
      batchingPolicy({ maxBatchSize: 1, priorityLevels: 2, defaultPriorityLevel: 2 }),
    );
    const blocker = h.batcher.submit('blocker', 1, 0, 0);
    await turn();
    const low1 = h.batcher.submit('low1', 1, 0, 0);
    const high1 = h.batcher.submit('high1', 1, 1, 0);
    const low2 = h.batcher.submit('low2', 1, 2, 0);
    const high2 = h.batcher.submit('high2', 1, 1, 0);
    for (let i = 0; i < 5; i++) await h.finishNext();
    expect(h.payloads().flat()).toEqual(['blocker', 'high1', 'high2', 'low1', 'low2']);
    await Promise.all([blocker, low1, high1, low2, high2]);
  });

  it('drain lets queued and running requests finish and refuses new ones', async () => {
    const h = heldBatcher(batchingPolicy({ maxBatchSize: 1 }));
    const a = h.batcher.submit('a', 1, 0, 0);
    const b = h.batcher.submit('b', 1, 0, 0);
    await turn();
    let drained = false;
    const d = h.batcher.drain().then(() => (drained = true));
    await expect(h.batcher.submit('c', 1, 0, 0)).rejects.toThrow('unloading');
    await h.finishNext();
    expect(drained).toBe(false);
    await h.finishNext();
    await d;
    expect(drained).toBe(true);
    await expect(Promise.all([a, b])).resolves.toEqual(['done:a', 'done:b']);
  });

  it('keeps short and long requests apart when padding them together would exceed max_padding_ratio', async () => {
    const h = heldBatcher(batchingPolicy({ maxBatchSize: 8, maxPaddingRatio: 1.5 }));
    const all = await h.queueBehindBlocker([
      ['s1', 20],
      ['long', 200],
      ['s2', 24],
      ['s3', 18],
    ]);
    await h.finishNext();
    expect(h.payloads()[1]).toEqual(['s1', 's2', 's3']);
    await h.finishNext();
    expect(h.payloads()[2]).toEqual(['long']);
    await h.finishNext();
    await Promise.all(all);
  });

  it('never puts priority-1 and priority-2 requests in one batch', async () => {
    const h = heldBatcher(
      batchingPolicy({ maxBatchSize: 8, priorityLevels: 2, defaultPriorityLevel: 1 }),
    );
    const blocker = h.batcher.submit('blocker', 1, 2, 0);
    await turn();
    const rest = [
      h.batcher.submit('bulk1', 1, 2, 0),
      h.batcher.submit('online1', 1, 1, 0),
      h.batcher.submit('bulk2', 1, 2, 0),
      h.batcher.submit('online2', 1, 1, 0),
    ];
    for (let i = 0; i < 3; i++) await h.finishNext();
    expect(h.payloads()).toEqual([['blocker'], ['online1', 'online2'], ['bulk1', 'bulk2']]);
    await Promise.all([blocker, ...rest]);
  });

  it('caps batches below the top priority at low_priority_max_batch_tokens padded elements', async () => {
    const h = heldBatcher(
      batchingPolicy({
        maxBatchSize: 64,
        priorityLevels: 2,
        defaultPriorityLevel: 1,
        lowPriorityMaxBatchTokens: 400,
      }),
    );
    const blocker = h.batcher.submit('blocker', 1, 1, 0, 100);
    await turn();
    const bulk = ['b1', 'b2', 'b3', 'b4', 'b5'].map((p) => h.batcher.submit(p, 1, 2, 0, 100));
    const online = ['o1', 'o2', 'o3', 'o4', 'o5'].map((p) => h.batcher.submit(p, 1, 1, 0, 100));
    for (let i = 0; i < 4; i++) await h.finishNext();
    // Online rows batch under the general (unlimited) budget; bulk rows four at a time.
    expect(h.payloads()).toEqual([
      ['blocker'],
      ['o1', 'o2', 'o3', 'o4', 'o5'],
      ['b1', 'b2', 'b3', 'b4'],
      ['b5'],
    ]);
    await Promise.all([blocker, ...bulk, ...online]);
  });

  describe('instances reserved for the top priority (top_priority_reserved_instances)', () => {
    const reserving = batchingPolicy({
      maxBatchSize: 1,
      priorityLevels: 2,
      defaultPriorityLevel: 1,
      dispatchWhenIdle: true,
      topPriorityReservedInstances: 1,
      topPriorityReserveMs: 1000,
    });

    it('lets bulk use every instance while no online request has been seen', async () => {
      const h = heldBatcher(reserving, 2);
      const bulk = ['b1', 'b2'].map((p) => h.batcher.submit(p, 1, 2, 0));
      await turn();
      expect(h.payloads()).toEqual([['b1'], ['b2']]);
      await h.finishNext();
      await h.finishNext();
      await Promise.all(bulk);
    });

    it('keeps one instance free for online traffic, then gives it back', async () => {
      const h = heldBatcher(reserving, 2);
      const o1 = h.batcher.submit('o1', 1, 1, 0);
      await turn();
      await h.finishNext();
      // o1 was just seen: bulk gets one instance, the other waits for online requests.
      const bulk = ['b1', 'b2'].map((p) => h.batcher.submit(p, 1, 2, 0));
      await turn();
      expect(h.payloads()).toEqual([['o1'], ['b1']]);
      const o2 = h.batcher.submit('o2', 1, 1, 0);
      await turn();
      expect(h.payloads()).toEqual([['o1'], ['b1'], ['o2']]);
      await h.finishNext(); // b1
      expect(h.payloads()).toEqual([['o1'], ['b1'], ['o2'], ['b2']]);
      await h.finishNext(); // o2
      const later = ['b3', 'b4'].map((p) => h.batcher.submit(p, 1, 2, 0));
      await turn();
      expect(h.payloads()).toHaveLength(4);
      await h.finishNext(); // b2
      expect(h.payloads()[4]).toEqual(['b3']);
      // The reservation ends 1000 ms after o2 arrived: then bulk may take both instances.
      h.clock.advance(999);
      await turn();
      expect(h.payloads()).toHaveLength(5);
      h.clock.advance(1);
      await turn();
      expect(h.payloads()[5]).toEqual(['b4']);
      await h.finishNext();
      await h.finishNext();
      await Promise.all([o1, o2, ...bulk, ...later]);
    });

    it('never holds bulk back on a single instance', async () => {
      const h = heldBatcher(reserving, 1);
      await Promise.all([h.batcher.submit('o1', 1, 1, 0), turn().then(() => h.finishNext())]);
      const b1 = h.batcher.submit('b1', 1, 2, 0);
      await turn();
      expect(h.payloads()).toEqual([['o1'], ['b1']]);
      await h.finishNext();
      await b1;
    });
  });

  it('sends a batch once max_batch_tokens padded elements are reached', async () => {
    const h = heldBatcher(
      batchingPolicy({ maxBatchSize: 64, maxBatchTokens: 600, maxQueueDelayUs: 50_000 }),
    );
    const all = ['a', 'b', 'c', 'd'].map((p) => h.batcher.submit(p, 1, 0, 0, 200));
    await turn();
    // 3 × 200 fits the budget, a 4th would not: the batch goes without waiting for the delay.
    expect(h.payloads()).toEqual([['a', 'b', 'c']]);
    await h.finishNext();
    // 'd' alone is neither full nor preferred: it goes once it has queued for the delay.
    expect(h.batches).toHaveLength(1);
    h.clock.advance(50);
    expect(h.payloads()[1]).toEqual(['d']);
    await h.finishNext();
    await Promise.all(all);
  });

  it('pads freely when max_padding_ratio is 0', async () => {
    const h = heldBatcher(batchingPolicy({ maxBatchSize: 8 }));
    const all = await h.queueBehindBlocker([
      ['short', 10],
      ['long', 300],
    ]);
    await h.finishNext();
    expect(h.payloads()[1]).toEqual(['short', 'long']);
    await h.finishNext();
    await Promise.all(all);
  });

  it('fills every free instance with its own batch', async () => {
    const h = heldBatcher(batchingPolicy({ maxBatchSize: 2 }), 2);
    const all = ['a', 'b', 'c', 'd'].map((x) => h.batcher.submit(x, 1, 0, 0));
    await turn();
    // First request starts alone on instance 1, the rest are picked up as instances free.
    expect(h.batches.length).toBeGreaterThanOrEqual(2);
    while (h.batches.flat().length < 4) await h.finishNext();
    await h.finishNext();
    await h.finishNext();
    await Promise.all(all);
    expect(h.payloads().flat().sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it("waits max_queue_delay for partners by Triton's rule, even with an instance free", async () => {
    const h = heldBatcher(batchingPolicy({ maxQueueDelayUs: 600_000_000 }));
    const first = h.batcher.submit('a', 1, 0, 0);
    await turn();
    expect(h.batches).toHaveLength(0);
    expect(h.batcher.queued).toBe(1);
    // A full batch (max_batch_size rows) leaves without waiting.
    const rest = ['b', 'c', 'd', 'e', 'f', 'g', 'h'].map((x) => h.batcher.submit(x, 1, 0, 0));
    await turn();
    expect(h.payloads()).toEqual([['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']]);
    await h.finishNext();
    await Promise.all([first, ...rest]);
  });

  it('dispatches at once to an idle instance when dispatch_when_idle is set', async () => {
    const h = heldBatcher(batchingPolicy({ maxQueueDelayUs: 600_000_000, dispatchWhenIdle: true }));
    const a = h.batcher.submit('a', 1, 0, 0);
    await turn();
    expect(h.payloads()).toEqual([['a']]);
    // While the only instance is busy the queue fills; the next free instance takes it all.
    const rest = ['b', 'c', 'd'].map((x) => h.batcher.submit(x, 1, 0, 0));
    await turn();
    expect(h.batches).toHaveLength(1);
    await h.finishNext();
    expect(h.payloads()).toEqual([['a'], ['b', 'c', 'd']]);
    await h.finishNext();
    await expect(Promise.all([a, ...rest])).resolves.toEqual([
      'done:a',
      'done:b',
      'done:c',
      'done:d',
    ]);
  });
  describe('batch_order length', () => {
    it("fills the oldest request's batch with the queued requests closest to its length", async () => {
      const h = heldBatcher(batchingPolicy({ maxBatchSize: 3, batchOrder: 'length' }));
      const all = await h.queueBehindBlocker([
        ['old20', 20],
        ['a40', 40],
        ['b128', 128],
        ['c22', 22],
        ['d41', 41],
        ['e19', 19],
        ['f126', 126],
      ]);
      for (let i = 0; i < 4; i++) await h.finishNext();
      // Each batch starts with the oldest waiting request and takes its nearest lengths.
      expect(h.payloads()).toEqual([
        ['blocker'],
        ['old20', 'e19', 'c22'],
        ['a40', 'd41', 'f126'],
        ['b128'],
      ]);
      await Promise.all(all);
    });

    it('keeps arrival order among equal distances and bounds every wait by its age', async () => {
      const h = heldBatcher(batchingPolicy({ maxBatchSize: 2, batchOrder: 'length' }));
      // 'odd' never sits close to an anchor's length, yet it goes once it is the oldest.
      const all = await h.queueBehindBlocker([
        ['x1', 30],
        ['odd', 90],
        ['x2', 30],
        ['x3', 30],
        ['x4', 30],
      ]);
      for (let i = 0; i < 4; i++) await h.finishNext();
      expect(h.payloads()).toEqual([['blocker'], ['x1', 'x2'], ['odd', 'x3'], ['x4']]);
      await Promise.all(all);
    });

    it('is first come, first served with batch_order arrival', async () => {
      const h = heldBatcher(batchingPolicy({ maxBatchSize: 2, batchOrder: 'arrival' }));
      const all = await h.queueBehindBlocker([
        ['x1', 30],
        ['odd', 90],
        ['x2', 30],
      ]);
      for (let i = 0; i < 3; i++) await h.finishNext();
      expect(h.payloads()).toEqual([['blocker'], ['x1', 'odd'], ['x2']]);
      await Promise.all(all);
    });
  });

  describe('balance_instances', () => {
    const balanced = (over: Partial<BatchingPolicy> = {}) =>
      batchingPolicy({ maxBatchSize: 64, dispatchWhenIdle: true, balanceInstances: true, ...over });

    it('gives a free instance its share of the outstanding rows, not the whole queue', async () => {
      const h = heldBatcher(balanced(), 2);
      const all = Array.from({ length: 11 }, (_, i) => h.batcher.submit(`r${i}`, 1, 0, 0));
      await turn();
      // r0 arrived alone (1 outstanding row, share 1); r1 went to the second instance likewise.
      expect(h.payloads()).toEqual([['r0'], ['r1']]);
      await h.finishNext();
      // 9 queued + 1 running over 2 instances: 5 rows.
      expect(h.payloads()[2]).toHaveLength(5);
      await h.finishNext();
      // 4 queued + 5 running: 5 rows, so the last 4 go together.
      expect(h.payloads()[3]).toHaveLength(4);
      await h.finishNext();
      await h.finishNext();
      await Promise.all(all);
      expect(h.payloads().flat()).toHaveLength(11);
    });

    it('takes the whole queue without the option (one big batch beside single requests)', async () => {
      const h = heldBatcher(balanced({ balanceInstances: false }), 2);
      const all = Array.from({ length: 11 }, (_, i) => h.batcher.submit(`r${i}`, 1, 0, 0));
      await turn();
      await h.finishNext();
      expect(h.payloads()[2]).toHaveLength(9);
      await h.finishNext();
      await h.finishNext();
      await Promise.all(all);
    });

    it('does not cap a single instance', async () => {
      const h = heldBatcher(balanced(), 1);
      const all = Array.from({ length: 6 }, (_, i) => h.batcher.submit(`r${i}`, 1, 0, 0));
      await turn();
      await h.finishNext();
      expect(h.payloads()).toEqual([['r0'], ['r1', 'r2', 'r3', 'r4', 'r5']]);
      await h.finishNext();
      await Promise.all(all);
    });
  });
  it('pads no request beyond max_padding_ratio × its own length (no short filler in long batches)', async () => {
    const h = heldBatcher(batchingPolicy({ maxBatchSize: 8, maxPaddingRatio: 1.5 }));
    // By the batch total, four 128s and a 40 would pass (640 padded ≤ 1.5 × 552 real); the
    // 40 alone would be padded 3.2×.
    const all = await h.queueBehindBlocker([
      ['l1', 128],
      ['l2', 128],
      ['s40', 40],
      ['l3', 128],
      ['l4', 128],
      ['s30', 30],
    ]);
    await h.finishNext();
    expect(h.payloads()[1]).toEqual(['l1', 'l2', 'l3', 'l4']);
    await h.finishNext();
    expect(h.payloads()[2]).toEqual(['s40', 's30']);
    await h.finishNext();
    await Promise.all(all);
  });

  describe('the defaults, on a config as Triton users write it (no mesh parameters)', () => {
    const asWritten = (extra = '') =>
      batchingPolicyOf(
        parseModelConfig(
          `name: "m"
platform: "onnxruntime_onnx"
max_batch_size: 8
input [ { name: "input_ids" data_type: TYPE_INT64 dims: [ -1 ] } ]
output [ { name: "logits" data_type: TYPE_FP32 dims: [ 3 ] } ]
instance_group [ { count: 1 kind: KIND_CPU } ]
dynamic_batching { max_queue_delay_microseconds: 2000 }
${extra}`,
          'm/config.pbtxt',
        ),
      );

    it('sends a request that finds an instance idle and nothing queued at once', async () => {
      const h = heldBatcher(asWritten());
      const a = h.batcher.submit('a', 1, 0, 0);
      await turn();
      expect(h.payloads()).toEqual([['a']]);
      expect(h.clock.pendingTimers).toBe(0);
      await h.finishNext();
      await expect(a).resolves.toBe('done:a');
    });

    it('waits the whole max_queue_delay with dispatch_when_idle "false", as Triton', async () => {
      const h = heldBatcher(
        asWritten('parameters { key: "dispatch_when_idle" value: { string_value: "false" } }'),
      );
      const a = h.batcher.submit('a', 1, 0, 0);
      await turn();
      expect(h.batches).toHaveLength(0);
      h.clock.advance(1);
      expect(h.batches).toHaveLength(0);
      h.clock.advance(1);
      expect(h.payloads()).toEqual([['a']]);
      await h.finishNext();
      await a;
    });

    it('still forms batches under load, each instance taking its share', async () => {
      const h = heldBatcher(asWritten(), 2);
      const all = Array.from({ length: 10 }, (_, i) => h.batcher.submit(`r${i}`, 1, 0, 0));
      await turn();
      // The first two found an instance idle each; the rest queued behind them.
      expect(h.payloads()).toEqual([['r0'], ['r1']]);
      await h.finishNext();
      // 8 queued + 1 running over 2 instances: a batch of 5 (balance_instances by default).
      expect(h.payloads()[2]).toHaveLength(5);
      await h.finishNext();
      expect(h.payloads()[3]).toHaveLength(3);
      while (h.batches.flat().length < 10) await h.finishNext();
      await h.finishNext();
      await h.finishNext();
      await Promise.all(all);
    });
  });
});
