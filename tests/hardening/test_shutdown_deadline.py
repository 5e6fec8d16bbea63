"""Shutdown keeps its deadline: every connection closes at the same time, and peers that
never answer the closing handshake are dropped when ``shutdown_timeout`` runs out, instead
of each holding the exit up for the close timeout in turn (20 frozen clients used to take
40 s)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from websockets.asyncio.client import ClientConnection, connect

from server.app import GameServer, port_of, start_server
from server.config import Settings

from .helpers import UNIT, default_settings, eventually, ws_url
from .rawws import RawClient

T = TypeVar("T")


async def in_batches(make: Callable[[], Awaitable[T]], count: int, batch: int = 50) -> list[T]:
    made: list[T] = []
    while len(made) < count:
        n = min(batch, count - len(made))
        made.extend(await asyncio.gather(*(make() for _ in range(n))))
    return made


async def crowd(
    game: GameServer, answering: int, frozen: int
) -> tuple[list[ClientConnection], list[RawClient]]:
    """``answering`` library clients (they answer the closing handshake by themselves) and
    ``frozen`` raw ones that completed the opening handshake and then never read again."""
    url, port = ws_url(game), port_of(game)
    people = await in_batches(lambda: connect(url, open_timeout=100 * UNIT), answering)
    stuck = await in_batches(lambda: RawClient.open(port, rcvbuf=4096), frozen)
    await eventually(lambda: len(game.connections) == answering + frozen, within=300 * UNIT)
    return people, stuck


async def shut_down(
    settings: Settings, answering: int, frozen: int
) -> tuple[float, list[ClientConnection], list[RawClient]]:
    game = await start_server(settings)
    people: list[ClientConnection] = []
    stuck: list[RawClient] = []
    try:
        people, stuck = await crowd(game, answering, frozen)
        started = time.monotonic()
        await game.shutdown()
        elapsed = time.monotonic() - started
    except BaseException:
        for raw in stuck:
            raw.abort()
        for ws in people:
            ws.transport.abort()
        await game.shutdown()
        raise
    return elapsed, people, stuck


async def check_everyone_was_closed(people: list[ClientConnection], stuck: list[RawClient]) -> None:
    async with asyncio.timeout(100 * UNIT):
        await asyncio.gather(*(ws.wait_closed() for ws in people))
    assert {ws.close_code for ws in people} == {1001}
    try:
        # The frozen clients' TCP connections are gone (whatever they left unread).
        for raw in stuck:
            assert await raw.eof(timeout=50 * UNIT)
    finally:
        for raw in stuck:
            with contextlib.suppress(Exception):
                raw.abort()


async def test_a_thousand_clients_of_which_a_hundred_are_frozen_close_together() -> None:
    # A deadline far off, so that only the frozen peers' close timeouts (2 s) can end it.
    settings = default_settings(close_timeout=2.0, shutdown_timeout=120.0)
    elapsed, people, stuck = await shut_down(settings, 900, 100)
    # Each frozen peer is waited for, all of them at once: about one close timeout plus the
    # cleanup of a thousand connections (2.0 s on a quiet 2-core machine, 5.6 s under
    # three busy processes). One after another they would take 100 x 2 s = 200 s; the
    # bound is ten in a row, wide enough for a busy machine and still far below that.
    assert elapsed < 20.0, f"shutdown took {elapsed:.1f}s"
    await check_everyone_was_closed(people, stuck)


async def test_peers_still_closing_at_the_deadline_are_dropped() -> None:
    # A close timeout far past the deadline: only the deadline ends the wait.
    settings = default_settings(close_timeout=60.0, shutdown_timeout=1.0)
    elapsed, people, stuck = await shut_down(settings, 20, 20)
    # The deadline, then at most a second for the handlers to clean up.
    assert 1.0 <= elapsed < 2.5, f"shutdown took {elapsed:.1f}s"
    await check_everyone_was_closed(people, stuck)


def test_the_shipped_shutdown_timeout() -> None:
    assert Settings().shutdown_timeout == 5.0
