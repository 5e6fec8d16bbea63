"""The coach's reviews of finished matches: computed once, kept with the match record.

When a match with people in it finishes, its review starts in a review worker of its own
(:data:`~server.bot_pool.REVIEW_WORKERS`: no bot decision waits behind it), one hand at a
time, and is kept in the store beside the record. Until somebody asks for it, it runs in the
idle class, on CPU nothing else wants, one review at a time in order of the matches' ends:
a review left to a niced worker beside the event loop cost a loaded server 40% of its moves.
Asked for and still not ready :data:`PROMOTE_AFTER` seconds later (the answer says it is
pending), it goes to the worker that is niced but not idle-class, ahead of the queue, and the
hand it was on is started there too, the first answer counting: beside busy processes an
idle-class worker gets no CPU at all. On a machine with CPU to spare the idle class is
served at once, and a review asked for is usually ready before then. A review of a match
kept before reviews were, or one a restart cut short, starts when asked for. The search has
a fixed seed and no clock, so any process or worker computing a review computes the same
one (:mod:`protocol.bots.review`).

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
#: Seconds a review somebody asked for stays in the idle class before it moves to the niced
#: worker: long enough for the idle class to finish it wherever a CPU has time to spare.
PROMOTE_AFTER = 3.0


def people_seats(record: dict[str, Any]) -> list[int]:
    """The seats of a match record that people played."""
    return [
        seat
        for seat, info in enumerate(record.get("seats") or [])
        if info is not None and info.get("kind") == "human"
    ]


@dataclass(slots=True)
class _Running:
    """A review being computed; ``promoted`` is set once it goes to the niced worker."""

    task: asyncio.Future[None]
    promoted: asyncio.Event
    timer: asyncio.TimerHandle | None = None

    def ask(self) -> None:
        """Somebody waits for it: promote it in :data:`PROMOTE_AFTER` seconds."""
        if self.timer is None:
            loop = asyncio.get_running_loop()
            self.timer = loop.call_later(PROMOTE_AFTER, self.promoted.set)


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
        for it, which soon moves it ahead (see the module)."""
        match_id = str(record["id"])
        running = self._running.get(match_id)
        if running is None:
            if self._tasks.closing or not people_seats(record):
                return
            if len(self._running) >= MAX_STARTED:
                return
            promoted = asyncio.Event()
            running = _Running(self._tasks.spawn(self._review(record, promoted)), promoted)
            self._running[match_id] = running
            running.task.add_done_callback(lambda _: self._finished(match_id))
        if asked:
            running.ask()

    def _finished(self, match_id: str) -> None:
        running = self._running.pop(match_id, None)
        if running is not None and running.timer is not None:
            running.timer.cancel()

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

    async def _review(self, record: dict[str, Any], promoted: asyncio.Event) -> None:
        seats = people_seats(record)
        hands = 1 + sum(1 for entry in record["log"] if entry == NEXT_HAND)
        turns: dict[int, list[dict[str, Any]]] = {seat: [] for seat in seats}
        try:
            held = await self._slot(promoted)
            try:
                for hand in range(hands):
                    judged = await self._hand(record, hand, seats, promoted)
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

    async def _slot(self, promoted: asyncio.Event) -> bool:
        """Wait for this review's turn in the idle class, or until it is promoted; True when
        it holds one of the :data:`AT_ONCE` places."""
        if promoted.is_set():
            return False
        place = asyncio.ensure_future(self._slots.acquire())
        try:
            await _first(place, promoted.wait())
        except BaseException:
            if not place.cancel() and not place.cancelled() and place.exception() is None:
                self._slots.release()  # granted just as this review was cancelled
            raise
        if place.done():
            return True
        place.cancel()  # promoted first (a place granted meanwhile goes back to the queue)
        return False

    async def _hand(
        self, record: dict[str, Any], hand: int, seats: list[int], promoted: asyncio.Event
    ) -> dict[int, list[dict[str, Any]]]:
        """One hand's judgements: in the idle-class worker until the review is promoted,
        then also in the niced one, the first answer counting (both are the same)."""
        pool = self._pool
        if promoted.is_set() or not pool.reviews_asked_apart:
            return await pool.review_hand(record, hand, seats, asked=promoted.is_set())
        idle = asyncio.ensure_future(pool.review_hand(record, hand, seats))
        fast: asyncio.Future[dict[int, list[dict[str, Any]]]] | None = None
        try:
            await _first(idle, promoted.wait())
            if idle.done():
                return idle.result()
            fast = asyncio.ensure_future(pool.review_hand(record, hand, seats, asked=True))
            await asyncio.wait((idle, fast), return_when=asyncio.FIRST_COMPLETED)
            return (idle if idle.done() else fast).result()
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
