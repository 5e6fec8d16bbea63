"""An idle room costs the store no read a tick: news arrives by announcement, and the log is
read again only when an announcement may have been missed (the store's ``gaps`` moved) or
every ``CATCH_UP_EVERY`` ticks as a safety net."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from clients.net import GameClient
from server.app import GameServer, port_of, start_server
from server.room_driver import CATCH_UP_EVERY
from tests.redis_helpers import PrivateRedis

from .conftest import ClientFactory, make_settings

TICK = 0.05
pytestmark = pytest.mark.settings(tick=TICK)


def count_reads(server: GameServer, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the room code of every log read the server makes from now on."""
    reads: list[str] = []
    store: Any = server.store
    original: Callable[..., Awaitable[Any]] = store.read

    async def read(code: str, after: int = 0) -> Any:
        reads.append(code)
        return await original(code, after)

    monkeypatch.setattr(store, "read", read)
    return reads


async def test_idle_rooms_are_read_once_per_safety_interval(
    server: GameServer, client: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    codes = []
    for n in range(5):
        host = await client(f"Host{n}")
        codes.append(await host.create(seats=2))
    await asyncio.sleep(3 * TICK)  # each room's first tick reads it once
    reads = count_reads(server, monkeypatch)
    ticks = 2 * CATCH_UP_EVERY
    await asyncio.sleep(ticks * TICK)
    # At most one read per room per CATCH_UP_EVERY ticks (a busy machine ticks less often),
    # where every tick used to read every room.
    for code in codes:
        assert reads.count(code) <= 3, (code, reads.count(code))
    assert len(reads) < len(codes) * ticks / 4


async def test_a_lost_announcement_is_still_caught_up(
    server: GameServer, client: ClientFactory
) -> None:
    host = await client("Ana")
    code = await host.create(seats=2)
    live = server.lobby.rooms[code]
    version = live.room.version
    # Stored without an announcement, as if the announcement had been lost on its way.
    await server.store.append(code, version, [{"e": "ready", "seat": 0, "ready": True}])
    # The safety net reads it within CATCH_UP_EVERY ticks; the host is told.
    await host.until(lambda c: c.version == version + 1, 2 * CATCH_UP_EVERY * TICK + 10)


async def test_a_lost_announcement_connection_makes_every_room_read_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    own = PrivateRedis(tmp_path)  # its only subscriber is this server's
    own.start()
    game = await start_server(make_settings(redis_url=own.url, tick=TICK))
    host = GameClient(f"ws://127.0.0.1:{port_of(game)}/", "Ana")
    db = aioredis.Redis.from_url(own.url)
    try:
        await host.connect()
        code = await host.create(seats=2)
        await asyncio.sleep(3 * TICK)
        gaps = game.store.gaps
        reads = count_reads(game, monkeypatch)
        await asyncio.sleep(3 * TICK)
        assert reads.count(code) == 0  # a healthy connection: no read
        # Cut the announcement connection: whatever was published meanwhile could be lost.
        killed = await db.execute_command("CLIENT", "KILL", "TYPE", "pubsub")
        assert killed == 1

        async def moved_and_read() -> None:
            while game.store.gaps == gaps or code not in reads:
                await asyncio.sleep(TICK)

        await asyncio.wait_for(moved_and_read(), CATCH_UP_EVERY * TICK / 2 + 5)
    finally:
        await db.aclose()
        await host.close()
        await game.shutdown()
        own.stop()
