/**
 * Lua scripts of the job store. Each touches one job's keys only (one `{job:<id>}` slot); the
 * job's change channel shares that tag, so a script may SPUBLISH on it (also on a Cluster).
 */

/**
 * Writes one chunk's results idempotently: a retried chunk replaces its own result and the
 * job's counters move by the difference, so an item is never counted twice.
 * KEYS: meta, chunkStats, results, change channel. ARGV: chunk, succeeded, failed, payload,
 * ttlSeconds. Publishes a change notice (SPUBLISH) on the job's channel.
 * Returns {1, tenant} on the first write of this chunk, {0, tenant} on a replacement (the
 * tenant, '' if the job is gone, lets the caller give back the chunk's quota items once).
 */
export const WRITE_CHUNK_RESULTS = `
local prev = redis.call('HGET', KEYS[2], ARGV[1])
local pok, pfail = 0, 0
if prev then
  local comma = string.find(prev, ',')
  pok = tonumber(string.sub(prev, 1, comma - 1))
  pfail = tonumber(string.sub(prev, comma + 1))
end
local ok, fail = tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('SET', KEYS[3], ARGV[4], 'EX', ARGV[5])
redis.call('HSET', KEYS[2], ARGV[1], ok .. ',' .. fail)
redis.call('EXPIRE', KEYS[2], ARGV[5])
redis.call('HINCRBY', KEYS[1], 'succeeded', ok - pok)
redis.call('HINCRBY', KEYS[1], 'failedItems', fail - pfail)
redis.call('HINCRBY', KEYS[1], 'processed', ok + fail - pok - pfail)
local tenant = redis.call('HGET', KEYS[1], 'tenant') or ''
redis.call('SPUBLISH', KEYS[4], '1')
if prev then return {0, tenant} end
return {1, tenant}
`;

/**
 * Moves a job to ARGV[1] when its current state is one of ARGV[4..]. ARGV[2] is the reason
 * ('' clears it), ARGV[3] a timestamp field to set ('field=value', or '' for none; an existing
 * startedAt is kept). KEYS: meta, change channel (a notice is published there when the job
 * moved). Returns the state after the call ('' if the job is gone).
 */
export const TRANSITION = `
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return '' end
for i = 4, #ARGV do
  if state == ARGV[i] then
    redis.call('HSET', KEYS[1], 'state', ARGV[1])
    if ARGV[2] == '' then redis.call('HDEL', KEYS[1], 'reason')
    else redis.call('HSET', KEYS[1], 'reason', ARGV[2]) end
    if ARGV[3] ~= '' then
      local eq = string.find(ARGV[3], '=')
      local field = string.sub(ARGV[3], 1, eq - 1)
      if field ~= 'startedAt' or redis.call('HEXISTS', KEYS[1], field) == 0 then
        redis.call('HSET', KEYS[1], field, string.sub(ARGV[3], eq + 1))
      end
    end
    redis.call('SPUBLISH', KEYS[2], '1')
    return ARGV[1]
  end
end
return state
`;

/**
 * Reserves one of a tenant's concurrent-job slots for a job about to be uploaded: check and
 * reserve in one step, so two submits racing for the last slot cannot both get it.
 * KEYS: quota items hash (job id → reserved items), quota touched hash (job id → epoch ms).
 * ARGV: jobId, maxConcurrentJobs, now, ttlSeconds.
 * Returns {1, jobs reserved} when reserved (or already held), {0, jobs reserved} when full.
 */
export const RESERVE_JOB = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  return {1, redis.call('HLEN', KEYS[1])}
end
local jobs = redis.call('HLEN', KEYS[1])
if jobs >= tonumber(ARGV[2]) then return {0, jobs} end
redis.call('HSET', KEYS[1], ARGV[1], 0)
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return {1, jobs + 1}
`;

/**
 * Adds ARGV[2] items to a job's reservation unless the tenant's reserved items would pass
 * ARGV[3] (the tenant's maxQueuedItems). KEYS as RESERVE_JOB.
 * ARGV: jobId, items, maxQueuedItems, now, ttlSeconds.
 * Returns {1, reserved after} on success, {0, reserved before} over the quota, {-1, 0} when
 * the job holds no slot (released meanwhile).
 */
export const RESERVE_ITEMS = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return {-1, 0} end
local sum = 0
for _, v in ipairs(redis.call('HVALS', KEYS[1])) do sum = sum + tonumber(v) end
local n = tonumber(ARGV[2])
if sum + n > tonumber(ARGV[3]) then return {0, sum} end
redis.call('HINCRBY', KEYS[1], ARGV[1], n)
redis.call('HSET', KEYS[2], ARGV[1], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('EXPIRE', KEYS[2], ARGV[5])
return {1, sum + n}
`;

/**
 * Gives back ARGV[2] processed items of a job's reservation (never below 0; a job that holds
 * no reservation is left alone). KEYS: quota items hash. ARGV: jobId, items.
 */
export const RELEASE_ITEMS = `
local held = redis.call('HGET', KEYS[1], ARGV[1])
if not held then return 0 end
local left = tonumber(held) - tonumber(ARGV[2])
if left < 0 then left = 0 end
redis.call('HSET', KEYS[1], ARGV[1], left)
return left
`;
