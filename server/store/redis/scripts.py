"""The Lua scripts of the Redis store: every step that must not interleave with another.

Redis runs a script atomically. Each script touches the keys of one hash tag only, so on a
Cluster it runs on one shard. ``RedisCore._call`` (in :mod:`.core`) runs a :class:`Script`
by its SHA1 and sends its text only to a server that does not know it yet.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Script:
    """A Lua script and its SHA1."""

    text: str
    sha: str

    @classmethod
    def of(cls, text: str) -> Script:
        return cls(text, hashlib.sha1(text.encode()).hexdigest())


# Arguments per RPUSH inside a script: Lua's unpack() has a bounded stack.
PUSH_CHUNK = 1000

_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('RPUSH', KEYS[1], ARGV[1])
return 1
"""

# ARGV: expected length, push chunk, channel, announcement ('' for none), expected chain
# head ('-' for no check), events... Returns the new length, -1 when the room is missing, -2
# when the version moved on or the last event's hash is not the expected head (the store
# lost writes and took another history); the announcement is published only when the
# events were appended (with SPUBLISH in APPEND_SHARDED, the Cluster's version).
_APPEND = """
local n = redis.call('LLEN', KEYS[1])
if n == 0 then return -1 end
if n ~= tonumber(ARGV[1]) then return -2 end
if ARGV[5] ~= '-' then
  local last = cjson.decode(redis.call('LINDEX', KEYS[1], -1))
  local h = last['h']
  if type(h) ~= 'string' then h = '' end
  if h ~= ARGV[5] then return -2 end
end
local chunk = tonumber(ARGV[2])
for i = 6, #ARGV, chunk do
  n = redis.call('RPUSH', KEYS[1], unpack(ARGV, i, math.min(i + chunk - 1, #ARGV)))
end
if ARGV[4] ~= '' then redis.call('PUBLISH', ARGV[3], ARGV[4]) end
return n
"""

# Returns nil when the room is missing, else the events from index ARGV[1].
_READ = """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
return redis.call('LRANGE', KEYS[1], ARGV[1], -1)
"""

_NOW_MS = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
"""

# KEYS: members hash, until hash. ARGV: process, ttl ms, JSON list of members.
_PRESENCE_PUT = (
    _NOW_MS
    + """
local ttl = tonumber(ARGV[2])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[1], string.format('%.0f', now + ttl))
for _, key in ipairs(KEYS) do
  if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
end
return 1
"""
)

# KEYS: members hash, until hash. Returns the JSON lists of live processes, drops the dead.
_PRESENCE_GET = (
    _NOW_MS
    + """
local untils = redis.call('HGETALL', KEYS[2])
local out = {}
for i = 1, #untils, 2 do
  local process = untils[i]
  if tonumber(untils[i + 1]) > now then
    local members = redis.call('HGET', KEYS[1], process)
    if members then out[#out + 1] = members end
  else
    redis.call('HDEL', KEYS[1], process)
    redis.call('HDEL', KEYS[2], process)
  end
end
return out
"""
)

# KEYS: order zset, tickets hash, counter. ARGV: ticket id, JSON ticket.
_QUEUE_JOIN = """
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 0 end
redis.call('ZADD', KEYS[1], redis.call('INCR', KEYS[3]), ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
"""

_QUEUE_LEAVE = """
redis.call('HDEL', KEYS[2], ARGV[1])
return redis.call('ZREM', KEYS[1], ARGV[1])
"""

# KEYS: order zset, tickets hash. ARGV: least, most (most >= 1).
_QUEUE_TAKE = """
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then return {} end
local ids = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1)
if #ids == 0 then return {} end
local tickets = redis.call('HMGET', KEYS[2], unpack(ids))
redis.call('ZREM', KEYS[1], unpack(ids))
redis.call('HDEL', KEYS[2], unpack(ids))
return tickets
"""

# KEYS: lease. ARGV: owner, ttl ms.
_LEAD = """
local holder = redis.call('GET', KEYS[1])
if holder == false then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
"""

_RESIGN = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


# KEYS: names (player -> name), tags (player -> "TAG:KEY"), tagged ("TAG:KEY" -> player).
# ARGV: player, name, its name key, mode ("set": rename; "keep": a kept name wins), then
# candidate tags in order. A tag is held per name key; the player's own goes along to the
# new name unless another player of that name holds it. Returns {1, tag, name} when done,
# {2, kept name} when "keep" finds a kept name without a tag (call again with that name
# and its key: Lua cannot normalise it), {0} when no candidate is free (nothing changed).
_NAME = """
local player, name, key, mode = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local stored = redis.call('HGET', KEYS[1], player)
local had = redis.call('HGET', KEYS[2], player)
local oldtag, oldkey = false, false
if had then
  local cut = string.find(had, ':', 1, true)
  oldtag, oldkey = string.sub(had, 1, cut - 1), string.sub(had, cut + 1)
end
if mode == 'keep' and stored then
  if had then return {1, oldtag, stored} end
  if stored ~= name then return {2, stored} end
end
local tag = false
if had and (oldkey == key or redis.call('HEXISTS', KEYS[3], oldtag .. ':' .. key) == 0) then
  tag = oldtag
end
if not tag then
  for i = 5, #ARGV do
    if redis.call('HEXISTS', KEYS[3], ARGV[i] .. ':' .. key) == 0 then
      tag = ARGV[i]
      break
    end
  end
  if not tag then return {0} end
end
local entry = tag .. ':' .. key
if had ~= entry then
  if had and redis.call('HGET', KEYS[3], had) == player then redis.call('HDEL', KEYS[3], had) end
  redis.call('HSET', KEYS[2], player, entry)
  redis.call('HSET', KEYS[3], entry, player)
end
if mode == 'set' or not stored then redis.call('HSET', KEYS[1], player, name) end
return {1, tag, name}
"""

# KEYS: recovery (code hash -> player), recovery-of (player -> code hash), generation
# (player -> generation, 0 when absent). ARGV: player, new code hash, expected generation.
# Returns the new generation, or -1 (nothing changed) when the player is not at that one.
_SET_RECOVERY = """
local generation = tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '0')
if generation ~= tonumber(ARGV[3]) then return -1 end
local old = redis.call('HGET', KEYS[2], ARGV[1])
if old then redis.call('HDEL', KEYS[1], old) end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], generation + 1)
return generation + 1
"""

# KEYS: ratings hash (player -> JSON {mu, sigma, matches}), rating board zset.
# ARGV: n, then n times (player, expected matches, JSON rating), then m, then m times
# (player, board score). Returns 0 and changes nothing when a player's stored matches are
# not the expected ones (another match was rated meanwhile), else 1.
_UPDATE_RATINGS = """
local n = tonumber(ARGV[1])
for i = 0, n - 1 do
  local raw = redis.call('HGET', KEYS[1], ARGV[2 + i * 3])
  local have = 0
  if raw then have = tonumber(cjson.decode(raw)['matches']) end
  if have ~= tonumber(ARGV[3 + i * 3]) then return 0 end
end
for i = 0, n - 1 do
  redis.call('HSET', KEYS[1], ARGV[2 + i * 3], ARGV[4 + i * 3])
end
local at = 2 + n * 3
local m = tonumber(ARGV[at])
for j = 0, m - 1 do
  redis.call('ZADD', KEYS[2], ARGV[at + 2 + j * 2], ARGV[at + 1 + j * 2])
end
return 1
"""

CREATE = Script.of(_CREATE)
APPEND = Script.of(_APPEND)
#: APPEND for a Cluster: sharded pub/sub, allowed in a script since the channel (ARGV[3],
#: ``kc:{room:CODE}``) hashes to the slot of its key (``kc:{room:CODE}:events``).
APPEND_SHARDED = Script.of(_APPEND.replace("'PUBLISH'", "'SPUBLISH'"))
READ = Script.of(_READ)
PRESENCE_PUT = Script.of(_PRESENCE_PUT)
PRESENCE_GET = Script.of(_PRESENCE_GET)
QUEUE_JOIN = Script.of(_QUEUE_JOIN)
QUEUE_LEAVE = Script.of(_QUEUE_LEAVE)
QUEUE_TAKE = Script.of(_QUEUE_TAKE)
LEAD = Script.of(_LEAD)
RESIGN = Script.of(_RESIGN)
NAME = Script.of(_NAME)
SET_RECOVERY = Script.of(_SET_RECOVERY)
UPDATE_RATINGS = Script.of(_UPDATE_RATINGS)
