"""The quick-play queues in Redis: one per table size, in order of arrival."""

from __future__ import annotations

from typing import Any

import orjson

from . import scripts
from .core import RedisCore, dump, reachable


class Matchmaking(RedisCore):
    """Join, leave and take batches of tickets from the queue for ``seats`` players."""

    def _queue(self, seats: int, part: str) -> str:
        return f"{self.prefix}:{{queue:{seats}}}:{part}"

    def _queue_keys(self, seats: int) -> list[str]:
        return [
            self._queue(seats, "order"),
            self._queue(seats, "tickets"),
            self._queue(seats, "seq"),
        ]

    async def queue_join(self, seats: int, ticket: dict[str, Any]) -> None:
        """Add ``ticket`` at the back of the queue; a ticket id already waiting is ignored."""
        with reachable():
            await self._call(
                scripts.QUEUE_JOIN, keys=self._queue_keys(seats), args=[ticket["id"], dump(ticket)]
            )

    async def queue_leave(self, seats: int, ticket_id: str) -> bool:
        with reachable():
            removed = await self._call(
                scripts.QUEUE_LEAVE, keys=self._queue_keys(seats)[:2], args=[ticket_id]
            )
        return bool(removed)

    async def queue_take(self, seats: int, least: int, most: int) -> list[dict[str, Any]]:
        if most <= 0:
            return []
        with reachable():
            raw = await self._call(
                scripts.QUEUE_TAKE, keys=self._queue_keys(seats)[:2], args=[least, most]
            )
        return [orjson.loads(t) for t in raw if t is not None]

    async def queue_length(self, seats: int) -> int:
        with reachable():
            return int(await self._redis.zcard(self._queue(seats, "order")))
