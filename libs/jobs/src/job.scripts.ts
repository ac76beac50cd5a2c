/**
 * Lua scripts of the job store. Each touches one job's keys only (one `{job:<id>}` slot).
 */

/**
 * Writes one chunk's results idempotently: a retried chunk replaces its own result and the
 * job's counters move by the difference, so an item is never counted twice.
 * KEYS: meta, chunkStats, results. ARGV: chunk, succeeded, failed, payload, ttlSeconds.
 * Returns 1 on the first write of this chunk, 0 on a replacement.
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
if prev then return 0 end
return 1
`;

/**
 * Moves a job to ARGV[1] when its current state is one of ARGV[4..]. ARGV[2] is the reason
 * ('' clears it), ARGV[3] a timestamp field to set ('field=value', or '' for none; an existing
 * startedAt is kept). KEYS: meta. Returns the state after the call ('' if the job is gone).
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
    return ARGV[1]
  end
end
return state
`;
