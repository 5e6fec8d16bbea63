"""Rooms as event logs in Redis, and the lobby's listing of public rooms.

A room is the list ``{room:CODE}:events``; its version is the list's length. Creating,
appending (with the version and hash-chain head checks) and reading are scripts, so no
other process's step interleaves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from protocol.errors import Conflict, RoomNotFound

from ..base import CHAT_KEPT, CHAT_KEPT_S, CLOSED_KEPT_S, Event, Message
from . import scripts
from .core import RedisCore, dump, reachable


class EventLog(RedisCore):
    """Room event logs (create, append, read, delete, list codes) and the public listing."""

    @property
    def _append_script(self) -> scripts.Script:
        # On a Cluster the announcement is sharded, as in pubsub.py.
        return scripts.APPEND_SHARDED if self.target.kind == "cluster" else scripts.APPEND

    @property
    def _listing(self) -> str:
        return f"{self.prefix}:{{lobby}}:listing"

    async def create_room(self, code: str, first: Event) -> bool:
        with reachable():
            created = await self._call(
                scripts.CREATE, keys=[self._room(code, "events")], args=[dump(first)]
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
            scripts.PUSH_CHUNK,
            self._channel(f"room:{code}"),
            b"" if announce is None else dump(announce),
            "-" if head is None else head,
            *(dump(e) for e in events),
        ]
        with reachable():
            result = int(
                await self._call(self._append_script, keys=[self._room(code, "events")], args=args)
            )
        if result == -1:
            raise RoomNotFound()
        if result == -2:
            raise Conflict()
        return result

    async def read(self, code: str, after: int = 0) -> list[Event]:
        with reachable():
            raw = await self._call(scripts.READ, keys=[self._room(code, "events")], args=[after])
        if raw is None:
            raise RoomNotFound()
        return [orjson.loads(item) for item in raw]

    async def delete_room(self, code: str, *, closed: bool = False) -> None:
        with reachable():
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.delete(
                    self._room(code, "events"), self._room(code, "lead"), self._room(code, "chat")
                )
                pipe.hdel(self._listing, code)
                if closed:
                    pipe.set(self._room(code, "closed"), 1, ex=CLOSED_KEPT_S)
                await pipe.execute()

    async def was_closed(self, code: str) -> bool:
        with reachable():
            return bool(await self._redis.exists(self._room(code, "closed")))

    async def add_chat(self, code: str, line: Message) -> None:
        key = self._room(code, "chat")  # on the room's shard: one pipeline, one round trip
        with reachable():
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.rpush(key, dump(line))
                pipe.ltrim(key, -CHAT_KEPT, -1)
                pipe.expire(key, CHAT_KEPT_S)
                await pipe.execute()

    async def chat_lines(self, code: str) -> list[Message]:
        with reachable():
            raw = await self._redis.lrange(self._room(code, "chat"), 0, -1)
        return [orjson.loads(item) for item in raw]

    async def room_codes(self) -> list[str]:
        head, tail = f"{self.prefix}:{{room:", "}:events"
        pattern = _glob_escape(head) + "*" + _glob_escape(tail)
        codes: list[str] = []
        with reachable():
            async for key in self._redis.scan_iter(match=pattern, count=500):
                text = key.decode()
                codes.append(text[len(head) : -len(tail)])
        return codes

    # --- public room listing ---------------------------------------------------------

    async def set_listing(self, code: str, summary: dict[str, Any] | None) -> None:
        with reachable():
            if summary is None:
                await self._redis.hdel(self._listing, code)
            else:
                await self._redis.hset(self._listing, code, dump(summary))

    async def listings(self) -> list[dict[str, Any]]:
        with reachable():
            values = await self._redis.hvals(self._listing)
        return [orjson.loads(v) for v in values]


def _glob_escape(text: str) -> str:
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)
