"""Presence (each process's heartbeat of its members per room) and room leases in Redis."""

from __future__ import annotations

from typing import Any

import orjson
import redis.exceptions as rexc
from redis.asyncio.cluster import RedisCluster

from ..base import members_by_room
from . import scripts
from .core import RedisCore, dump, reachable


class Presence(RedisCore):
    """Who is in which room, per process and with a TTL; and who leads each room."""

    # process -> rooms its last heartbeat reported, to withdraw it from rooms it left.
    _reported: dict[str, set[str]]

    def _init_presence(self) -> None:
        self._reported = {}

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
        with reachable():
            for attempt in range(2):
                try:
                    async with self._redis.pipeline(transaction=False) as pipe:
                        for room, infos in by_room.items():
                            keys = [
                                self._room(room, "presence"),
                                self._room(room, "presence-until"),
                            ]
                            args: list[str | int | bytes] = [*keys, process, ttl_ms, dump(infos)]
                            if cluster:
                                pipe.eval(scripts.PRESENCE_PUT.text, 2, *args)
                            else:
                                pipe.evalsha(scripts.PRESENCE_PUT.sha, 2, *args)
                        for room in before - set(by_room):
                            pipe.hdel(self._room(room, "presence"), process)
                            pipe.hdel(self._room(room, "presence-until"), process)
                        await pipe.execute()
                    break
                except rexc.NoScriptError:
                    if attempt:
                        raise
                    await self._redis.script_load(scripts.PRESENCE_PUT.text)  # single server here
        self._reported[process] = set(by_room)

    async def presence(self, code: str) -> list[dict[str, Any]]:
        keys = [self._room(code, "presence"), self._room(code, "presence-until")]
        with reachable():
            lists = await self._call(scripts.PRESENCE_GET, keys=keys)
        return [info for raw in lists for info in orjson.loads(raw)]

    # --- leadership ------------------------------------------------------------------------

    async def lead(self, code: str, owner: str, ttl: float) -> bool:
        """Take or renew the lease on room ``code`` for ``ttl`` seconds.

        At most one owner holds a lease at any moment (Redis's clock decides when it
        expires); the holder must renew well within ``ttl`` to keep it.
        """
        with reachable():
            held = await self._call(
                scripts.LEAD, keys=[self._room(code, "lead")], args=[owner, _ms(ttl)]
            )
        return bool(held)

    async def resign(self, code: str, owner: str) -> None:
        with reachable():
            await self._call(scripts.RESIGN, keys=[self._room(code, "lead")], args=[owner])


def _ms(seconds: float) -> int:
    return max(1, round(seconds * 1000))
