"""The coach's reviews: each hand as it ends, the match when it finishes, kept with its record.

When a hand of a match with people in it ends and the match goes on, this process (the one
whose append ended the hand) reviews that hand in a review worker of its own
(:data:`~server.bot_pool.REVIEW_WORKERS`: no bot decision waits behind it) during the pause
before the next deal, and keeps the judgement in the store (``save_review_hand``), where any
process finishing the match finds it. When the match finishes, only the hands not judged
yet (the last one, usually) are reviewed, then the turns each person is told about are made
ready to show (:func:`protocol.bots.review.summarize`, in a worker too) and the review is
kept beside the record.

Until somebody asks for a review, its work runs in the idle class, on CPU nothing else
wants, one match at a time in order of the matches' ends: a review left to a niced worker
beside the event loop cost a loaded server 40% of its moves. Asked for and still not ready
:data:`PROMOTE_AFTER` seconds later (the answer says it is pending), it goes to the worker
that is niced but not idle-class, ahead of the queue, and the job it was on is started there
too, the first answer counting: beside busy processes an idle-class worker gets no CPU at
all. A review of a match kept before reviews were, or one a restart cut short, starts when
asked for. The search has a fixed seed and no clock, so any process or worker computing a
hand or a review computes the same one (:mod:`protocol.bots.review`).

Only people's seats are reviewed; a bot's seat is ``null``.

**With a shared store that takes review jobs** (Redis: :class:`~server.store.base.ReviewJobStore`)
none of this runs here: the process computes no review at all. A hand that ended and a
finished match become jobs on the store's queue, which ``kings-corner worker`` processes
(:mod:`server.review_worker`, on any machine) take, compute and keep with the same
``save_review_hand`` and ``save_review``. A review asked for and not kept yet (a match kept
before, a job lost) is added again, at most once per :data:`ENQUEUE_AGAIN_AFTER` seconds
per match whichever process is asked (the store deduplicates).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from protocol.bots.review import summarize
from protocol.engine import NEXT_HAND
from protocol.errors import KingsCornerError

from .bot_pool import BotPool
from .store.base import RecordStore, ReviewJobStore
from .tasks import Tasks

log = logging.getLogger(__name__)
T = TypeVar("T")
#: Reviews computed at once per process (each one hand at a time), in order of the matches'
#: ends.
AT_ONCE = 1
#: Reviews started and not done, per process, at most: asking for the reviews of many old
#: matches at once queues no more than this (the others answer "pending" until there is room).
MAX_STARTED = 64
#: Hands of matches still being played waiting for their review, per process, at most: past
#: it, a hand is left to its match's review.
MAX_AHEAD = 256
#: Seconds a review somebody asked for stays in the idle class before it moves to the niced
#: worker: long enough for the idle class to finish it wherever a CPU has time to spare (at
#: the match's end only its last hand and the summary are left: 0.06 s median, docs/coach.md).
PROMOTE_AFTER = 1.0
#: Seconds during which a match's review job, once added, is not added again, however often
#: its review is asked for (with a store that takes review jobs): a job lost (trimmed from a
#: full queue) is added again after that.
ENQUEUE_AGAIN_AFTER = 300.0


def hand_log(record: dict[str, Any], hand: int) -> str:
    """A digest of the record's log up to the end of hand ``hand`` (0-based): what a hand's
    judgement kept ahead was made from."""
    ends = [n for n, entry in enumerate(record["log"]) if entry == NEXT_HAND]
    upto = ends[hand] if hand < len(ends) else len(record["log"])
    text = "\n".join(str(entry) for entry in record["log"][:upto])
    return hashlib.sha256(f"{record.get('seed')}\n{text}".encode()).hexdigest()[:32]


def kept_form(record: dict[str, Any], hand: int, judged: dict[int, Any]) -> dict[str, Any]:
    """A hand's judgement as it is kept ahead (``save_review_hand``): per seat, and the
    digest of the log it was made from (:func:`hand_log`)."""
    return {"log": hand_log(record, hand), **{str(seat): items for seat, items in judged.items()}}


def kept_hand(
    kept: dict[int, dict[str, Any]], hand: int, seats: list[int], record: dict[str, Any]
) -> dict[int, list[dict[str, Any]]] | None:
    """The judgement of ``hand`` for every one of ``seats`` among the hands kept ahead
    (``get_review_hands``), or None when a seat's is missing or it was made from another
    log than ``record``'s (a store that came back without its last writes, then the match
    went on differently): the hand is reviewed again."""
    found = kept.get(hand, {})
    if found.get("log") != hand_log(record, hand):
        return None
    if not all(str(seat) in found for seat in seats):
        return None
    return {seat: found[str(seat)] for seat in seats}


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

    def __init__(
        self,
        store: RecordStore,
        pool: BotPool,
        tasks: Tasks,
        *,
        enabled: bool = True,
        jobs: ReviewJobStore | None = None,
        backlog: int = 10_000,
    ) -> None:
        #: Off (the ``reviews`` setting): nothing is reviewed here, and :meth:`get` refuses.
        self.enabled = enabled
        #: The review tier's queue: given, reviews become jobs there, none is computed here.
        self.jobs = jobs
        self._backlog = backlog
        #: Jobs being added, by match id (a match) or (match id, hand).
        self._adding: dict[object, asyncio.Future[None]] = {}
        self._store = store
        self._pool = pool
        self._tasks = tasks
        self._running: dict[str, _Running] = {}
        self._slots = asyncio.Semaphore(AT_ONCE)
        #: Hands being reviewed while their match goes on, by (match id, hand).
        self._ahead: dict[tuple[str, int], asyncio.Future[None]] = {}

    def start(self, record: dict[str, Any], *, asked: bool = False) -> None:
        """Start reviewing a finished match (nothing happens for one without people, while
        :data:`MAX_STARTED` are, or while the server shuts down). ``asked``: somebody waits
        for it, which soon moves it ahead (see the module)."""
        match_id = str(record["id"])
        if self.jobs is not None:
            if self.enabled and not self._tasks.closing and people_seats(record):
                self._add({"kind": "match", "record": record}, match_id, once_for=match_id)
            return
        running = self._running.get(match_id)
        if running is None:
            if not self.enabled or self._tasks.closing or not people_seats(record):
                return
            if len(self._running) >= MAX_STARTED:
                return
            promoted = asyncio.Event()
            running = _Running(self._tasks.spawn(self._review(record, promoted)), promoted)
            self._running[match_id] = running
            running.task.add_done_callback(lambda _: self._finished(match_id))
        if asked:
            running.ask()

    def hand_ended(self, record: dict[str, Any]) -> None:
        """A hand of a match with people ended and the match goes on: review that hand now,
        idle-class (nothing happens while :data:`MAX_AHEAD` hands are waiting, or while the
        server shuts down: the match's review judges what is missing)."""
        seats = people_seats(record)
        if not self.enabled or self._tasks.closing or not seats or len(self._ahead) >= MAX_AHEAD:
            return
        match_id = str(record["id"])
        hand = sum(1 for entry in record["log"] if entry == NEXT_HAND)
        if self.jobs is not None:
            self._add({"kind": "hand", "hand": hand, "record": record}, (match_id, hand))
            return
        job = self._tasks.spawn(self._review_ahead(record, hand, seats))
        self._ahead[(match_id, hand)] = job
        job.add_done_callback(lambda _: self._ahead.pop((match_id, hand), None))

    def _add(self, job: dict[str, Any], key: object, once_for: str | None = None) -> None:
        """Add ``job`` to the review tier's queue in the background (one at a time per
        ``key``; at most :data:`MAX_AHEAD` being added: past it, the job is left out, and
        the match's job or the next time it is asked for covers it)."""
        if key in self._adding or len(self._adding) >= MAX_AHEAD:
            return
        adding = self._tasks.spawn(self._add_job(job, once_for))
        self._adding[key] = adding
        adding.add_done_callback(lambda _: self._adding.pop(key, None))

    async def _add_job(self, job: dict[str, Any], once_for: str | None) -> None:
        assert self.jobs is not None
        record = job["record"]
        try:
            await self.jobs.add_review_job(
                job, once_for=once_for, ttl=ENQUEUE_AGAIN_AFTER, backlog=self._backlog
            )
        except KingsCornerError as exc:
            log.warning("review job of match %s not added: %s", record["id"], exc.code)
        except Exception:
            log.exception("could not add a review job of match %s", record["id"])

    async def _review_ahead(self, record: dict[str, Any], hand: int, seats: list[int]) -> None:
        try:
            judged = await self._pool.review_hand(record, hand, seats)
            await self._store.save_review_hand(
                str(record["id"]), hand, kept_form(record, hand, judged)
            )
        except KingsCornerError as exc:
            log.info(
                "hand %d of match %s not kept for its review: %s", hand, record["id"], exc.code
            )
        except Exception:
            log.exception("could not review hand %d of match %s", hand, record["id"])

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
        match_id = str(record["id"])
        seats = people_seats(record)
        hands = 1 + sum(1 for entry in record["log"] if entry == NEXT_HAND)
        turns: dict[int, list[dict[str, Any]]] = {seat: [] for seat in seats}
        try:
            ahead = [job for (found, _), job in list(self._ahead.items()) if found == match_id]
            if ahead:
                await _first(asyncio.gather(*ahead, return_exceptions=True), promoted.wait())
            judged = await self._store.get_review_hands(match_id)
            held = await self._slot(promoted)
            try:
                for hand in range(hands):
                    found = kept_hand(judged, hand, seats, record)
                    if found is None:
                        judge = partial(self._pool.review_hand, record, hand, seats)
                        found = await self._job(judge, promoted)
                    for seat, items in found.items():
                        turns[seat].extend(items)
                summary = partial(self._pool.review_summary, record, turns)
                review = await self._job(summary, promoted)
            finally:
                if held:
                    self._slots.release()
            await self._store.save_review(match_id, review)
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

    async def _job(self, start: Callable[..., Awaitable[T]], promoted: asyncio.Event) -> T:
        """One job of a review (``start(asked=...)`` runs it): in the idle-class worker until the
        review is promoted, then also in the niced one, the first answer counting (both are
        the same)."""
        if promoted.is_set() or not self._pool.reviews_asked_apart:
            return await start(asked=promoted.is_set())
        idle = asyncio.ensure_future(start(asked=False))
        fast: asyncio.Future[T] | None = None
        try:
            await _first(idle, promoted.wait())
            if idle.done():
                return idle.result()
            fast = asyncio.ensure_future(start(asked=True))
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


__all__ = ["Reviews", "hand_log", "kept_form", "kept_hand", "people_seats"]
