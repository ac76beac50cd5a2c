import type { RedisClient } from '@mesh/config';
import type { RoutingKeys } from './routing.keys';

/**
 * Commits a new routing table atomically: checks the mode's precondition, bumps the epoch,
 * writes the table and an audit entry, trims the audit list and publishes the new epoch.
 * Everything happens in one script so routers starting together cannot both seed, and a
 * published epoch always names a committed table.
 *
 * KEYS: table, epoch, audit, and optionally a leader lease (same hash tag)
 * ARGV: mode ('absent' | 'force' | 'cas'), expected epoch (cas), table JSON,
 *       audit entry JSON without epoch (an object literal), audit cap, channel,
 *       fencing token (with the lease key)
 * Returns {1, newEpoch} when committed, {0, currentEpoch} when the precondition failed,
 * {-1, currentEpoch} when the lease is not held with that fencing token (a stale leader).
 */
export const COMMIT_TABLE_SCRIPT = `
local current = tonumber(redis.call('GET', KEYS[2]) or '0')
if KEYS[4] then
  local lease = redis.call('GET', KEYS[4])
  if not lease or string.match(lease, '^%d+') ~= ARGV[7] then return {-1, current} end
end
local mode = ARGV[1]
if mode == 'absent' then
  if redis.call('EXISTS', KEYS[1]) == 1 then return {0, current} end
elseif mode == 'cas' then
  if current ~= tonumber(ARGV[2]) then return {0, current} end
elseif mode ~= 'force' then
  return redis.error_reply('unknown commit mode ' .. mode)
end
local nextEpoch = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[3])
redis.call('LPUSH', KEYS[3], '{"epoch":' .. nextEpoch .. ',' .. string.sub(ARGV[4], 2))
redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[5]) - 1)
redis.call('PUBLISH', ARGV[6], tostring(nextEpoch))
return {1, nextEpoch}
`;

export type CommitMode = 'absent' | 'force' | 'cas';

/** One run of the commit script, in the order its KEYS and ARGV take them. */
export interface CommitCall {
  mode: CommitMode;
  /** The epoch a `cas` commit expects. */
  expectedEpoch: number;
  tableJson: string;
  /** The audit entry as a JSON object without its epoch. */
  auditJson: string;
  auditMax: number;
  fence?: { leaseKey: string; token: number };
}

/** Runs COMMIT_TABLE_SCRIPT: `[1 | 0 | -1, epoch]` as documented on the script. */
export async function runCommitScript(
  redis: RedisClient,
  keys: RoutingKeys,
  call: CommitCall,
): Promise<[status: number, epoch: number]> {
  const scriptKeys = [keys.table, keys.epoch, keys.audit];
  const args = [
    call.mode,
    String(call.expectedEpoch),
    call.tableJson,
    call.auditJson,
    String(call.auditMax),
    keys.channel,
  ];
  if (call.fence) {
    scriptKeys.push(call.fence.leaseKey);
    args.push(String(call.fence.token));
  }
  const reply = (await redis.eval(
    COMMIT_TABLE_SCRIPT,
    scriptKeys.length,
    ...scriptKeys,
    ...args,
  )) as [number, number];
  return [reply[0], Number(reply[1])];
}
