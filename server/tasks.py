"""The background tasks of one server process, and whether it is shutting down."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any


class Tasks:
    """Tasks started on their own (recording a match, filling a quick-play table, loading a
    room), kept so they are not collected mid-flight and are cancelled together at shutdown.

    ``closing`` is set once shutdown begins: nothing new should be scheduled after that.
    """

    def __init__(self) -> None:
        self.closing = False
        self._tasks: set[asyncio.Future[Any]] = set()
        self._finishing: set[asyncio.Future[Any]] = set()

    def spawn(self, coro: Awaitable[Any], finish: bool = False) -> asyncio.Future[Any]:
        """Run ``coro`` in the background until it ends or the process closes; with
        ``finish``, shutdown waits for it (:meth:`finish`) instead of cancelling it."""
        task = self.track(asyncio.ensure_future(coro))
        if finish:
            self._finishing.add(task)
            task.add_done_callback(self._finishing.discard)
        return task

    async def finish(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for the tasks spawned with ``finish``."""
        if self._finishing:
            await asyncio.wait(list(self._finishing), timeout=timeout)

    def track(self, task: asyncio.Future[Any]) -> asyncio.Future[Any]:
        """Keep ``task`` until it is done."""
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def __len__(self) -> int:
        return len(self._tasks)

    def cancel_all(self) -> None:
        for task in list(self._tasks):
            task.cancel()
