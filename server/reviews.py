"""The coach's reviews of finished matches: computed once, kept with the match record.

When a match with people in it finishes, its review starts in a review worker of its own
(:data:`~server.bot_pool.REVIEW_WORKERS`: no bot decision waits behind it), one hand at a
time, and is kept in the store beside the record. Until somebody asks for it, it runs in the
idle class, on CPU nothing else wants, one review at a time in order of the matches' ends:
a review left to a niced worker beside the event loop cost a loaded server 40% of its moves.
Once asked for (the answer says it is pending), it goes to the worker that is niced but not
idle-class, ahead of the queue, and the hand it was on is started there too, the first
answer counting: beside busy processes an idle-class worker gets no CPU at all. A review of
a match kept before reviews were, or one a restart cut short, starts when asked for. The
search has a fixed seed and no clock, so any process or worker computing a review computes
the same one (:mod:`protocol.bots.review`).

Only people's seats are reviewed; a bot's seat is ``null``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from dataclasses import dataclass
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


@dataclass(slots=True)
class _Running:
    """A review being computed, and whether somebody waits for it."""

    task: asyncio.Future[None]
    asked: asyncio.Event


class Reviews:
    """Reviews of finished matches, over the store and the bot workers."""

    def __init__(self, store: RecordStore, pool: BotPool, tasks: Tasks) -> None:
        self._store = store
        self._pool = pool
        self._tasks = tasks
        self._running: dict[str, _Running] = {}
        self._slots = asyncio.Semaphore(AT_ONCE)

    def start(self, record: dict[str, Any], *, asked: bool = False) -> None:
        """Start reviewing a finished match (nothing happens for one without people, while
        :data:`MAX_STARTED` are, or while the server shuts down). ``asked``: somebody waits
        for it, which moves a review already running here ahead (see the module)."""
        match_id = str(record["id"])
        running = self._running.get(match_id)
        if running is not None:
            if asked:
                running.asked.set()
            return
        if self._tasks.closing or not people_seats(record) or len(self._running) >= MAX_STARTED:
            return
        wanted = asyncio.Event()
        if asked:
            wanted.set()
        task = self._tasks.spawn(self._review(record, wanted))
        self._running[match_id] = _Running(task, wanted)
        task.add_done_callback(lambda _: self._running.pop(match_id, None))

    async def get(self, record: dict[str, Any]) -> dict[str, Any] | None:
        """The review of the finished match ``record``; None while it is being computed
        (then it has been started, as asked for). A match nobody played has a review of no
        seats."""
        if not people_seats(record):
            return summarize(record, {})
        review = await self._store.get_review(str(record["id"]))
        if review is None:
            self.start(record, asked=True)
        return review

    async def _review(self, record: dict[str, Any], wanted: asyncio.Event) -> None:
        seats = people_seats(record)
        hands = 1 + sum(1 for entry in record["log"] if entry == NEXT_HAND)
        turns: dict[int, list[dict[str, Any]]] = {seat: [] for seat in seats}
        try:
            held = await self._slot(wanted)
            try:
                for hand in range(hands):
                    judged = await self._hand(record, hand, seats, wanted)
                    for seat, items in judged.items():
                        turns[seat].extend(items)
            finally:
                if held:
                    self._slots.release()
            await self._store.save_review(str(record["id"]), summarize(record, turns))
        except KingsCornerError as exc:
            log.warning("could not keep the review of match %s: %s", record["id"], exc.code)
        except Exception:  # a worker died twice, a record that does not replay
            log.exception("could not review match %s", record["id"])

    async def _slot(self, wanted: asyncio.Event) -> bool:
        """Wait for this review's turn among those nobody asked for, or until it is asked
        for; True when it holds one of the :data:`AT_ONCE` places."""
        if wanted.is_set():
            return False
        place = asyncio.ensure_future(self._slots.acquire())
        try:
            await _first(place, wanted.wait())
        except BaseException:
            if not place.cancel() and not place.cancelled() and place.exception() is None:
                self._slots.release()  # granted just as this review was cancelled
            raise
        if place.done():
            return True
        place.cancel()  # asked for first (a place granted meanwhile goes back to the queue)
        return False

    async def _hand(
        self, record: dict[str, Any], hand: int, seats: list[int], wanted: asyncio.Event
    ) -> dict[int, list[dict[str, Any]]]:
        """One hand's judgements: in the idle-class worker until the review is asked for,
        then also in the asked-for one, the first answer counting (both are the same)."""
        pool = self._pool
        if wanted.is_set() or not pool.reviews_asked_apart:
            return await pool.review_hand(record, hand, seats, asked=wanted.is_set())
        idle = asyncio.ensure_future(pool.review_hand(record, hand, seats))
        fast: asyncio.Future[dict[int, list[dict[str, Any]]]] | None = None
        try:
            await _first(idle, wanted.wait())
            if not idle.done():
                fast = asyncio.ensure_future(pool.review_hand(record, hand, seats, asked=True))
                await asyncio.wait((idle, fast), return_when=asyncio.FIRST_COMPLETED)
            return (idle if idle.done() else fast or idle).result()
        finally:
            for job in (idle, fast):
                if job is not None:
                    job.cancel()  # the loser; a worker's job already running still ends


async def _first(future: asyncio.Future[Any], other: Awaitable[Any]) -> None:
    """Wait until ``future`` is done or ``other`` finishes, whichever is first."""
    waiter = asyncio.ensure_future(other)
    try:
        await asyncio.wait((future, waiter), return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()


__all__ = ["Reviews", "people_seats"]
