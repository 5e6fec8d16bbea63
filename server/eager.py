"""Run a coroutine at once, in the caller's callback, and finish it in a task only if it waits.

A client's message is handled from the socket's read callback. Most messages on the in-memory
store never wait for anything: run eagerly, they are answered before the callback returns,
without a task, a queue or a trip round the event loop. One that does wait (a contended
room lock, a bot's decision) goes on in a task from exactly where it stopped. This is what
Python 3.12's eager tasks do; this project runs on 3.11 too.

The eager part runs without a current task, so it must not use what needs one
(``asyncio.timeout``, ``TaskGroup``): the Redis client does, which is why only a store that
never leaves the process (``Store.inline``) is run this way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Generator
from contextvars import Context
from typing import Any


def start(coro: Coroutine[Any, Any, None], context: Context) -> asyncio.Task[None] | None:
    """Run ``coro`` in ``context`` up to its first wait: None if it finished (or raised,
    which propagates), else the task that finishes it."""
    try:
        waiting_on = context.run(coro.send, None)
    except StopIteration:
        return None
    except BaseException:
        coro.close()
        raise
    return asyncio.get_running_loop().create_task(_finish(coro, waiting_on), context=context)


async def _finish(coro: Coroutine[Any, Any, None], waiting_on: Any) -> None:
    await _Resume(coro, waiting_on)


class _Resume:
    """Awaitable that hands the task what ``coro`` already waits on, then drives it on."""

    __slots__ = ("_coro", "_waiting_on")

    def __init__(self, coro: Coroutine[Any, Any, None], waiting_on: Any) -> None:
        self._coro = coro
        self._waiting_on = waiting_on

    def __await__(self) -> Generator[Any, Any, None]:
        coro, waiting_on = self._coro, self._waiting_on
        self._waiting_on = None
        while True:
            try:
                sent = yield waiting_on
            except BaseException as exc:  # thrown in: a cancellation, or what it waited on failed
                # The error's traceback will hold this frame, and a finished frame keeps
                # its locals: holding the future that failed would make a reference cycle
                # (error, traceback, frame, future, error) for every failed lookup.
                waiting_on = None
                try:
                    waiting_on = coro.throw(exc)
                except StopIteration:
                    return
            else:
                waiting_on = None
                try:
                    waiting_on = coro.send(sent)
                except StopIteration:
                    return
