"""The shared store: rooms, announcements, presence, matchmaking and leases in Redis.

Several server processes point at one Redis and cooperate through it. Every step that must
not interleave with another process's (appending to a room, creating it, taking a batch of
quick-play tickets, taking a lease) is one Lua script, so Redis runs it atomically.

"One Redis" may be a single server, a Redis Cluster or a primary watched by Sentinels; the
URL says which (see :func:`parse_redis_url`)::

    redis://[user:password@]host:6379/0                       one server (rediss:// for TLS)
    redis+cluster://[user:password@]host1:7000,host2:7001       Cluster, by any seed nodes
    redis+sentinel://[user:password@]s1:26379,s2:26379/NAME/0   the primary Sentinels call NAME

Key layout (``kc`` is the default prefix)::

    kc:{room:CODE}:events            list of JSON events; the room's version is its length
    kc:{room:CODE}:lead              lease: the owner driving bots and timers, with a TTL
    kc:{room:CODE}:presence          hash process -> JSON list of members in the room
    kc:{room:CODE}:presence-until    hash process -> expiry (Redis clock, ms)
    kc:{lobby}:listing               hash code -> JSON summary of a public room
    kc:{queue:N}:order               sorted set ticket id -> arrival number
    kc:{queue:N}:tickets             hash ticket id -> JSON ticket
    kc:{queue:N}:seq                 arrival counter
    kc:{secrets}:NAME                shared secret (e.g. the daily deal's seed key)
    kc:{match:ID}                    JSON record of a finished match
    kc:{player:ID}:matches           list of the player's match ids, newest first
    kc:{daily:DAY}:claims            set of players who started the day's ranked daily
    kc:{daily:DAY}:board, :entries   sorted set (penalty, then hands) and JSON entries
    kc:{alltime}:won/played/penalty/hands   sorted sets of each player's sums
    kc:{alltime}:names               hash player -> display name
    channel kc:{NAME}                pub/sub channel for the store channel NAME (room:CODE,
                                     proc:ID, admin), on the shard of the room's keys

The part in braces is a Redis Cluster hash tag. Every script, every multi-key command and
every MULTI/EXEC block touches keys of one tag only, so each runs on one shard of a
Cluster. Steps over several tags (a heartbeat over several rooms, deleting a room and
unlisting it, saving a match and listing it per player) are pipelines without MULTI, which
the Cluster client splits per shard, or separate commands: none of them needs atomicity.

Announcements use classic pub/sub on one dedicated connection read by a background task
(on a Cluster, PUBLISH reaches the subscribers of every node, so that connection may go to
any node; each attempt takes the next node). When the connection is lost the task
reconnects with exponential backoff and subscribes every recorded channel again by itself;
messages published while it was away are lost, as with any pub/sub, so a subscriber that
cares catches up with :meth:`RedisStore.read`. Whenever Redis cannot be reached (including
a Cluster shard that is down and a primary under fail-over) the store raises
:class:`~protocol.errors.StoreUnavailable`, never a redis-py exception.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import random
import secrets
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import parse_qsl, unquote

import orjson
import redis.asyncio as aioredis
import redis.exceptions as rexc
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.connection import AbstractConnection, BlockingConnectionPool, ConnectionPool
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool
from redis.backoff import NoBackoff

from protocol.errors import Conflict, RoomNotFound, StoreUnavailable

from .base import HISTORY_LIMIT, Event, Handler, Message, board_row, members_by_room

log = logging.getLogger(__name__)

#: Errors that mean "Redis cannot be reached right now" (BusyLoadingError, raised while a
#: restarted Redis loads its data, is a ConnectionError; ReadOnlyError comes from a replica
#: that is not yet promoted; MasterNotFoundError, a ConnectionError, from Sentinels that know
#: no healthy primary; CLUSTERDOWN and TRYAGAIN from a Cluster in the middle of a change).
_UNREACHABLE: tuple[type[BaseException], ...] = (
    rexc.ConnectionError,
    rexc.TimeoutError,
    rexc.ReadOnlyError,
    rexc.ClusterDownError,
    rexc.TryAgainError,
    OSError,
)

# --- where Redis is ------------------------------------------------------------------------

RedisKind = Literal["single", "cluster", "sentinel"]

_CLUSTER_PORT = 6379
_SENTINEL_PORT = 26379
_SENTINEL_OPTIONS = ("sentinel_username", "sentinel_password")


@dataclass(frozen=True, slots=True)
class RedisTarget:
    """Where the Redis store connects: the result of :func:`parse_redis_url`.

    ``kind`` is ``"single"`` (``url`` is then handed to redis-py as it is), ``"cluster"``
    (``nodes`` are seed nodes; any one that answers tells the client the whole Cluster) or
    ``"sentinel"`` (``nodes`` are Sentinels, ``service`` the name they monitor the primary
    under, ``db`` its database). ``username``/``password`` log in to the Redis servers,
    ``sentinel_username``/``sentinel_password`` to the Sentinels; ``tls`` applies to both.
    """

    kind: RedisKind
    url: str = ""
    nodes: tuple[tuple[str, int], ...] = ()
    service: str = ""
    db: int = 0
    username: str | None = None
    password: str | None = None
    tls: bool = False
    sentinel_username: str | None = None
    sentinel_password: str | None = None


def parse_redis_url(url: str) -> RedisTarget:
    """Parse the store's Redis URL; raise ``ValueError`` (naming the problem) if it is bad.

    Accepted forms (``[...]`` is optional; ``rediss`` instead of ``redis`` means TLS)::

        redis://[user:password@]host[:port][/db][?option=value...]   (also unix://path)
        redis+cluster://[user:password@]host[:port][,host[:port]...][/]
        redis+sentinel://[user:password@]host[:port][,host[:port]...]/service[/db]
            [?sentinel_username=...&sentinel_password=...]

    A single server's URL is redis-py's own and is passed on untouched. Cluster seed nodes
    default to port 6379, Sentinels to 26379; an IPv6 address is written in brackets
    (``[::1]:7000``). User name and password are percent-decoded; in the Sentinel form they
    are the Redis servers' credentials, the Sentinels' own go in the query.
    """
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError("not a Redis URL (no scheme://); e.g. redis://127.0.0.1:6379/0")
    scheme = scheme.lower()
    if scheme in ("redis", "rediss", "unix"):
        return RedisTarget("single", url=url)
    base, _, mode = scheme.partition("+")
    if base not in ("redis", "rediss") or mode not in ("cluster", "sentinel"):
        raise ValueError(
            f"unsupported Redis URL scheme {scheme!r}: use redis://, rediss://, unix://, "
            "redis+cluster://, rediss+cluster://, redis+sentinel:// or rediss+sentinel://"
        )
    if "#" in rest:
        raise ValueError("a Redis URL has no #fragment")
    rest, _, query = rest.partition("?")
    netloc, _, path = rest.partition("/")
    userinfo, at, hosts = netloc.rpartition("@")
    username = password = None
    if at:
        user, colon, secret = userinfo.partition(":")
        username = unquote(user) or None
        password = unquote(secret) if colon else None
    options = dict(parse_qsl(query, keep_blank_values=True))
    tls = base == "rediss"
    if mode == "cluster":
        if path not in ("", "0"):
            raise ValueError("a Redis Cluster has only database 0: drop the path of the URL")
        if options:
            raise ValueError(f"unknown option(s) for redis+cluster: {', '.join(sorted(options))}")
        nodes = _nodes(hosts, _CLUSTER_PORT)
        return RedisTarget("cluster", nodes=nodes, username=username, password=password, tls=tls)
    unknown = sorted(set(options) - set(_SENTINEL_OPTIONS))
    if unknown:
        raise ValueError(f"unknown option(s) for redis+sentinel: {', '.join(unknown)}")
    parts = path.split("/") if path else []
    if parts and parts[-1] == "":
        parts.pop()
    if not parts or not parts[0] or len(parts) > 2:
        raise ValueError(
            "a redis+sentinel URL names the monitored primary: "
            "redis+sentinel://host:26379[,host:26379...]/service[/db]"
        )
    service = unquote(parts[0])
    db = _number(parts[1], "database") if len(parts) == 2 else 0
    return RedisTarget(
        "sentinel",
        nodes=_nodes(hosts, _SENTINEL_PORT),
        service=service,
        db=db,
        username=username,
        password=password,
        tls=tls,
        sentinel_username=unquote(options["sentinel_username"]) or None
        if "sentinel_username" in options
        else None,
        sentinel_password=options.get("sentinel_password"),
    )


def _nodes(hosts: str, default_port: int) -> tuple[tuple[str, int], ...]:
    nodes = tuple(_host_port(item.strip(), default_port) for item in hosts.split(","))
    if len(set(nodes)) != len(nodes):
        raise ValueError("a node is listed twice in the Redis URL")
    return nodes


def _host_port(item: str, default_port: int) -> tuple[str, int]:
    if item.startswith("["):
        host, bracket, tail = item[1:].partition("]")
        if not bracket or (tail and not tail.startswith(":")):
            raise ValueError(f"bad IPv6 node in Redis URL: {item!r}")
        port_text = tail[1:]
    elif item.count(":") > 1:
        raise ValueError(f"write an IPv6 address in brackets, e.g. [::1]:7000: {item!r}")
    else:
        host, _, port_text = item.partition(":")
    if not host:
        raise ValueError("a node without a host in the Redis URL")
    port = _number(port_text, "port") if port_text else default_port
    if not 0 < port < 65536:
        raise ValueError(f"port out of range in Redis URL: {port}")
    return host, port


def _number(text: str, what: str) -> int:
    if not text.isdigit():
        raise ValueError(f"bad {what} in Redis URL: {text!r}")
    return int(text)


# Arguments per RPUSH inside a script: Lua's unpack() has a bounded stack.
_PUSH_CHUNK = 1000

_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('RPUSH', KEYS[1], ARGV[1])
return 1
"""

# ARGV: expected length, push chunk, channel, announcement ('' for none), expected chain
# head ('-' for no check), events... Returns the new length, -1 when the room is missing, -2
# when the version moved on or the last event's hash is not the expected head (the store
# lost writes and took another history); the announcement is published only when the
# events were appended.
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


@dataclass(frozen=True, slots=True)
class _Script:
    """A Lua script and its SHA1, run by :meth:`RedisStore._call`."""

    text: str
    sha: str

    @classmethod
    def of(cls, text: str) -> _Script:
        return cls(text, hashlib.sha1(text.encode()).hexdigest())


class _Cluster(RedisCluster):
    """redis-py's Cluster client, made to learn the slot layout before routing a command.

    A cold client (or one that dropped its layout after CLUSTERDOWN or repeated MOVED
    replies) routes commands issued concurrently before its first CLUSTER SLOTS reply to a
    random node; their MOVED replies then make it drop every connection, failing the
    other commands in flight. Loading the layout first (once, under the client's lock)
    avoids that.
    """

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        if self.get_default_node() is None:
            await self.initialize()
        return await super().execute_command(*args, **kwargs)


@contextlib.contextmanager
def _reachable() -> Iterator[None]:
    """Turn every "cannot reach Redis" failure into :class:`StoreUnavailable`."""
    try:
        yield
    except _UNREACHABLE as exc:
        raise StoreUnavailable() from exc
    except rexc.RedisClusterException as exc:
        # The Cluster client's own complaints: "no node answers" and "no node serves this
        # slot" are outages; the rest (a blocked or cross-slot command) are bugs.
        if isinstance(exc, rexc.SlotNotCoveredError) or isinstance(exc.__cause__, _UNREACHABLE):
            raise StoreUnavailable() from exc
        raise


def _glob_escape(text: str) -> str:
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)


def _ms(seconds: float) -> int:
    return max(1, round(seconds * 1000))


class RedisStore:
    """A :class:`~server.store.base.Store` shared by every process pointing at one Redis.

    ``url`` says where Redis is: one server (redis-py's ``redis://host:6379/0``,
    ``rediss://`` for TLS, with an optional ``user:password@``), a Redis Cluster
    (``redis+cluster://host1:7000,host2:7001``) or a primary found through Sentinels
    (``redis+sentinel://s1:26379,s2:26379,s3:26379/mymaster``); see
    :func:`parse_redis_url`, which raises ``ValueError`` for a bad one. ``prefix`` starts
    every key and channel name, so several deployments (or test runs) can share one Redis.
    ``timeout`` bounds connecting, each command and the wait for one of the ``pool_size``
    connections (on a single server); ``health_interval`` is how often the
    idle announcement connection is pinged (two silent intervals count as a lost
    connection); reconnection waits start small and double up to ``backoff_max`` seconds.

    On a Cluster, a command for a shard whose primary is down raises ``StoreUnavailable``
    until a replica is promoted; the client then learns the new layout by itself. Through
    Sentinels, every new connection asks them for the current primary, so after a fail-over
    the store finds the promoted replica by itself.

    Constructing the store does no I/O; the first command connects.
    """

    def __init__(
        self,
        url: str,
        prefix: str = "kc",
        *,
        timeout: float = 2.0,
        health_interval: float = 5.0,
        backoff_max: float = 2.0,
        pool_size: int = 200,
    ) -> None:
        self.prefix = prefix
        self.target = parse_redis_url(url)
        self._timeout = timeout
        self._health_interval = health_interval
        self._backoff_max = backoff_max
        # No retries inside redis-py: a lost reply must not run a script twice (a retried
        # queue_take could hand out a batch nobody receives). The pool already replaces
        # connections that went stale while idle, e.g. across a Redis restart.
        connection: dict[str, Any] = {
            "protocol": 2,
            "socket_timeout": timeout,
            "socket_connect_timeout": timeout,
            "retry": Retry(NoBackoff(), 0),
        }
        target = self.target
        credentials: dict[str, Any] = {"username": target.username, "password": target.password}
        self._sentinel: Sentinel | None = None
        self._pool: ConnectionPool | None = None
        self._redis: aioredis.Redis | RedisCluster
        if target.kind == "cluster":
            # require_full_coverage=False: while one shard is down, rooms on the others go
            # on (if the servers allow it: cluster-require-full-coverage no).
            self._redis = _Cluster(
                startup_nodes=[ClusterNode(host, port) for host, port in target.nodes],
                require_full_coverage=False,
                ssl=target.tls,
                **credentials,
                **connection,
            )
        elif target.kind == "sentinel":
            self._sentinel = Sentinel(  # type: ignore[no-untyped-call]
                target.nodes,
                sentinel_kwargs={
                    **connection,
                    "username": target.sentinel_username,
                    "password": target.sentinel_password,
                    "ssl": target.tls,
                },
            )
            self._pool = SentinelConnectionPool(  # type: ignore[no-untyped-call]
                target.service,
                self._sentinel,
                db=target.db,
                ssl=target.tls,
                **credentials,
                **connection,
            )
        else:
            # At most pool_size commands in flight; more wait (up to the timeout) for a
            # connection instead of failing at once as redis-py's default pool does.
            self._pool = BlockingConnectionPool.from_url(
                target.url, max_connections=pool_size, timeout=timeout, **connection
            )
        if self._pool is not None:
            self._redis = aioredis.Redis(connection_pool=self._pool)
        # Round-robin over Cluster nodes for the announcement connection, from a random one.
        self._link_turn = random.randrange(1 << 16)
        self._create = _Script.of(_CREATE)
        self._append = _Script.of(_APPEND)
        self._read = _Script.of(_READ)
        self._presence_put = _Script.of(_PRESENCE_PUT)
        self._presence_get = _Script.of(_PRESENCE_GET)
        self._queue_join = _Script.of(_QUEUE_JOIN)
        self._queue_leave = _Script.of(_QUEUE_LEAVE)
        self._queue_take = _Script.of(_QUEUE_TAKE)
        self._lead = _Script.of(_LEAD)
        self._resign = _Script.of(_RESIGN)
        # process -> rooms its last heartbeat reported, to withdraw it from rooms it left.
        self._reported: dict[str, set[str]] = {}

        # Announcements: the channels we want, the live connection (None while down), and per
        # connection the SUBSCRIBE commands sent and confirmed per channel, so subscribe()
        # returns only once Redis confirmed its own command.
        self._handler: Handler | None = None
        self._channels: set[str] = set()
        self._link: AbstractConnection | None = None
        self._write_lock = asyncio.Lock()
        self._sent: dict[str, int] = {}
        self._confirmed: dict[str, int] = {}
        self._waiters: dict[str, list[tuple[int, asyncio.Future[None]]]] = {}
        self._reader: asyncio.Task[None] | None = None
        self._first_attempt = asyncio.Event()
        self._deliveries: set[asyncio.Future[None]] = set()
        self._closed = False

    @classmethod
    async def connect(cls, url: str, prefix: str = "kc", **options: Any) -> RedisStore:
        """Build a store, check Redis answers (else ``StoreUnavailable``) and start listening."""
        store = cls(url, prefix, **options)
        if not await store.ping():
            await store.close()
            raise StoreUnavailable()
        store._start_reader()
        return store

    async def _call(self, script: _Script, keys: list[str], args: Sequence[Any] = ()) -> Any:
        """Run ``script`` by its SHA1; a server that does not know it yet gets its text.

        EVAL both runs the script and caches it on the server that owns the keys (a
        restarted server, a promoted replica, any shard of a Cluster): no SCRIPT LOAD,
        which on a Cluster would need every primary to answer.
        """
        try:
            return await self._redis.evalsha(script.sha, len(keys), *keys, *args)
        except rexc.NoScriptError:
            return await self._redis.eval(script.text, len(keys), *keys, *args)

    # --- key names ---------------------------------------------------------------

    def _room(self, code: str, part: str) -> str:
        return f"{self.prefix}:{{room:{code}}}:{part}"

    def _queue(self, seats: int, part: str) -> str:
        return f"{self.prefix}:{{queue:{seats}}}:{part}"

    @property
    def _listing(self) -> str:
        return f"{self.prefix}:{{lobby}}:listing"

    def _channel(self, name: str) -> str:
        # The whole name is the hash tag: on a Cluster, PUBLISH goes to the shard of the
        # channel's slot, so a room's announcements (room:CODE) share its keys' shard and
        # fail or work together with them.
        return f"{self.prefix}:{{{name}}}"

    # --- rooms as event logs -----------------------------------------------------

    async def create_room(self, code: str, first: Event) -> bool:
        with _reachable():
            created = await self._call(
                self._create, keys=[self._room(code, "events")], args=[_dump(first)]
            )
        return bool(created)

    async def append(
        self,
        code: str,
        expected: int,
        events: Sequence[Event],
        announce: Message | None = None,
        head: str | None = None,
    ) -> int:
        args: list[Any] = [
            expected,
            _PUSH_CHUNK,
            self._channel(f"room:{code}"),
            b"" if announce is None else _dump(announce),
            "-" if head is None else head,
            *(_dump(e) for e in events),
        ]
        with _reachable():
            result = int(
                await self._call(self._append, keys=[self._room(code, "events")], args=args)
            )
        if result == -1:
            raise RoomNotFound()
        if result == -2:
            raise Conflict()
        return result

    async def read(self, code: str, after: int = 0) -> list[Event]:
        with _reachable():
            raw = await self._call(self._read, keys=[self._room(code, "events")], args=[after])
        if raw is None:
            raise RoomNotFound()
        return [orjson.loads(item) for item in raw]

    async def delete_room(self, code: str) -> None:
        with _reachable():
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.delete(self._room(code, "events"), self._room(code, "lead"))
                pipe.hdel(self._listing, code)
                await pipe.execute()

    async def room_codes(self) -> list[str]:
        head, tail = f"{self.prefix}:{{room:", "}:events"
        pattern = _glob_escape(head) + "*" + _glob_escape(tail)
        codes: list[str] = []
        with _reachable():
            async for key in self._redis.scan_iter(match=pattern, count=500):
                text = key.decode()
                codes.append(text[len(head) : -len(tail)])
        return codes

    # --- announcements -------------------------------------------------------------

    def set_handler(self, handler: Handler) -> None:
        self._handler = handler

    async def subscribe(self, channel: str) -> None:
        """Subscribe to ``channel``; return once Redis confirmed it.

        The channel is recorded first: it stays subscribed across reconnections until
        :meth:`unsubscribe`. If Redis is unreachable this raises ``StoreUnavailable`` but
        the channel is still recorded and gets subscribed as soon as Redis is back.
        """
        self._channels.add(channel)
        await self._await_first_attempt()
        name = self._channel(channel)
        async with self._write_lock:
            link = self._link
            if link is None:
                raise StoreUnavailable()
            number = self._sent[name] = self._sent.get(name, 0) + 1
            confirmed = asyncio.get_running_loop().create_future()
            self._waiters.setdefault(name, []).append((number, confirmed))
            with _reachable():
                await link.send_command("SUBSCRIBE", name)
        try:
            await asyncio.wait_for(asyncio.shield(confirmed), self._timeout)
        except TimeoutError as exc:
            raise StoreUnavailable() from exc

    async def unsubscribe(self, channel: str) -> None:
        """Stop delivering ``channel``; never fails (a lost connection unsubscribes anyway)."""
        self._channels.discard(channel)
        async with self._write_lock:
            link = self._link
            if link is not None:
                with contextlib.suppress(*_UNREACHABLE):
                    await link.send_command("UNSUBSCRIBE", self._channel(channel))

    async def publish(self, channel: str, message: Message) -> None:
        with _reachable():
            await self._redis.publish(self._channel(channel), _dump(message))

    # --- public room listing ---------------------------------------------------------

    async def set_listing(self, code: str, summary: dict[str, Any] | None) -> None:
        with _reachable():
            if summary is None:
                await self._redis.hdel(self._listing, code)
            else:
                await self._redis.hset(self._listing, code, _dump(summary))

    async def listings(self) -> list[dict[str, Any]]:
        with _reachable():
            values = await self._redis.hvals(self._listing)
        return [orjson.loads(v) for v in values]

    # --- presence ----------------------------------------------------------------------

    async def heartbeat(self, process: str, members: dict[str, dict[str, Any]], ttl: float) -> None:
        """Record ``process``'s members per room, each room entry expiring after ``ttl``.

        A process that stops beating vanishes from :meth:`presence` once its ``ttl`` passed.
        Rooms the process no longer has members in are withdrawn at once.
        """
        by_room = members_by_room(members)
        before = self._reported.get(process, set())
        self._reported[process] = before | set(by_room)
        ttl_ms = _ms(ttl)
        # One pipeline without MULTI: on a Cluster it is split per shard. redis-py refuses
        # EVALSHA in a Cluster pipeline, so there the script goes as text (Redis caches it).
        # A single server that does not know the script yet (restarted, or a promoted
        # replica) answers NOSCRIPT: then the script is loaded and the whole beat sent
        # again, which is harmless.
        cluster = isinstance(self._redis, RedisCluster)
        with _reachable():
            for attempt in range(2):
                try:
                    async with self._redis.pipeline(transaction=False) as pipe:
                        for room, infos in by_room.items():
                            keys = [
                                self._room(room, "presence"),
                                self._room(room, "presence-until"),
                            ]
                            args: list[str | int | bytes] = [*keys, process, ttl_ms, _dump(infos)]
                            if cluster:
                                pipe.eval(_PRESENCE_PUT, 2, *args)
                            else:
                                pipe.evalsha(self._presence_put.sha, 2, *args)
                        for room in before - set(by_room):
                            pipe.hdel(self._room(room, "presence"), process)
                            pipe.hdel(self._room(room, "presence-until"), process)
                        await pipe.execute()
                    break
                except rexc.NoScriptError:
                    if attempt:
                        raise
                    await self._redis.script_load(_PRESENCE_PUT)  # single server here
        self._reported[process] = set(by_room)

    async def presence(self, code: str) -> list[dict[str, Any]]:
        keys = [self._room(code, "presence"), self._room(code, "presence-until")]
        with _reachable():
            lists = await self._call(self._presence_get, keys=keys)
        return [info for raw in lists for info in orjson.loads(raw)]

    # --- quick-play matchmaking -----------------------------------------------------------

    def _queue_keys(self, seats: int) -> list[str]:
        return [
            self._queue(seats, "order"),
            self._queue(seats, "tickets"),
            self._queue(seats, "seq"),
        ]

    async def queue_join(self, seats: int, ticket: dict[str, Any]) -> None:
        """Add ``ticket`` at the back of the queue; a ticket id already waiting is ignored."""
        with _reachable():
            await self._call(
                self._queue_join, keys=self._queue_keys(seats), args=[ticket["id"], _dump(ticket)]
            )

    async def queue_leave(self, seats: int, ticket_id: str) -> bool:
        with _reachable():
            removed = await self._call(
                self._queue_leave, keys=self._queue_keys(seats)[:2], args=[ticket_id]
            )
        return bool(removed)

    async def queue_take(self, seats: int, least: int, most: int) -> list[dict[str, Any]]:
        if most <= 0:
            return []
        with _reachable():
            raw = await self._call(
                self._queue_take, keys=self._queue_keys(seats)[:2], args=[least, most]
            )
        return [orjson.loads(t) for t in raw if t is not None]

    async def queue_length(self, seats: int) -> int:
        with _reachable():
            return int(await self._redis.zcard(self._queue(seats, "order")))

    # --- leadership ------------------------------------------------------------------------

    async def lead(self, code: str, owner: str, ttl: float) -> bool:
        """Take or renew the lease on room ``code`` for ``ttl`` seconds.

        At most one owner holds a lease at any moment (Redis's clock decides when it
        expires); the holder must renew well within ``ttl`` to keep it.
        """
        with _reachable():
            held = await self._call(
                self._lead, keys=[self._room(code, "lead")], args=[owner, _ms(ttl)]
            )
        return bool(held)

    async def resign(self, code: str, owner: str) -> None:
        with _reachable():
            await self._call(self._resign, keys=[self._room(code, "lead")], args=[owner])

    # --- life ------------------------------------------------------------------------------

    # --- players, match history and leaderboards ------------------------------------------

    async def secret(self, name: str) -> str:
        key = f"{self.prefix}:{{secrets}}:{name}"
        with _reachable():
            await self._redis.set(key, secrets.token_hex(32), nx=True)
            value = await self._redis.get(key)
        return _text(value)

    async def save_match(
        self, match_id: str, record: dict[str, Any], players: Sequence[str]
    ) -> None:
        with _reachable():
            await self._redis.set(f"{self.prefix}:{{match:{match_id}}}", _dump(record))
            for player in players:
                key = f"{self.prefix}:{{player:{player}}}:matches"
                async with self._redis.pipeline(transaction=True) as pipe:
                    pipe.lpush(key, match_id)
                    pipe.ltrim(key, 0, HISTORY_LIMIT - 1)
                    await pipe.execute()

    async def get_match(self, match_id: str) -> dict[str, Any] | None:
        with _reachable():
            raw = await self._redis.get(f"{self.prefix}:{{match:{match_id}}}")
        return None if raw is None else dict(orjson.loads(raw))

    async def player_matches(self, player: str, limit: int = 50) -> list[str]:
        with _reachable():
            ids = await self._redis.lrange(
                f"{self.prefix}:{{player:{player}}}:matches", 0, limit - 1
            )
        return [_text(i) for i in ids]

    def _daily(self, day: str, part: str) -> str:
        return f"{self.prefix}:{{daily:{day}}}:{part}"

    async def claim_daily(self, day: str, player: str) -> bool:
        with _reachable():
            added = await self._redis.sadd(self._daily(day, "claims"), player)
        return bool(added)

    async def record_daily(self, day: str, entry: dict[str, Any]) -> None:
        # Lowest penalty first, then fewest hands: one sortable score, penalty before hands.
        score = entry["penalty"] * 10_000 + entry["hands"]
        with _reachable():
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.zadd(self._daily(day, "board"), {entry["player"]: score}, nx=True)
                pipe.hsetnx(self._daily(day, "entries"), entry["player"], _dump(entry))
                await pipe.execute()

    async def daily_board(self, day: str, limit: int = 50) -> list[dict[str, Any]]:
        with _reachable():
            found = await self._redis.zrange(self._daily(day, "board"), 0, limit - 1)
            players = [_text(p) for p in found]
            if not players:
                return []
            raw = await self._redis.hmget(self._daily(day, "entries"), players)
        return [dict(orjson.loads(r)) for r in raw if r is not None]

    def _alltime(self, part: str) -> str:
        return f"{self.prefix}:{{alltime}}:{part}"

    async def record_result(
        self, player: str, name: str, won: bool, penalty: int, hands: int
    ) -> None:
        with _reachable():
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.zincrby(self._alltime("won"), int(won), player)
                pipe.zincrby(self._alltime("played"), 1, player)
                pipe.zincrby(self._alltime("penalty"), penalty, player)
                pipe.zincrby(self._alltime("hands"), hands, player)
                pipe.hset(self._alltime("names"), player, name)
                await pipe.execute()

    async def alltime_board(self, limit: int = 50) -> list[dict[str, Any]]:
        with _reachable():
            # Ties in wins are broken by matches played: fetch a margin, then sort exactly.
            found = await self._redis.zrevrange(self._alltime("won"), 0, limit * 4 - 1)
            top = [_text(p) for p in found]
            if not top:
                return []
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.zmscore(self._alltime("won"), top)
                pipe.zmscore(self._alltime("played"), top)
                pipe.zmscore(self._alltime("penalty"), top)
                pipe.zmscore(self._alltime("hands"), top)
                pipe.hmget(self._alltime("names"), top)
                won, played, penalty, hands, names = await pipe.execute()
        rows = [
            {
                "player": p,
                "name": _text(n or b"?"),
                "won": int(w or 0),
                "played": int(pl or 0),
                "penalty": int(pe or 0),
                "hands": int(h or 0),
            }
            for p, w, pl, pe, h, n in zip(top, won, played, penalty, hands, names, strict=True)
        ]
        rows.sort(key=lambda r: (-r["won"], -r["played"], r["player"]))
        return [board_row(r) for r in rows[:limit]]

    async def ping(self) -> bool:
        """True when Redis answers within the timeout; never raises.

        On a Cluster every primary must answer: a shard that is down makes its rooms
        unavailable, so the store does not count as up.
        """
        try:
            if isinstance(self._redis, RedisCluster):
                answer = self._redis.ping(target_nodes=RedisCluster.PRIMARIES)
            else:
                answer = self._redis.ping()
            return bool(await asyncio.wait_for(answer, self._timeout))
        except Exception:
            return False

    @property
    def listening(self) -> bool:
        """True while the announcement connection is up (False during reconnection)."""
        return self._link is not None

    @property
    def listening_on(self) -> str | None:
        """``host:port`` (or socket path) of the server announcements come from; None if down.

        On a Cluster this is whichever node the connection went to; through Sentinels, the
        primary of the moment it connected.
        """
        link = self._link
        if link is None:
            return None
        host, port = getattr(link, "host", None), getattr(link, "port", None)
        return f"{host}:{port}" if host else str(getattr(link, "path", "?"))

    async def close(self) -> None:
        """Stop listening and close every connection; the store cannot be used afterwards."""
        self._closed = True
        self._handler = None
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
            self._reader = None
        await self._drop_link(None)
        await self._redis.aclose()
        if self._pool is not None:
            await self._pool.disconnect()
        if self._sentinel is not None:
            await self._sentinel.aclose()

    # --- the announcement reader ---------------------------------------------------------

    def _start_reader(self) -> None:
        if self._reader is None and not self._closed:
            self._reader = asyncio.get_running_loop().create_task(
                self._read_forever(), name=f"redis-store-reader:{self.prefix}"
            )

    async def _await_first_attempt(self) -> None:
        self._start_reader()
        if not self._first_attempt.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._first_attempt.wait(), self._timeout * 2)

    async def _read_forever(self) -> None:
        delay = 0.05
        down_since_logged = False
        while not self._closed:
            try:
                link = await self._open_link()
            except Exception as exc:
                self._first_attempt.set()
                if not down_since_logged:
                    log.warning("store: cannot reach Redis for announcements (%s)", exc)
                    down_since_logged = True
                await asyncio.sleep(delay * random.uniform(0.5, 1.0))
                delay = min(delay * 2, self._backoff_max)
                continue
            if down_since_logged:
                log.warning("store: announcement connection restored (%s)", self.listening_on)
                down_since_logged = False
            delay = 0.05
            self._first_attempt.set()
            try:
                await self._pump(link)
            except Exception as exc:
                log.warning("store: announcement connection lost (%s)", exc)
                down_since_logged = True
            finally:
                await self._drop_link(link)

    def _new_link(self) -> AbstractConnection:
        """A connection of its own, outside every pool: it lives in subscribed mode.

        Single Redis: to the server. Sentinel: to the primary the Sentinels name at the
        moment it connects. Cluster: to the next known node in turn (replicas included;
        classic pub/sub messages reach every node), so a dead node is left behind.
        """
        if isinstance(self._redis, RedisCluster):
            nodes = self._redis.get_nodes() or list(
                self._redis.nodes_manager.startup_nodes.values()
            )
            node = nodes[self._link_turn % len(nodes)]
            self._link_turn += 1
            options = {**node.connection_kwargs, "retry": Retry(NoBackoff(), 0)}
            cluster_link: AbstractConnection = node.connection_class(**options)
            return cluster_link
        assert self._pool is not None
        link: AbstractConnection = self._pool.make_connection()  # type: ignore[no-untyped-call]
        return link

    async def _open_link(self) -> AbstractConnection:
        link = self._new_link()
        try:
            await link.connect()  # type: ignore[no-untyped-call]
            async with self._write_lock:
                names = sorted(self._channel(c) for c in self._channels)
                if names:
                    await link.send_command("SUBSCRIBE", *names)
                self._sent = dict.fromkeys(names, 1)
                self._confirmed = {}
                self._link = link
        except BaseException:
            await link.disconnect()
            raise
        return link

    async def _drop_link(self, link: AbstractConnection | None) -> None:
        """Forget the live connection (if it is ``link``) and fail subscribers waiting on it."""
        if link is None:
            link = self._link
        if link is self._link:
            self._link = None
            waiters, self._waiters = self._waiters, {}
            for pending in waiters.values():
                for _, confirmed in pending:
                    if not confirmed.done():
                        confirmed.set_exception(StoreUnavailable())
                        # Nobody may be waiting any more (timed out); mark it retrieved.
                        confirmed.exception()
        if link is not None:
            with contextlib.suppress(Exception):
                await link.disconnect(nowait=True)

    async def _pump(self, link: AbstractConnection) -> None:
        """Read replies until the connection fails; ping it when idle to notice silent loss."""
        pinged = False
        while True:
            reply = await link.read_response(
                timeout=self._health_interval, disconnect_on_error=False
            )
            if reply is None:
                if pinged:
                    raise rexc.TimeoutError("no answer to a health-check ping")
                async with self._write_lock:
                    await link.send_command("PING")
                pinged = True
                continue
            pinged = False
            if isinstance(reply, list) and len(reply) >= 3:
                kind = bytes(reply[0])
                if kind == b"message":
                    self._deliver(bytes(reply[1]).decode(), bytes(reply[2]))
                elif kind == b"subscribe":
                    self._confirm(bytes(reply[1]).decode())

    def _confirm(self, name: str) -> None:
        count = self._confirmed[name] = self._confirmed.get(name, 0) + 1
        pending = self._waiters.get(name, [])
        for number, confirmed in pending:
            if number <= count and not confirmed.done():
                confirmed.set_result(None)
        kept = [(n, f) for n, f in pending if n > count]
        if kept:
            self._waiters[name] = kept
        else:
            self._waiters.pop(name, None)

    def _deliver(self, name: str, data: bytes) -> None:
        head = self.prefix + ":{"
        if not (name.startswith(head) and name.endswith("}")):
            return
        channel = name[len(head) : -1]
        handler = self._handler
        if handler is None or channel not in self._channels:
            return
        try:
            message = orjson.loads(data)
        except orjson.JSONDecodeError:
            log.error("store: undecodable message on %s dropped", channel)
            return
        task = asyncio.ensure_future(handler(channel, message))
        self._deliveries.add(task)
        task.add_done_callback(self._delivered)

    def _delivered(self, task: asyncio.Future[None]) -> None:
        self._deliveries.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("store handler failed", exc_info=task.exception())


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _dump(value: Any) -> bytes:
    return orjson.dumps(value)
