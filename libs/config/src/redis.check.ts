import { bulletList, MeshError } from '@mesh/errors';
import type Redis from 'ioredis';
import { primariesOf, type RedisClient } from './redis-factory';

/** What the boot check found on the primaries (docs/redis.md, "Required settings"). */
export interface RedisServerReport {
  /** Settings the mesh cannot run with, one line per primary and setting. */
  problems: string[];
  /** Primaries (`host:port`) that keep nothing across a restart: no AOF, no RDB save points. */
  unpersisted: string[];
}

/** Thrown at boot when a Redis primary's settings would lose the mesh's data. */
export class RedisSettingsError extends MeshError {
  readonly code = 'REDIS_SETTINGS_REFUSED';

  constructor(
    readonly service: string,
    readonly problems: readonly string[],
  ) {
    super(
      `${service}: refusing to start: Redis settings (docs/redis.md):\n` + bulletList(problems),
    );
  }
}

/** `INFO <section>` as a map of its `field:value` lines. */
export function parseInfo(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0 && !line.startsWith('#')) fields.set(line.slice(0, at), line.slice(at + 1).trim());
  }
  return fields;
}

function addressOf(node: Redis): string {
  const host = node.stream?.remoteAddress ?? node.options.host ?? '?';
  const port = node.stream?.remotePort ?? node.options.port ?? '?';
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * Whether a primary keeps its data across a restart. `INFO persistence` shows AOF; it does not
 * show RDB save points, so `CONFIG GET save` answers that where it is allowed; where a managed
 * Redis refuses CONFIG, a snapshot taken since start (`rdb_saves`, `rdb_last_bgsave_time_sec`)
 * counts as persistence.
 */
async function persists(node: Redis, info: Map<string, string>): Promise<boolean> {
  if (info.get('aof_enabled') === '1') return true;
  try {
    const reply = (await node.config('GET', 'save')) as string[];
    return (reply[1] ?? '').trim() !== '';
  } catch {
    return (
      Number(info.get('rdb_saves') ?? '0') > 0 || info.get('rdb_last_bgsave_time_sec') !== '-1'
    );
  }
}

/**
 * Checks every primary behind `client` with `INFO` (managed Redis often refuses CONFIG GET):
 * `maxmemory-policy` other than `noeviction` is a problem (Redis would evict BullMQ jobs, job
 * records and the routing table under memory pressure); no persistence is reported for a
 * warning (a restart loses queued jobs).
 */
export async function checkRedisServer(client: RedisClient): Promise<RedisServerReport> {
  const report: RedisServerReport = { problems: [], unpersisted: [] };
  const primaries = await primariesOf(client);
  if (primaries.length === 0) {
    report.problems.push('no primary answered (a Redis Cluster without master nodes)');
  }
  for (const node of primaries) {
    const memory = parseInfo(await node.info('memory'));
    const persistence = parseInfo(await node.info('persistence'));
    const at = addressOf(node);
    const policy = memory.get('maxmemory_policy');
    if (policy !== undefined && policy !== 'noeviction') {
      report.problems.push(
        `${at}: maxmemory-policy is ${policy}, must be noeviction ` +
          '(an evicting Redis drops BullMQ jobs, job records and routes under memory pressure)',
      );
    }
    if (!(await persists(node, persistence))) report.unpersisted.push(at);
  }
  return report;
}
