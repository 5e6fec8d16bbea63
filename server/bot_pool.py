"""Bot thinking off the event loop: worker processes at a lower CPU priority.

Bots are pure CPU (:mod:`protocol.bots`). In threads of the server process they hold the
GIL and stall the event loop, so every connection waits while a bot thinks. Here they run
in a :class:`~concurrent.futures.ProcessPoolExecutor` (``bot_workers`` processes, started
on the first decision, not with the server) whose workers lower their own CPU priority
(``os.nice``, and ``SCHED_IDLE`` on Linux): when the machine is busy, the kernel serves the
event loop first.

A bot keeps state between its decisions: its random stream and the rest of the turn it
planned. The server keeps that state (:class:`BotSeat`); a worker rebuilds the bot from its
level and seed, hands it the state, asks it, and sends the new state back
(:func:`protocol.bots.decide`). Any worker can serve any decision, and the answers are
exactly those of one bot object asked in order: in the daily deal the same moves get the
same answers in everyone's room.

The rest of a turn a bot planned is played from its memory right here, without a worker
(:func:`protocol.bots.follow_plan`, microseconds): only thinking waits for one.

Jobs wait here, not in the executor: at most :data:`PER_WORKER` per worker are handed to
it at once, and a person's hint goes ahead of every waiting bot decision.

A turn a person waits for (an *urgent* decision: a person plays the room and watches it)
and every hint go to a second, small pool (``urgent_workers`` processes, a setting) at the
server's own priority: on a host with other busy processes an idle-class worker may wait
seconds for a CPU, and the person with it. Each of those decisions is still bounded by the
bot's think budget, and the pool is small, so it cannot take the event loop's CPU for long;
bot-only rooms, rooms nobody watches and settling matches stay in the idle workers. Both
pools start at the first decision.

The coach's reviews have two pools of their own (:data:`REVIEW_WORKERS` processes each),
each started at its first review: a review nobody has asked for yet runs idle-class, on CPU
nothing else wants; one somebody is waiting for runs niced but not idle-class, so that it
is ready even beside busy processes (:mod:`server.reviews` moves a review from one to the
other once somebody has waited a while for it).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import heapq
import itertools
import logging
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from protocol.bots import Memory, decide, follow_plan, hint
from protocol.bots.levels import DEFAULT_BUDGET_MS
from protocol.bots.review import review_hand, summarize
from protocol.engine import Action

from . import bot_boot

log = logging.getLogger(__name__)
T = TypeVar("T")

#: How much lower than the server's the workers' CPU priority is (an ``os.nice`` increment;
#: on Linux they are also in the ``SCHED_IDLE`` class, see :func:`_worker_started`).
NICE = 10
#: Jobs handed to the executor per worker at once (one computing, one ready to start).
PER_WORKER = 2
#: Threads when ``bot_workers`` is 0 (bots think in this process, as before worker processes).
THREADS = 2
#: Priorities: lower goes first. A review (the coach's, after a match) waits for every bot.
HINT, BOT, REVIEW = 0, 1, 2
#: Worker processes for the coach's reviews, in each of their two pools: reviews nobody
#: waits for yet run idle-class like unwatched bots (niced alone, a review running beside the
#: event loop took 40% of the moves a loaded 2-core server served, docs/performance.md);
#: reviews somebody asked for run niced but not idle-class, because beside busy processes the
#: idle class gets no CPU at all (a review waited minutes there). Bot decisions never queue
#: behind a review.
REVIEW_WORKERS = 1
#: The least a decision a person waits for thinks (ms), however long it queued.
MIN_URGENT_BUDGET_MS = 10.0


@dataclass(slots=True)
class BotSeat:
    """A seat's bot as the server keeps it: level, seed, what it carries between decisions
    (None before its first), and its time budget per turn (None: no clock, so its answers
    never depend on how busy the machine is)."""

    level: str
    seed: str
    memory: Memory | None = None
    budget_ms: float | None = DEFAULT_BUDGET_MS


def _worker_started(nice: int, idle: bool = True) -> None:
    """Initializer of each worker process: lower its priority; Ctrl-C is the server's.

    On Linux an ``idle`` worker also joins the ``SCHED_IDLE`` class: any ordinary process
    that wakes up (the server's event loop with a frame to answer) takes the CPU from it at
    once, where a niced process may keep it for a slice. Measured beside people's rooms, it
    halved the time the event loop waited for a CPU (docs/performance.md). The workers for
    the turns a person waits for keep the server's priority (``nice`` 0, not ``idle``).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    if nice:
        with contextlib.suppress(OSError):
            os.nice(nice)
    if idle and hasattr(os, "SCHED_IDLE"):
        with contextlib.suppress(OSError):
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))


def _die_with_parent() -> None:
    """On Linux, have the kernel kill this worker when the process that started it dies: a
    server killed with SIGKILL must not leave workers behind (holding its output pipes)."""
    pr_set_pdeathsig = 1
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() == 1:  # the parent died before the request took effect
        os._exit(0)


def _context() -> multiprocessing.context.BaseContext:
    """Forkserver where there is one: a clean process (no server threads or sockets) forked
    for each worker with the bots already imported, shared by every pool of this process;
    otherwise spawn."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        # "__main__" lets the workers skip importing the main script again (pytest, server).
        context.set_forkserver_preload(["server.bot_boot", "__main__", "server.bot_pool"])
        return context
    return multiprocessing.get_context("spawn")


def _start_workers(executor: Executor, count: int) -> None:
    """Start ``count`` workers of ``executor`` now (each submission starts one while none
    is idle) and wait until they run."""
    for future in [executor.submit(os.getpid) for _ in range(count)]:
        future.result()


def decide_by(
    asked_at: float,
    level: str,
    seed: str,
    memory: Memory | None,
    view: Mapping[str, Any],
    *,
    budget_ms: float | None,
) -> tuple[Action, Memory]:
    """:func:`~protocol.bots.decide` for a decision a person waits for: its time budget
    counts from ``asked_at`` (``time.monotonic()``, one clock for every process of the
    machine), so the time it waited for a worker is taken from its thinking rather than
    added to the person's wait (at least :data:`MIN_URGENT_BUDGET_MS` is left). A decision
    without a clock (``budget_ms`` None) is not affected."""
    if budget_ms is not None:
        waited_ms = (time.monotonic() - asked_at) * 1000.0
        budget_ms = max(MIN_URGENT_BUDGET_MS, budget_ms - waited_ms)
    return decide(level, seed, memory, view, budget_ms=budget_ms)


class _Gate:
    """At most ``limit`` holders; waiters are let in by priority, then in arrival order."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.busy = 0
        #: Waiters still waiting (the heap also holds those that gave up, until popped).
        self.waiting = 0
        self._heap: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    async def acquire(self, priority: int) -> None:
        if self.busy < self.limit and not self.waiting:
            self.busy += 1
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._heap, (priority, next(self._order), future))
        self.waiting += 1
        try:
            await future
        except asyncio.CancelledError:
            if future.cancelled():
                self.waiting -= 1
            else:
                self.release()  # the place was handed over just as the waiter gave up
            raise

    def release(self) -> None:
        """Hand the place to the first waiter, or free it."""
        while self._heap:
            _, _, future = heapq.heappop(self._heap)
            if not future.done():
                self.waiting -= 1
                future.set_result(None)
                return
        self.busy -= 1


class _Workers:
    """One pool of ``count`` worker processes at niceness increment ``nice`` (idle: also
    ``SCHED_IDLE``), or :data:`THREADS` threads of this process when ``count`` is 0."""

    def __init__(self, count: int, nice: int, idle: bool) -> None:
        self.count = max(0, count)
        self.nice = nice
        self.idle = idle
        self.executor: Executor | None = None
        self._booting: asyncio.Future[Executor] | None = None
        self.gate = _Gate(PER_WORKER * self.count if self.count else THREADS)
        self.closed = False

    async def ready(self) -> Executor:
        """The executor, its workers started (the first caller starts them, others wait)."""
        if self._booting is None:
            self._booting = asyncio.ensure_future(self._boot())
        return await asyncio.shield(self._booting)

    async def _boot(self) -> Executor:
        if self.closed:
            raise asyncio.CancelledError()  # shut down before a start ahead of time ran
        if not self.count:
            self.executor = ThreadPoolExecutor(THREADS, thread_name_prefix="bot")
            return self.executor
        # The fork server inherits the environment: it watches this process by its pid.
        os.environ[bot_boot.PARENT] = str(os.getpid())
        executor = self.executor = ProcessPoolExecutor(
            self.count,
            mp_context=_context(),
            initializer=_worker_started,
            initargs=(self.nice, self.idle),
        )
        try:
            # Starting a process blocks its caller (the first one also starts the fork
            # server): done in a thread, it never holds up the event loop.
            await asyncio.to_thread(_start_workers, executor, self.count)
        except BaseException:
            if self.executor is executor:
                self.discard()  # the next decision tries again
            raise
        return executor

    @property
    def asked(self) -> bool:
        """True once started or starting."""
        return self._booting is not None

    @property
    def broken(self) -> bool:
        """True once one of its worker processes died (the executor noticed it)."""
        return bool(getattr(self.executor, "_broken", False))

    def discard(self) -> None:
        executor, self.executor, self._booting = self.executor, None, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)

    def shutdown(self, wait: bool, cancel_futures: bool) -> None:
        self.closed = True
        if self.executor is not None:
            self.executor.shutdown(wait=wait, cancel_futures=cancel_futures)


class BotPool:
    """Where bots think: ``workers`` idle-priority processes (0: threads of this process),
    and ``urgent_workers`` processes at the server's priority for the decisions a person
    waits for (none without idle workers: then everything goes to the threads).
    ``idle_class`` False keeps the idle workers out of ``SCHED_IDLE`` (only niced).

    Nothing starts until the first decision; :meth:`shutdown` stops the workers.
    """

    def __init__(self, workers: int, urgent_workers: int, idle_class: bool = True) -> None:
        self.workers = max(0, workers)
        self._idle = _Workers(self.workers, NICE, idle=idle_class)
        self._urgent = (
            _Workers(urgent_workers, 0, idle=False) if self.workers and urgent_workers > 0 else None
        )
        # Reviews: processes of their own, idle-class until somebody waits for one (none
        # without worker processes: then they share the idle threads).
        self._review = _Workers(REVIEW_WORKERS, NICE, idle=idle_class) if self.workers else None
        self._review_asked = _Workers(REVIEW_WORKERS, NICE, idle=False) if self.workers else None
        self._closed = False

    @property
    def _executor(self) -> Executor | None:
        """The idle workers' executor (None until started)."""
        return self._idle.executor

    @property
    def started(self) -> bool:
        """True once the workers (or threads) were started."""
        return self._idle.executor is not None

    @property
    def waiting(self) -> int:
        """Jobs waiting for a worker (not yet handed to an executor)."""
        return self._idle.gate.waiting + (self._urgent.gate.waiting if self._urgent else 0)

    async def choose(self, bot: BotSeat, view: Mapping[str, Any], urgent: bool = False) -> Action:
        """``bot``'s action for ``view``; its memory is updated for the next decision.

        ``urgent``: a person waits for it, so it goes to the workers at normal priority
        (same answer: any worker gives the same one), and the time it waits for a worker
        counts against its think budget (:func:`decide_by`). The rest of a turn the bot planned is
        played from its memory here (microseconds); only thinking goes to a worker.
        """
        answer = follow_plan(bot.memory, view)
        if answer is None:
            pool, job = self._idle, decide
            if urgent:
                pool, job = self._urgent or self._idle, partial(decide_by, time.monotonic())
            answer = await self._run(
                pool, BOT, job, bot.level, bot.seed, bot.memory, view, budget_ms=bot.budget_ms
            )
        action, bot.memory = answer
        return action

    async def hint(self, view: Mapping[str, Any]) -> Action:
        """The expert's suggestion for the seat of ``view`` (a person waits for it), ahead of
        waiting bot decisions."""
        return await self._run(self._urgent or self._idle, HINT, hint, view)

    @property
    def reviews_asked_apart(self) -> bool:
        """True when a review somebody waits for runs in workers of its own (with worker
        processes; without them every review shares the idle threads)."""
        return self._review_asked is not None

    async def review_hand(
        self, record: Mapping[str, Any], hand: int, seats: list[int], *, asked: bool = False
    ) -> dict[int, list[dict[str, Any]]]:
        """The coach's judgement of ``seats``' decisions in hand ``hand`` of a finished match
        (:func:`protocol.bots.review.review_hand`), in a review worker
        (:data:`REVIEW_WORKERS`): idle-class, or, ``asked`` (somebody waits for it), niced
        but not idle-class."""
        pool = (self._review_asked if asked else self._review) or self._idle
        return await self._run(pool, REVIEW, review_hand, record, hand, seats)

    async def review_summary(
        self,
        record: Mapping[str, Any],
        turns: Mapping[int, list[dict[str, Any]]],
        *,
        asked: bool = False,
    ) -> dict[str, Any]:
        """The review document of a finished match from its judged hands
        (:func:`protocol.bots.review.summarize`: the turns shown get their fork, chance to
        win and reason), in a review worker as :meth:`review_hand` is."""
        pool = (self._review_asked if asked else self._review) or self._idle
        return await self._run(pool, REVIEW, summarize, record, turns)

    async def _ready(self, pool: _Workers) -> Executor:
        """``pool``'s executor; both pools start at the first decision. A pool whose worker
        died is started afresh at the next decision, whichever pool it asks."""
        if pool.broken:
            log.error("a bot worker process died; starting new ones")
            pool.discard()
        pools = [p for p in (self._idle, self._urgent) if p is not None]
        for other in pools:
            if other.broken:
                log.error("a bot worker process died; starting new ones")
                other.discard()
        for other in pools:
            reviewing = pool is self._review or pool is self._review_asked
            if other is not pool and not other.asked and not reviewing:
                self._start_soon(other)
        return await pool.ready()

    def _start_soon(self, pool: _Workers) -> None:
        task = asyncio.ensure_future(pool.ready())
        task.add_done_callback(_ignore_failure)

    async def _run(
        self, pool: _Workers, priority: int, fn: Callable[..., T], *args: Any, **kwargs: Any
    ) -> T:
        if self._closed:
            raise asyncio.CancelledError()  # shutting down: the caller stops
        await pool.gate.acquire(priority)
        try:
            for attempt in range(2):
                try:
                    executor = await self._ready(pool)
                    if self._closed:
                        raise asyncio.CancelledError()
                    return await asyncio.wrap_future(executor.submit(fn, *args, **kwargs))
                except BrokenProcessPool:
                    if self._closed:
                        raise asyncio.CancelledError() from None
                    # A worker died (killed, out of memory): start new ones, once.
                    log.error("a bot worker process died; starting new ones")
                    if pool.executor is executor:
                        pool.discard()
                    if attempt:
                        raise
            raise AssertionError("unreachable")  # pragma: no cover
        finally:
            pool.gate.release()

    def shutdown(self, wait: bool = False, cancel_futures: bool = True) -> None:
        """Stop the workers: decisions not started are cancelled, and nothing new starts.

        The same signature as :meth:`concurrent.futures.Executor.shutdown`.
        """
        self._closed = True
        for pool in (self._idle, self._urgent, self._review, self._review_asked):
            if pool is not None:
                pool.shutdown(wait=wait, cancel_futures=cancel_futures)


async def review_processes(count: int) -> Executor:
    """``count`` worker processes for the review tier (``kings-corner worker``), started
    now: niced (:data:`NICE`) but not idle-class (a review worker shares its host with
    nothing that must go first, or with game servers that should), each ending when this
    process ends, however it ends. 0: threads of this process."""
    return await _Workers(count, NICE, idle=False).ready()


def _ignore_failure(task: asyncio.Future[Any]) -> None:
    """A pool started ahead of its first job failed: its first job tries again (and says)."""
    if not task.cancelled():
        task.exception()


__all__ = [
    "BOT",
    "HINT",
    "NICE",
    "REVIEW",
    "REVIEW_WORKERS",
    "BotPool",
    "BotSeat",
    "review_processes",
]
