"""The Redis store's connection: the client or pool per topology, error mapping, key names.

:class:`RedisCore` is the base the store's parts (:mod:`.rooms`, :mod:`.presence`, ...)
build on: it owns the redis-py client and runs scripts; the parts only issue commands.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import orjson
import redis.asyncio as aioredis
import redis.exceptions as rexc
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.connection import BlockingConnectionPool, ConnectionPool
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool
from redis.backoff import NoBackoff

from protocol.errors import StoreFull, StoreUnavailable

from .scripts import Script
from .target import RedisTarget, parse_redis_url

#: Errors that mean "Redis cannot be reached right now" (BusyLoadingError, raised while a
#: restarted Redis loads its data, is a ConnectionError; ReadOnlyError comes from a replica
#: that is not yet promoted; MasterNotFoundError, a ConnectionError, from Sentinels that know
#: no healthy primary; CLUSTERDOWN and TRYAGAIN from a Cluster in the middle of a change).
UNREACHABLE: tuple[type[BaseException], ...] = (
    rexc.ConnectionError,
    rexc.TimeoutError,
    rexc.ReadOnlyError,
    rexc.ClusterDownError,
    rexc.TryAgainError,
    OSError,
)


@contextlib.contextmanager
def reachable() -> Iterator[None]:
    """Turn every "cannot reach Redis" failure into :class:`StoreUnavailable`, and Redis's
    refusal of a write at ``maxmemory`` (the ``noeviction`` policy) into :class:`StoreFull`.

    A script is refused whole at its first write, so a refused append stores nothing.
    """
    try:
        yield
    except UNREACHABLE as exc:
        raise (StoreUnavailable.unreached() if never_sent(exc) else StoreUnavailable()) from exc
    except rexc.OutOfMemoryError as exc:
        raise StoreFull() from exc
    except rexc.RedisClusterException as exc:
        # The Cluster client's own complaints: "no node answers" and "no node serves this
        # slot" are outages; the rest (a blocked or cross-slot command) are bugs.
        if isinstance(exc, rexc.SlotNotCoveredError) or isinstance(exc.__cause__, UNREACHABLE):
            raise StoreUnavailable() from exc
        raise


def never_sent(exc: BaseException) -> bool:
    """True when ``exc`` came from opening a connection (refused, or timed out connecting):
    the command was never written, so Redis cannot have carried it out. Any other failure
    may have come after Redis received it."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ConnectionRefusedError) or "connecting to" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def dump(value: Any) -> bytes:
    """``value`` as the JSON the store keeps in Redis."""
    return orjson.dumps(value)


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


class RedisCore:
    """The client of one Redis topology (see :class:`RedisTarget`) and the store's key names.

    ``timeout`` bounds connecting, each command and the wait for one of the ``pool_size``
    connections (on a single server). Constructing it does no I/O; the first command
    connects.
    """

    def __init__(self, url: str, prefix: str, *, timeout: float, pool_size: int) -> None:
        self.prefix = prefix
        self.target: RedisTarget = parse_redis_url(url)
        self._timeout = timeout
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

    async def _call(self, script: Script, keys: list[str], args: Sequence[Any] = ()) -> Any:
        """Run ``script`` by its SHA1; a server that does not know it yet gets its text.

        EVAL both runs the script and caches it on the server that owns the keys (a
        restarted server, a promoted replica, any shard of a Cluster): no SCRIPT LOAD,
        which on a Cluster would need every primary to answer.
        """
        try:
            return await self._redis.evalsha(script.sha, len(keys), *keys, *args)
        except rexc.NoScriptError:
            return await self._redis.eval(script.text, len(keys), *keys, *args)

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

    async def _close_clients(self) -> None:
        """Close the client, the pool and the Sentinel connections."""
        await self._redis.aclose()
        if self._pool is not None:
            await self._pool.disconnect()
        if self._sentinel is not None:
            await self._sentinel.aclose()

    # --- key names shared by several parts -----------------------------------------------

    def _room(self, code: str, part: str) -> str:
        return f"{self.prefix}:{{room:{code}}}:{part}"

    def _channel(self, name: str) -> str:
        # The whole name is the hash tag: on a Cluster, SPUBLISH and SSUBSCRIBE go to the
        # shard of the channel's slot, so a room's announcements (room:CODE) share its keys'
        # shard, fail or work together with them, and the append script may SPUBLISH them.
        return f"{self.prefix}:{{{name}}}"
