import type { RedisClient } from '@mesh/config';
import { isTerminal } from '@mesh/rollout-contract';
import { FencedWriteError, type Fence } from '@mesh/routing';
import { RevisionConflictError, RolloutConflictError } from './rollout.errors';
import { RolloutKeys } from '@mesh/rollout-contract';
import { CREATE_ROLLOUT_SCRIPT, SAVE_ROLLOUT_SCRIPT } from './rollout-scripts';
import type { RolloutRecord } from './rollout.types';

/**
 * Rollouts in Redis. Keys share the routing table's `{routes}` hash tag so a save can check the
 * leader's fencing token atomically, like the table's own compare-and-swap does.
 */
export class RolloutRepository {
  private readonly keys: RolloutKeys;

  constructor(
    private readonly redis: RedisClient,
    keyPrefix: string,
  ) {
    this.keys = new RolloutKeys(keyPrefix);
  }

  /** Stores a new record; RolloutConflictError when its (tenant, task) has an active rollout. */
  async create(record: RolloutRecord): Promise<RolloutRecord> {
    const { tenant, task } = record.plan;
    const stored = { ...record, rev: 1 };
    const [created, id] = (await this.redis.eval(
      CREATE_ROLLOUT_SCRIPT,
      3,
      this.activeKey(tenant, task),
      this.recordKey(record.id),
      this.indexKey(),
      record.id,
      JSON.stringify(stored),
      String(record.createdAt),
    )) as [number, string];
    if (created !== 1) throw new RolloutConflictError(tenant, task, id);
    return stored;
  }

  async get(id: string): Promise<RolloutRecord | undefined> {
    const [rev, json] = await this.redis.hmget(this.recordKey(id), 'rev', 'json');
    if (!json) return undefined;
    return { ...(JSON.parse(json) as RolloutRecord), rev: Number(rev) };
  }

  /** Newest first. */
  async list(limit = 100): Promise<RolloutRecord[]> {
    const ids = await this.redis.zrevrange(this.indexKey(), 0, limit - 1);
    const records = await Promise.all(ids.map((id) => this.get(id)));
    return records.filter((r): r is RolloutRecord => r !== undefined);
  }

  async active(): Promise<RolloutRecord[]> {
    return (await this.list(1000)).filter((r) => !isTerminal(r.state));
  }

  /** The id of the active rollout of (tenant, task), if any. */
  async activeId(tenant: string, task: string): Promise<string | undefined> {
    return (await this.redis.get(this.activeKey(tenant, task))) ?? undefined;
  }

  /**
   * Writes `record` if nobody saved since it was read (its `rev`); returns it with the new rev.
   * With a fence, the write happens only while that leader lease is current.
   */
  async save(record: RolloutRecord, fence?: Fence): Promise<RolloutRecord> {
    const next = { ...record, rev: record.rev + 1 };
    const keys = [this.recordKey(record.id), this.activeKey(record.plan.tenant, record.plan.task)];
    const args = [
      String(record.rev),
      JSON.stringify(next),
      isTerminal(record.state) ? '1' : '0',
      record.id,
    ];
    if (fence) {
      keys.push(fence.leaseKey);
      args.push(String(fence.token));
    }
    const [status] = (await this.redis.eval(
      SAVE_ROLLOUT_SCRIPT,
      keys.length,
      ...keys,
      ...args,
    )) as [number, number];
    if (status === -1) throw new FencedWriteError(fence?.token ?? 0);
    if (status !== 1) throw new RevisionConflictError(record.id);
    return next;
  }

  private recordKey(id: string): string {
    return this.keys.record(id);
  }

  private indexKey(): string {
    return this.keys.index();
  }

  private activeKey(tenant: string, task: string): string {
    return this.keys.active(tenant, task);
  }
}
