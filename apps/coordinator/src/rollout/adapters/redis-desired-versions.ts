import type { RedisClient } from '@mesh/config';
import { RolloutKeys } from '@mesh/rollout-contract';
import type { DesiredVersions } from '../rollout-ports';

/** model → versions every backend should serve, as the last rollout decided (Redis hash). */
export class RedisDesiredVersions implements DesiredVersions {
  private readonly key: string;

  constructor(
    private readonly redis: RedisClient,
    keyPrefix: string,
  ) {
    this.key = new RolloutKeys(keyPrefix).desired();
  }

  async set(model: string, versions: number[]): Promise<void> {
    await this.redis.hset(this.key, model, JSON.stringify([...versions].sort((a, b) => a - b)));
  }

  async all(): Promise<Map<string, number[]>> {
    const raw = await this.redis.hgetall(this.key);
    return new Map(Object.entries(raw).map(([m, v]) => [m, JSON.parse(v) as number[]]));
  }
}
