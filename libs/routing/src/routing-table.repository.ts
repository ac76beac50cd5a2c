import type { RedisClient } from '@mesh/config';
import { handleWhenResult, retry } from 'cockatiel';
import { parseRoute, parseRoutingTableData, parseTenant } from './routing-table.schema';
import { runCommitScript, type CommitMode } from './routing-table-script';
import {
  EpochConflictError,
  FencedWriteError,
  RoutingEntryNotFoundError,
  RoutingTableMissingError,
  RoutingValidationError,
} from './routing.errors';
import { routingKeys, type RoutingKeys } from './routing.keys';
import {
  type AuditAction,
  type AuditEntry,
  type Route,
  type RoutingTable,
  type RoutingTableData,
  type Tenant,
} from './routing.types';

export interface RoutingTableRepositoryOptions {
  /** `REDIS_KEY_PREFIX`. */
  keyPrefix: string;
  /** Audit entries kept (newest first); default 10 000. */
  auditMaxEntries?: number;
  /** Optimistic retries of an edit that races another edit; default 5. */
  maxRetries?: number;
  now?: () => Date;
}

export interface ChangeOptions {
  /** Who made the change (admin identity, `coordinator`, `mesh-cli` ...), for the audit log. */
  who: string;
  /** Fail with EpochConflictError unless the table is still at this epoch. */
  expectedEpoch?: number;
  /**
   * Commit only while this lease (a key under the `{routes}` hash tag whose value starts with
   * the fencing token) still holds `token`; otherwise FencedWriteError. Checked inside the
   * commit script, so a leader that lost its lease cannot write even a moment later.
   */
  fence?: Fence;
}

export interface Fence {
  leaseKey: string;
  token: number;
}

export interface ChangeResult {
  epoch: number;
  table: RoutingTable;
}

export interface SeedResult {
  /** False when a table already existed (it is left untouched). */
  seeded: boolean;
  epoch: number;
}

/** One compare-and-set try of an edit: the epoch it read, the one the store holds after. */
interface EditAttempt {
  committed: boolean;
  readEpoch: number;
  epoch: number;
  next: RoutingTableData;
}

interface Edit {
  action: AuditAction;
  target: string;
  next: RoutingTableData;
  before: Route | Tenant | null;
  after: Route | Tenant | null;
}

/** The routing table in Redis: epoch-versioned, audited, announced on pub/sub. */
export class RoutingTableRepository {
  readonly keys: RoutingKeys;
  private readonly auditMax: number;
  private readonly maxRetries: number;
  private readonly now: () => Date;

  constructor(
    private readonly redis: RedisClient,
    options: RoutingTableRepositoryOptions,
  ) {
    this.keys = routingKeys(options.keyPrefix);
    this.auditMax = options.auditMaxEntries ?? 10_000;
    this.maxRetries = options.maxRetries ?? 5;
    this.now = options.now ?? (() => new Date());
  }

  /** The stored table, or null when never seeded. Table and epoch are read in one MGET. */
  async load(): Promise<RoutingTable | null> {
    const [json, epoch] = await this.redis.mget(this.keys.table, this.keys.epoch);
    if (json === null || json === undefined) return null;
    const source = `redis ${this.keys.table}`;
    const data = parseRoutingTableData(parseJson(json, source), source);
    return { epoch: Number(epoch ?? 0), ...data };
  }

  async currentEpoch(): Promise<number> {
    return Number((await this.redis.get(this.keys.epoch)) ?? 0);
  }

  /** Writes `data` only if no table exists; safe when several routers start at once. */
  async seedIfAbsent(data: RoutingTableData, who: string): Promise<SeedResult> {
    const valid = parseRoutingTableData(data, 'seed');
    const [committed, epoch] = await this.commit('absent', 0, valid, {
      who,
      action: 'seed',
      before: null,
      after: valid,
    });
    return { seeded: committed, epoch };
  }

  /**
   * Replaces the whole table (e.g. `mesh reseed`), keeping the epoch increasing. Also the way
   * out of a corrupted stored table, which is then audited as `before: null`.
   */
  async reseed(data: RoutingTableData, who: string): Promise<ChangeResult> {
    const valid = parseRoutingTableData(data, 'reseed');
    const before = await this.load().catch((err: unknown) => {
      if (err instanceof RoutingValidationError) return null;
      throw err;
    });
    const [, epoch] = await this.commit('force', 0, valid, {
      who,
      action: 'reseed',
      before: before && { tenants: before.tenants, routes: before.routes },
      after: valid,
    });
    return { epoch, table: { epoch, ...valid } };
  }

  async upsertRoute(input: Route, options: ChangeOptions): Promise<ChangeResult> {
    const route = parseRoute(input);
    return this.edit(options, (table) => {
      const index = table.routes.findIndex(
        (r) => r.tenant === route.tenant && r.task === route.task,
      );
      const routes = [...table.routes];
      if (index >= 0) routes[index] = route;
      else routes.push(route);
      return {
        action: 'route.upsert',
        target: routeId(route.tenant, route.task),
        next: { tenants: table.tenants, routes },
        before: index >= 0 ? (table.routes[index] ?? null) : null,
        after: route,
      };
    });
  }

  async deleteRoute(tenant: string, task: string, options: ChangeOptions): Promise<ChangeResult> {
    return this.edit(options, (table) => {
      const before = table.routes.find((r) => r.tenant === tenant && r.task === task);
      if (!before) throw new RoutingEntryNotFoundError('route', routeId(tenant, task));
      return {
        action: 'route.delete',
        target: routeId(tenant, task),
        next: { tenants: table.tenants, routes: table.routes.filter((r) => r !== before) },
        before,
        after: null,
      };
    });
  }

  async upsertTenant(input: Tenant, options: ChangeOptions): Promise<ChangeResult> {
    const tenant = parseTenant(input);
    return this.edit(options, (table) => {
      const index = table.tenants.findIndex((t) => t.name === tenant.name);
      const tenants = [...table.tenants];
      if (index >= 0) tenants[index] = tenant;
      else tenants.push(tenant);
      return {
        action: 'tenant.upsert',
        target: tenant.name,
        next: { tenants, routes: table.routes },
        before: index >= 0 ? (table.tenants[index] ?? null) : null,
        after: tenant,
      };
    });
  }

  /** Refused (validation error naming the routes) while tenant-specific routes still exist. */
  async deleteTenant(name: string, options: ChangeOptions): Promise<ChangeResult> {
    return this.edit(options, (table) => {
      const before = table.tenants.find((t) => t.name === name);
      if (!before) throw new RoutingEntryNotFoundError('tenant', name);
      return {
        action: 'tenant.delete',
        target: name,
        next: { tenants: table.tenants.filter((t) => t !== before), routes: table.routes },
        before,
        after: null,
      };
    });
  }

  /** Newest first. */
  async auditLog(limit = 100): Promise<AuditEntry[]> {
    const raw = await this.redis.lrange(this.keys.audit, 0, Math.max(0, limit - 1));
    return raw.map((entry) => JSON.parse(entry) as AuditEntry);
  }

  /**
   * Read-modify-write with compare-and-set on the epoch. A write that lost the race to another
   * edit is tried again on a fresh read (at once: the other edit has already landed), up to
   * `maxRetries` times, unless the caller expected an epoch (then the race is its conflict).
   */
  private async edit(
    options: ChangeOptions,
    change: (table: RoutingTable) => Edit,
  ): Promise<ChangeResult> {
    const raced = retry(
      handleWhenResult((r) => !(r as EditAttempt).committed),
      {
        maxAttempts: options.expectedEpoch === undefined ? this.maxRetries : 0,
      },
    );
    const last = await raced.execute(async (): Promise<EditAttempt> => {
      const table = await this.load();
      if (!table) throw new RoutingTableMissingError();
      if (options.expectedEpoch !== undefined && options.expectedEpoch !== table.epoch) {
        throw new EpochConflictError(options.expectedEpoch, table.epoch);
      }
      const edit = change(table);
      const next = validateEdited(edit);
      const [committed, epoch] = await this.commit(
        'cas',
        table.epoch,
        next,
        {
          who: options.who,
          action: edit.action,
          target: edit.target,
          before: edit.before,
          after: edit.after,
        },
        options.fence,
      );
      return { committed, readEpoch: table.epoch, epoch, next };
    });
    if (!last.committed) throw new EpochConflictError(last.readEpoch, last.epoch);
    return { epoch: last.epoch, table: { epoch: last.epoch, ...last.next } };
  }

  private async commit(
    mode: CommitMode,
    expectedEpoch: number,
    data: RoutingTableData,
    audit: Omit<AuditEntry, 'epoch' | 'when'>,
    fence?: Fence,
  ): Promise<[committed: boolean, epoch: number]> {
    if (!audit.who.trim())
      throw new RoutingValidationError('change', [{ path: 'who', message: 'is required' }]);
    // `epoch` is spliced in by the script, which alone knows the new value.
    const entry = JSON.stringify({ when: this.now().toISOString(), ...audit });
    const [status, epoch] = await runCommitScript(this.redis, this.keys, {
      mode,
      expectedEpoch,
      tableJson: JSON.stringify(data),
      auditJson: entry,
      auditMax: this.auditMax,
      fence,
    });
    if (status === -1) throw new FencedWriteError(fence?.token ?? 0);
    return [status === 1, epoch];
  }
}

function routeId(tenant: string, task: string): string {
  return `${tenant}/${task}`;
}

/** Re-checks the whole table after an edit so cross-entry rules hold (unique routes, known tenants). */
function validateEdited(edit: Edit): RoutingTableData {
  return parseRoutingTableData(edit.next, `routing table after ${edit.action} ${edit.target}`);
}

function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err: unknown) {
    const message = err instanceof Error ? err.message : String(err);
    throw new RoutingValidationError(source, [{ path: '', message: `not JSON: ${message}` }]);
  }
}
