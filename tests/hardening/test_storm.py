"""A reconnect storm: every connection of a busy server drops at once and comes back with
its token. Everyone must be back in their own seat with their own hand, nobody in two
seats or in someone else's, and the only trace in the rooms' logs is presence."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest

from clients.net import GameClient
from server.app import GameServer
from server.store.base import Store
from server.store.redis_store import RedisStore

from .helpers import UNIT, Clients, fast_settings, play_moves, serving, settle, table

ROOMS = 20
SEATS = 4


@pytest.fixture(params=["memory", "redis"])
async def store(
    request: pytest.FixtureRequest, redis_url: str, redis_prefix: str
) -> AsyncIterator[Store | None]:
    """None: the server builds its default in-memory store."""
    # Twenty rooms set up at once on a busy machine: a command may wait longer than the
    # default 2 s, and this test is about seats, not the store's timeout.
    yield None if request.param == "memory" else RedisStore(redis_url, redis_prefix, timeout=10.0)


async def busy_tables(pool: Clients) -> list[list[GameClient]]:
    """ROOMS rooms of SEATS people each, a few moves into their match."""

    async def one(i: int) -> list[GameClient]:
        players = await table(pool, SEATS, seats=SEATS, target=500)
        await play_moves(players, random.Random(i), 3 + i % 5)
        return players

    return list(await asyncio.gather(*(one(i) for i in range(ROOMS))))


async def come_back(pool: Clients, old: GameClient) -> GameClient:
    new = GameClient(pool.url, old.name)
    pool.made.append(new)
    await new.connect()
    assert old.room is not None and old.token is not None
    await new.join(old.room, token=old.token)
    return new


def everyone_connected(c: GameClient) -> bool:
    return c.doc is not None and all(s["connected"] for s in c.doc["room"]["seats"])


async def test_everyone_is_back_in_their_own_seat_after_a_reconnect_storm(
    store: Store | None,
) -> None:
    async with serving(fast_settings(grace=3600.0), store) as game:
        pool = Clients(game)
        try:
            await storm(game, pool)
        finally:
            await pool.close()


async def storm(game: GameServer, pool: Clients) -> None:
    tables = await busy_tables(pool)
    # Nobody moves any more: wait until every client has seen its room's last change.
    for players in tables:
        code = players[0].room
        assert code is not None
        await settle(players, game.lobby.rooms[code].room.version)
    clients = [p for players in tables for p in players]
    before: dict[str, dict[str, Any]] = {}
    for c in clients:
        assert c.room is not None and c.seat is not None and c.game is not None
        before[f"{c.room}/{c.seat}"] = {"doc": c.snapshot_copy(), "token": c.token}
    logs = {code: await game.store.read(code) for code in game.lobby.rooms}
    assert sum(len(v) for v in logs.values()) > ROOMS * 10

    # Every connection drops at the same moment, without a closing handshake ...
    for c in clients:
        assert c.ws is not None
        c.ws.transport.abort()
    # ... and everyone comes back at once with their token.
    back = await asyncio.gather(*(come_back(pool, c) for c in clients))

    for new in back:
        await new.until(everyone_connected, timeout=100 * UNIT)
    for old, new in zip(clients, back, strict=True):
        assert new.role == "player" and (new.room, new.seat) == (old.room, old.seat)
        was = before[f"{new.room}/{new.seat}"]
        assert new.token == was["token"]
        # The same document as before the storm: the same hand, the same table.
        assert new.doc == was["doc"], f"{new.room} seat {new.seat} differs"
    # Nobody holds two seats, nobody holds another's, and the old connections are gone.
    assert len(game.connections) == ROOMS * SEATS
    for players in tables:
        live = game.lobby.rooms[players[0].room or ""]
        assert set(live.audience.viewers) == set(range(SEATS))  # no spectators either
        assert all(len(conns) == 1 for conns in live.audience.viewers.values())
    # The storm left nothing in the logs but presence, and every room is where it was.
    for code, events in logs.items():
        now = await game.store.read(code)
        assert now[: len(events)] == events, code
        extra = {e["e"] for e in now[len(events) :]}
        assert extra <= {"presence"}, (code, extra)
    # And the matches go on.
    for players in tables:
        mine = [b for b in back if b.room == players[0].room]
        assert await play_moves(mine, random.Random(0), 1) == 1
