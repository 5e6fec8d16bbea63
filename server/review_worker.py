"""``kings-corner worker``: the review tier, computing the coach's reviews for game servers.

Game servers on Redis compute no review (:mod:`server.reviews`): each hand that ended in a
match with people, and each finished match, becomes a job on a Redis Stream
(:mod:`server.store.redis.review_jobs`). A worker runs ``review_consumers`` consumers of
that stream's consumer group, each computing one job at a time in a worker process of its
own (niced, :func:`server.bot_pool.review_processes`):

- **a hand**: :func:`protocol.bots.review.review_hand` of the record so far, kept with
  ``save_review_hand``;
- **a match**: the hands kept so far (``get_review_hands``), the missing ones reviewed,
  then :func:`protocol.bots.review.summarize`, kept with ``save_review`` (which drops the
  hands). A job for a match whose review is kept already is done at once.

Then the job is acknowledged and its entry deleted. A job stays taken while it is
computed: every third of ``review_lease`` the consumer renews its hold. A worker killed
mid-job stops renewing; once the lease has run out any other consumer takes the job over
(``XAUTOCLAIM``, looked for before each new job) and computes it again: nothing is lost,
and the result is the same (the review has fixed seeds and no clock). A job delivered
:data:`MAX_DELIVERIES` times (it killed every worker that took it) is dropped with an error.

Any number of workers, on any machine, may serve one deployment: they share the stream
through Redis and nothing else.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from protocol.bots.review import review_hand, summarize
from protocol.engine import NEXT_HAND
from protocol.errors import KingsCornerError

from .bot_pool import review_processes
from .config import Settings
from .reviews import kept_form, kept_hand, people_seats
from .store.redis_store import RedisStore

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Milliseconds a consumer waits in one read for a new job (then it looks for jobs to take
#: over again).
BLOCK_MS = 1000
#: Deliveries after which a job is dropped: it ended every worker that took it.
MAX_DELIVERIES = 5
#: Seconds between two looks for consumers of workers that are gone (holding no job).
FORGET_EVERY = 60.0
#: Seconds a consumer holding no job must have been silent to be forgotten (at least; also
#: at least ten leases).
FORGET_AFTER = 600.0
#: Seconds a worker told to stop waits for the jobs it is computing before it leaves them
#: (pending: another worker takes them over after the lease).
STOP_WAIT = 5.0
#: Test-only: seconds a consumer waits after taking a job before it computes it (a job a
#: test can find pending and kill its worker on). Unset or 0 outside tests.
TEST_HOLD = "KC_TEST_REVIEW_HOLD"


class ReviewWorker:
    """The consumers of one worker process over ``store`` (a Redis store), computing in
    ``executor`` (one worker process per consumer; see :func:`run`)."""

    def __init__(
        self,
        settings: Settings,
        store: RedisStore,
        executor: Executor,
        replace: Callable[[], Any] | None = None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.executor = executor
        #: Starts a new executor when a worker process died (a coroutine function).
        self._replace = replace
        self._replacing = asyncio.Lock()
        self._stopping = False
        self.lease = max(0.1, settings.review_lease)
        self.hold = float(os.environ.get(TEST_HOLD) or 0)
        count = max(1, settings.review_consumers)
        self.consumers = [f"{settings.process_id}-{n}" for n in range(count)]
        #: Jobs done (computed or found done), by kind: for logs and tests.
        self.done: dict[str, int] = {"hand": 0, "match": 0}

    async def run(self, stop: asyncio.Event) -> None:
        """Take and compute jobs until ``stop`` is set; then finish the jobs in hand (for up
        to :data:`STOP_WAIT` seconds) and forget this worker's consumers."""
        await self._group()
        tasks = [asyncio.ensure_future(self._consume(name)) for name in self.consumers]
        tasks.append(asyncio.ensure_future(self._forget_gone()))
        try:
            await stop.wait()
        finally:
            self._stopping = True
            _, late = await asyncio.wait(tasks, timeout=STOP_WAIT)
            for task in late:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            with contextlib.suppress(Exception):
                await self.store.forget_review_consumers(self.consumers)

    async def _group(self) -> None:
        delay = 0.1
        while not self._stopping:
            try:
                await self.store.review_jobs_group()
                return
            except KingsCornerError as exc:
                log.warning("review jobs: cannot reach the store (%s); trying again", exc.code)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)

    async def _consume(self, name: str) -> None:
        delay = 0.1
        lease_ms = int(self.lease * 1000)
        while not self._stopping:
            try:
                jobs = await self.store.claim_review_jobs(name, lease_ms, 1)
                for ident, _, times in jobs:
                    log.warning("review job %s taken over (delivery %d)", ident, times)
                if not jobs:
                    jobs = await self.store.read_review_jobs(name, 1, BLOCK_MS)
                delay = 0.1
            except KingsCornerError as exc:
                log.warning("review jobs: cannot reach the store (%s); trying again", exc.code)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
                continue
            for ident, job, times in jobs:
                await self._do(name, ident, job, times)

    async def _do(self, name: str, ident: str, job: dict[str, Any], times: int) -> None:
        """Compute one job and acknowledge it; a job that cannot be computed now (the
        store is down, a worker process died) stays pending, for the lease to give it to
        a consumer again."""
        record = job.get("record") or {}
        if times > MAX_DELIVERIES or not record:
            log.error("review job %s dropped (delivered %d times): %s", ident, times, job)
            await self._finish(ident)
            return
        holding = asyncio.ensure_future(self._hold(name, ident))
        started = time.monotonic()
        try:
            if self.hold:
                await asyncio.sleep(self.hold)
            await self._compute(job)
        except BrokenProcessPool:
            log.error("a review worker process died; starting new ones (job %s left)", ident)
            await self._replace_executor()
            return
        except KingsCornerError as exc:
            log.warning("review job %s left for later: %s", ident, exc.code)
            return
        except Exception:  # a record that does not replay: doing it again would not help
            log.exception("review job %s (match %s) failed; dropped", ident, record.get("id"))
        else:
            log.info(
                "review job done",
                extra={
                    "job": ident,
                    "kind": job.get("kind"),
                    "match": record.get("id"),
                    "seconds": round(time.monotonic() - started, 3),
                },
            )
        finally:
            holding.cancel()
        await self._finish(ident)

    async def _finish(self, ident: str) -> None:
        try:
            await self.store.finish_review_job(ident)
        except KingsCornerError as exc:  # done anyway: taken over later and found done
            log.warning("review job %s not acknowledged: %s", ident, exc.code)

    async def _hold(self, name: str, ident: str) -> None:
        """Renew ``name``'s hold on job ``ident`` every third of the lease."""
        while True:
            await asyncio.sleep(self.lease / 3)
            with contextlib.suppress(KingsCornerError):
                await self.store.hold_review_job(name, ident)

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, fn, *args)

    async def _compute(self, job: dict[str, Any]) -> None:
        record: dict[str, Any] = job["record"]
        match_id = str(record["id"])
        seats = people_seats(record)
        kind = job.get("kind")
        if not seats or await self.store.get_review(match_id) is not None:
            self.done[str(kind)] = self.done.get(str(kind), 0) + 1
            return
        if kind == "hand":
            hand = int(job["hand"])
            judged = await self._run(review_hand, record, hand, seats)
            await self.store.save_review_hand(match_id, hand, kept_form(record, hand, judged))
        elif kind == "match":
            hands = 1 + sum(1 for entry in record["log"] if entry == NEXT_HAND)
            kept = await self.store.get_review_hands(match_id)
            found: dict[int, list[dict[str, Any]]] = {seat: [] for seat in seats}
            for hand in range(hands):
                known = kept_hand(kept, hand, seats, record)
                if known is None:
                    known = await self._run(review_hand, record, hand, seats)
                for seat, items in known.items():
                    found[seat].extend(items)
            review = await self._run(summarize, record, found)
            await self.store.save_review(match_id, review)
        else:
            raise ValueError(f"unknown review job kind {kind!r}")
        self.done[str(kind)] = self.done.get(str(kind), 0) + 1

    async def _replace_executor(self) -> None:
        broken = self.executor
        async with self._replacing:
            if self.executor is not broken or self._replace is None:
                return
            broken.shutdown(wait=False, cancel_futures=True)
            self.executor = await self._replace()

    async def _forget_gone(self) -> None:
        """Now and then, forget the consumers of workers that are gone (holding no job)."""
        idle_ms = int(max(FORGET_AFTER, 10 * self.lease) * 1000)
        while not self._stopping:
            with contextlib.suppress(KingsCornerError):
                gone = await self.store.forget_review_consumers(idle_ms=idle_ms)
                if gone:
                    log.info("forgot %d review consumers of workers that are gone", gone)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopped(), FORGET_EVERY)

    async def _stopped(self) -> None:
        while not self._stopping:
            await asyncio.sleep(0.2)


async def run(settings: Settings, stop: asyncio.Event | None = None) -> None:
    """Run a worker until SIGINT or SIGTERM (or ``stop``)."""
    if not settings.redis_url:
        raise SystemExit("kings-corner worker: needs a Redis store (--redis-url or REDIS_URL)")
    try:
        # Reads block for BLOCK_MS: the store's timeout must be longer.
        store = RedisStore(
            settings.redis_url, settings.redis_prefix, timeout=max(2.0, 3 * BLOCK_MS / 1000)
        )
    except ValueError as exc:
        raise SystemExit(f"kings-corner worker: bad --redis-url: {exc}") from None
    count = max(1, settings.review_consumers)
    executor = await review_processes(count)
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)

    async def replace() -> Executor:
        return await review_processes(count)

    worker = ReviewWorker(settings, store, executor, replace)
    log.info("review worker started", extra={"consumers": worker.consumers})
    print(f"kings-corner worker: {count} consumers of review jobs", flush=True)
    try:
        await worker.run(stop)
    finally:
        worker.executor.shutdown(wait=False, cancel_futures=True)
        await store.close()


def main(argv: Sequence[str]) -> int:
    """``kings-corner worker [--redis-url URL] [--review-consumers N] ...``: settings from
    ``argv`` and ``KC_*`` as the server's (see server.config)."""
    from . import logs
    from .config import load
    from .event_loop import loop_factory

    settings = load(argv, prog="kings-corner worker")
    logs.setup(settings.log_level, settings.log_format)
    with asyncio.Runner(loop_factory=loop_factory(settings.uvloop)) as runner:
        runner.run(run(settings))
    return 0


__all__ = ["ReviewWorker", "main", "run"]
