"""Presence records lapse when a process cannot reach the store for a while (a fail-over):
nobody is taken for gone on that evidence alone, and a seat marked gone anyway is claimed
back by the process that holds its connection."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections.abc import AsyncIterator

import pytest

from clients.net import GameClient
from server.app import GameServer, port_of, start_server
from tests.redis_helpers import delete_prefix, redis_prefix, redis_url

from .conftest import make_settings

# Short ticks leave no room for a busy machine: a process whose loop stalls for three ticks
# is, by design, taken for gone (0.1 s failed under load, and so did 0.3 s once: a process
# whose heartbeats resumed took 1.5 s to beat again with two busy loops beside it).
TICK = 0.5

__all__ = ["redis_prefix", "redis_url"]  # fixtures


@pytest.fixture
async def pair(redis_url: str, redis_prefix: str) -> AsyncIterator[list[GameServer]]:
    settings = make_settings(redis_url=redis_url, redis_prefix=redis_prefix, tick=TICK, grace=0.3)
    servers = [
        await start_server(dataclasses.replace(settings, process_id=uuid.uuid4().hex[:8]))
        for _ in range(2)
    ]
    try:
        yield servers
    finally:
        for game in servers:
            await game.shutdown()
        await delete_prefix(redis_url, redis_prefix)


def stop_beating(game: GameServer) -> None:
    assert game._maintenance is not None
    game._maintenance.cancel()


def beat_again(game: GameServer) -> None:
    game._maintenance = asyncio.create_task(game.maintenance.run())


async def two_people(a: GameServer, b: GameServer) -> tuple[GameClient, GameClient, str]:
    ana = await GameClient(f"ws://127.0.0.1:{port_of(a)}/", "Ana").connect()
    code = await ana.create(seats=2)
    ben = await GameClient(f"ws://127.0.0.1:{port_of(b)}/", "Ben").connect()
    await ben.join(code)
    await ana.until(lambda c: seat(c, 1).get("connected") is True)
    return ana, ben, code


def seat(c: GameClient, index: int) -> dict[str, object]:
    """The seat as ``c`` sees it (empty while it is free or not yet known)."""
    entry: dict[str, object] | None = c.doc["room"]["seats"][index] if c.doc else None
    return entry or {}


async def test_a_seat_marked_gone_while_its_heartbeats_lapsed_is_claimed_back(
    pair: list[GameServer],
) -> None:
    a, b = pair
    ana, ben, _ = await two_people(a, b)
    try:
        stop_beating(b)  # Ben's records lapse; process a takes him for gone
        await ana.until(lambda c: seat(c, 1).get("connected") is False, timeout=10)
        beat_again(b)
        await ana.until(
            lambda c: seat(c, 1).get("connected") is True and seat(c, 1).get("away") is False,
            timeout=10,
        )
        await ben.until(lambda c: seat(c, 1).get("connected") is True, timeout=10)
    finally:
        await ana.close()
        await ben.close()


async def test_a_process_whose_heartbeats_resume_takes_nobody_for_gone_at_once(
    pair: list[GameServer],
) -> None:
    a, b = pair
    ana, ben, code = await two_people(a, b)
    try:
        stop_beating(a)
        stop_beating(b)
        await asyncio.sleep(TICK * 6)  # every presence record has expired
        beat_again(b)  # b first: Ana's records (on a) are still missing for a while
        await asyncio.sleep(TICK * 1.5)
        beat_again(a)
        await asyncio.sleep(TICK * 8)
        events = await a.store.read(code)
        flips = [e for e in events if e["e"] in ("presence", "away")]
        assert not [e for e in flips if e.get("connected") is False], flips
        assert seat(ana, 0).get("connected") is True and seat(ben, 0).get("connected") is True
    finally:
        await ana.close()
        await ben.close()
