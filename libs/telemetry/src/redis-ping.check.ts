import type { ReadinessCheck, ReadinessResult } from './readiness';

/** The one method of a Redis client this check needs (ioredis satisfies it). */
export interface Pingable {
  ping(): Promise<string>;
}

/** Ready when Redis answers PING. */
export class RedisPingCheck implements ReadinessCheck {
  readonly name = 'redis';

  constructor(private readonly redis: Pingable) {}

  async check(): Promise<ReadinessResult> {
    const pong = await this.redis.ping();
    return pong === 'PONG'
      ? { ready: true }
      : { ready: false, detail: `unexpected PING reply ${pong}` };
  }
}
