import type { RedisClient } from '@mesh/config';
import type { Fence } from '@mesh/routing';

/**
 * Takes the lease when it is free (drawing a new fencing token), or renews it when this holder
 * already has it. Value: `<token> <holder>`.
 * KEYS: lease, fencing counter   ARGV: holder, ttl ms
 * Returns the token held, or 0 when another holder has the lease.
 */
const ACQUIRE_SCRIPT = `
local value = redis.call('GET', KEYS[1])
if value then
  local token, holder = string.match(value, '^(%d+) (.+)$')
  if holder == ARGV[1] then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return tonumber(token)
  end
  return 0
end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], token .. ' ' .. ARGV[1], 'PX', ARGV[2])
return token
`;

/** Deletes the lease only if this holder still has it. KEYS: lease  ARGV: holder */
const RELEASE_SCRIPT = `
local value = redis.call('GET', KEYS[1])
if value and string.match(value, '^%d+ (.+)$') == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`;

/**
 * Leader election among coordinator replicas: a Redis lease with a fencing token. Every write
 * the leader makes (routing table, rollout records) carries the token and is checked against
 * the lease inside the same script, so a leader that stalled past its lease cannot write.
 */
export class LeaderLease {
  private token = 0;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: { leaderLease: string; fencingCounter: string },
    readonly holder: string,
    private readonly ttlMs: number,
  ) {}

  /** Acquires or renews; the fence to write with, or undefined when another replica leads. */
  async tryAcquire(): Promise<Fence | undefined> {
    const token = Number(
      await this.redis.eval(
        ACQUIRE_SCRIPT,
        2,
        this.keys.leaderLease,
        this.keys.fencingCounter,
        this.holder,
        String(this.ttlMs),
      ),
    );
    this.token = token;
    return token > 0 ? { leaseKey: this.keys.leaderLease, token } : undefined;
  }

  /** The fence of the last successful acquire (possibly stale; the scripts decide). */
  get fence(): Fence | undefined {
    return this.token > 0 ? { leaseKey: this.keys.leaderLease, token: this.token } : undefined;
  }

  async release(): Promise<void> {
    this.token = 0;
    await this.redis.eval(RELEASE_SCRIPT, 1, this.keys.leaderLease, this.holder);
  }
}
