"""Bots for the rooms of one process: making them, and asking them to move or hint.

Every decision runs in the bot workers (:mod:`server.bot_pool`), never on the event loop: a
turn a person waits for in the small pool at the server's priority, the rest at idle priority.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from protocol.engine import Action

from .bot_pool import BotPool, BotSeat
from .metrics import Metrics
from .tasks import Tasks


class BotRunner:
    """The bot levels this server offers and the workers that think for them."""

    def __init__(
        self,
        workers: int,
        metrics: Metrics,
        tasks: Tasks,
        urgent_workers: int,
        idle_class: bool = True,
    ) -> None:
        self.pool = BotPool(workers, urgent_workers, idle_class)
        self._metrics = metrics
        self._tasks = tasks

    @property
    def levels(self) -> tuple[str, ...]:
        from protocol import bots

        return tuple(getattr(bots, "LEVELS", ()))

    def make(self, level: str, seed: str, timed: bool = True) -> BotSeat:
        """A new bot for a seat.

        ``timed=False`` takes the clock away: each search does its whole work, so the bot
        answers the same position the same way however busy the machine is (daily deals).
        """
        return BotSeat(level, seed) if timed else BotSeat(level, seed, budget_ms=None)

    async def choose(self, bot: BotSeat, view: dict[str, Any], urgent: bool = False) -> Action:
        """``bot``'s action for ``view``, timed from the request to the answer (waiting for
        a worker included). ``urgent``: a person waits for it (they play the room and watch
        it), so it is thought at the server's priority rather than the idle workers'."""
        if self._tasks.closing:
            raise asyncio.CancelledError()  # the bot workers are gone; the driver stops
        start = time.perf_counter()
        action = await self.pool.choose(bot, view, urgent)
        self._metrics.bot_decision.labels(bot.level).observe(time.perf_counter() - start)
        return action

    async def hint(self, view: dict[str, Any]) -> Action:
        """The action suggested to a person for ``view`` (their own seat's view)."""
        return await self.pool.hint(view)

    def shutdown(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
