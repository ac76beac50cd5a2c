import { EventEmitter } from 'node:events';
import type { RedisClient } from '@mesh/config';
import { JobChangeFeed } from './job-change-feed';

const PREFIX = 'unit';
const NEVER = 3_600_000;
const channel = (jobId: string): string => `${PREFIX}:{job:${jobId}}:changes`;

/** A subscriber connection that records its commands and answers them as told. */
class FakeSubscriber extends EventEmitter {
  readonly sent: string[] = [];
  failNext = false;
  throwNext = false;
  hangNext = false;

  ssubscribe(name: string): Promise<unknown> {
    return this.answer(`SSUBSCRIBE ${name}`);
  }

  sunsubscribe(name: string): Promise<unknown> {
    return this.answer(`SUNSUBSCRIBE ${name}`);
  }

  notice(jobId: string): void {
    this.emit('smessage', channel(jobId), '1');
  }

  private answer(command: string): Promise<unknown> {
    this.sent.push(command);
    if (this.throwNext) {
      this.throwNext = false;
      throw new Error('no sharded subscriber for the slot');
    }
    if (this.hangNext) {
      this.hangNext = false;
      return new Promise(() => undefined);
    }
    if (this.failNext) {
      this.failNext = false;
      return Promise.reject(new Error('MOVED'));
    }
    return Promise.resolve(1);
  }
}

function feedOn(fake: FakeSubscriber, fallbackMs = NEVER, lingerMs = 0): JobChangeFeed {
  return new JobChangeFeed(fake as unknown as RedisClient, PREFIX, fallbackMs, lingerMs);
}

const never = new AbortController().signal;

describe('JobChangeFeed', () => {
  it("subscribes a job's channel once for all its waits and wakes them all on a notice", async () => {
    const fake = new FakeSubscriber();
    const feed = feedOn(fake);
    const a = feed.arm('j', never);
    const b = feed.arm('j', never);
    await Promise.all([a.armed, b.armed]);
    fake.notice('j');
    await Promise.all([a.changed, b.changed]);
    a.dispose();
    expect(fake.sent).toEqual([`SSUBSCRIBE ${channel('j')}`]);
    b.dispose();
    b.dispose();
    expect(fake.sent).toEqual([`SSUBSCRIBE ${channel('j')}`, `SUNSUBSCRIBE ${channel('j')}`]);
    expect(feed.waiting()).toBe(0);
  });

  it('unsubscribes only after the linger, and a re-arm within it keeps the subscription', () => {
    jest.useFakeTimers();
    try {
      const fake = new FakeSubscriber();
      const feed = feedOn(fake, NEVER, 1000);
      feed.arm('j', never).dispose();
      jest.advanceTimersByTime(900);
      const again = feed.arm('j', never);
      jest.advanceTimersByTime(5000);
      expect(fake.sent).toEqual([`SSUBSCRIBE ${channel('j')}`]);
      again.dispose();
      jest.advanceTimersByTime(999);
      expect(fake.sent).toHaveLength(1);
      jest.advanceTimersByTime(1);
      expect(fake.sent).toEqual([`SSUBSCRIBE ${channel('j')}`, `SUNSUBSCRIBE ${channel('j')}`]);
    } finally {
      jest.useRealTimers();
    }
  });

  it('resolves armed when subscribing fails or throws, and the next arm subscribes again', async () => {
    const fake = new FakeSubscriber();
    const feed = feedOn(fake);
    fake.failNext = true;
    const failed = feed.arm('j', never);
    await failed.armed;
    fake.throwNext = true;
    const thrown = feed.arm('k', never);
    await thrown.armed;
    const retried = feed.arm('j', never);
    await retried.armed;
    expect(fake.sent.filter((c) => c === `SSUBSCRIBE ${channel('j')}`)).toHaveLength(2);
    fake.notice('j');
    await Promise.all([failed.changed, retried.changed]);
    for (const w of [failed, thrown, retried]) w.dispose();
  });

  it('resolves armed and ready after the fallback when SSUBSCRIBE gets no answer', async () => {
    const fake = new FakeSubscriber();
    const feed = feedOn(fake, 30);
    fake.hangNext = true;
    const wait = feed.arm('j', never);
    await wait.armed;
    await feed.ready();
    // Not a failure: the next arm does not ask again (ioredis owns the redirected channel).
    feed.arm('j', never).dispose();
    expect(fake.sent).toEqual([`SSUBSCRIBE ${channel('j')}`]);
    wait.dispose();
  });

  it('ends a wait after the fallback interval, notice or not', async () => {
    const feed = feedOn(new FakeSubscriber(), 20);
    const wait = feed.arm('j', never);
    await wait.changed;
    wait.dispose();
    const pollOnly = new JobChangeFeed(undefined, PREFIX, 20);
    const bare = pollOnly.arm('j', never);
    await bare.armed;
    await bare.changed;
    bare.dispose();
  });

  it('close wakes every wait, unsubscribes and stops listening', async () => {
    const fake = new FakeSubscriber();
    const feed = feedOn(fake, NEVER, 1000);
    const wait = feed.arm('j', never);
    feed.close();
    await wait.changed;
    wait.dispose();
    expect(fake.sent).toEqual([`SSUBSCRIBE ${channel('j')}`, `SUNSUBSCRIBE ${channel('j')}`]);
    expect(fake.listenerCount('smessage')).toBe(0);
  });

  it('refuses a Redis Cluster subscriber without sharded subscribers', () => {
    const cluster = Object.assign(new FakeSubscriber(), { isCluster: true, options: {} });
    expect(() => new JobChangeFeed(cluster as unknown as RedisClient, PREFIX, NEVER)).toThrow(
      /shardedSubscribers/,
    );
    const sharded = Object.assign(new FakeSubscriber(), {
      isCluster: true,
      options: { shardedSubscribers: true },
    });
    expect(() => new JobChangeFeed(sharded as unknown as RedisClient, PREFIX, NEVER)).not.toThrow();
  });
});
