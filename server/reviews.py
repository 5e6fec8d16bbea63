"""The coach's reviews of finished matches: computed once, kept with the match record.

When a match with people in it finishes, its review starts in the review worker (a niced
process of its own, :data:`~server.bot_pool.REVIEW_WORKERS`: no bot decision waits behind
it), one hand at a time, and is kept in the store beside the record. A review asked for
before it is ready (or of a match kept before reviews were, or one whose review a restart
cut short) is started then; the answer says it is pending. The search has a fixed seed and
no clock, so any process computing a review computes the same one
(:mod:`protocol.bots.review`).

Only people's seats are reviewed; a bot's seat is ``null``.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from protocol.bots.review import summarize
from protocol.engine import NEXT_HAND
from protocol.errors import KingsCornerError

from .bot_pool import BotPool
from .store.base import RecordStore
from .tasks import Tasks

log = logging.getLogger(__name__)
#: Reviews computed at once per process (each one hand at a time), in order of the matches'
#: ends.
AT_ONCE = 1
#: Reviews started and not done, per process, at most: asking for the reviews of many old
#: matches at once queues no more than this (the others answer "pending" until there is room).
MAX_STARTED = 64


def people_seats(record: dict[str, Any]) -> list[int]:
    """The seats of a match record that people played."""
    return [
        seat
        for seat, info in enumerate(record.get("seats") or [])
        if info is not None and info.get("kind") == "human"
    ]


class Reviews:
    """Reviews of finished matches, over the store and the bot workers."""

    def __init__(self, store: RecordStore, pool: BotPool, tasks: Tasks) -> None:
        self._store = store
        self._pool = pool
        self._tasks = tasks
        self._running: dict[str, asyncio.Future[Any]] = {}
        self._slots = asyncio.Semaphore(AT_ONCE)

    def start(self, record: dict[str, Any]) -> None:
        """Start reviewing a finished match (nothing happens for one without people, one
        being reviewed here already, while :data:`MAX_STARTED` are, or while the server
        shuts down)."""
        match_id = str(record["id"])
        if match_id in self._running or self._tasks.closing or not people_seats(record):
            return
        if len(self._running) >= MAX_STARTED:
            return
        task = self._tasks.spawn(self._review(record))
        self._running[match_id] = task
        task.add_done_callback(lambda _: self._running.pop(match_id, None))

    async def get(self, record: dict[str, Any]) -> dict[str, Any] | None:
        """The review of the finished match ``record``; None while it is being computed
        (then it has been started). A match nobody played has a review of no seats."""
        if not people_seats(record):
            return summarize(record, {})
        review = await self._store.get_review(str(record["id"]))
        if review is None:
            self.start(record)
        return review

    async def _review(self, record: dict[str, Any]) -> None:
        seats = people_seats(record)
        hands = 1 + sum(1 for entry in record["log"] if entry == NEXT_HAND)
        turns: dict[int, list[dict[str, Any]]] = {seat: [] for seat in seats}
        try:
            async with self._slots:
                for hand in range(hands):
                    judged = await self._pool.review_hand(record, hand, seats)
                    for seat, items in judged.items():
                        turns[seat].extend(items)
            await self._store.save_review(str(record["id"]), summarize(record, turns))
        except KingsCornerError as exc:
            log.warning("could not keep the review of match %s: %s", record["id"], exc.code)
        except Exception:  # a worker died twice, a record that does not replay
            log.exception("could not review match %s", record["id"])


__all__ = ["Reviews", "people_seats"]
