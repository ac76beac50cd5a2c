/**
 * Creates a rollout unless its (tenant, task) already has an active one.
 * KEYS: active marker, record hash, id index   ARGV: id, record JSON, created-at score
 * Returns {1, id} when created, {0, activeId} when another rollout is active.
 */
export const CREATE_ROLLOUT_SCRIPT = `
local active = redis.call('GET', KEYS[1])
if active then return {0, active} end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], 'rev', 1, 'json', ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
return {1, ARGV[1]}
`;

/**
 * Saves a record if its revision is unchanged; frees the (tenant, task) marker when the state
 * is terminal. With a lease key, only while the lease holds the given fencing token.
 * KEYS: record hash, active marker, [lease]   ARGV: expected rev, JSON, terminal ('1'|'0'), id, [token]
 * Returns {1, newRev}, {0, currentRev} on a revision conflict, {-1, 0} when fenced off.
 */
export const SAVE_ROLLOUT_SCRIPT = `
if KEYS[3] then
  local lease = redis.call('GET', KEYS[3])
  if not lease or string.match(lease, '^%d+') ~= ARGV[5] then return {-1, 0} end
end
local rev = tonumber(redis.call('HGET', KEYS[1], 'rev') or '0')
if rev ~= tonumber(ARGV[1]) then return {0, rev} end
redis.call('HSET', KEYS[1], 'rev', rev + 1, 'json', ARGV[2])
if ARGV[3] == '1' and redis.call('GET', KEYS[2]) == ARGV[4] then redis.call('DEL', KEYS[2]) end
return {1, rev + 1}
`;
