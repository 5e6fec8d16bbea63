"""A store that goes backwards under a running server, on both stores.

The store is made to lose a room's last events (as Redis does after a crash under
``appendfsync everysec`` or a fail-over to a lagging replica), optionally followed by another
history of the same length. The server must notice by itself, reload, tell its viewers
(``rewound``, then a snapshot of the stored state) and go on from the stored history.
"""

from __future__ import annotations

import os
from typing import Any

import redis.asyncio as aioredis

from clients.net import GameClient
from server.app import GameServer
from server.store.redis_store import RedisStore
from tests.invariants import replay
from tests.redis_helpers import DEFAULT_REDIS_URL

from .conftest import ClientFactory


async def truncate(server: GameServer, code: str, keep: int) -> None:
    """Make the store forget every event of ``code`` after the first ``keep``."""
    store: Any = server.store._store  # type: ignore[attr-defined]
    if isinstance(store, RedisStore):
        url = os.environ.get("REDIS_URL", DEFAULT_REDIS_URL)
        link = aioredis.from_url(url)
        try:
            await link.ltrim(store._room(code, "events"), 0, keep - 1)
        finally:
            await link.aclose()
    else:
        del store._rooms[code][keep:]


async def a_match(client: ClientFactory) -> tuple[GameClient, GameClient, str]:
    host = await client("Ana")
    code = await host.create(seats=2, target=25)
    guest = await client("Ben")
    await guest.join(code)
    await guest.ready()
    await host.start()
    await guest.until(lambda c: c.game is not None)
    return host, guest, code


async def play_one(players: list[GameClient]) -> None:
    mover = next(p for p in players if p.my_turn)
    assert mover.game is not None
    reply = await mover.act(mover.game["legal"][-1])
    assert reply["type"] == "patch", reply


async def test_a_store_that_lost_its_last_events_is_noticed_and_followed(
    client: ClientFactory, server: GameServer
) -> None:
    host, guest, code = await a_match(client)
    players = [host, guest]
    for _ in range(3):
        await play_one(players)
    live = server.lobby.rooms[code]
    ahead = live.room.version
    await truncate(server, code, ahead - 2)
    # Nobody acts: the maintenance round finds out by itself.
    for p in players:
        await p.until(lambda c: any(f["type"] == "rewound" for f in c.frames), 10)
        await p.until(lambda c: c.version == ahead - 2)
    notice = next(f for f in host.frames if f["type"] == "rewound")
    assert (notice["from"], notice["to"]) == (ahead, ahead - 2)
    stored = replay(await server.store.read(code))
    for p in players:
        assert p.doc == stored.doc(p.seat)
    await play_one(players)
    replay(await server.store.read(code))


async def test_another_history_of_the_same_length_is_not_extended(
    client: ClientFactory, server: GameServer
) -> None:
    """The store lost two events, then took two others: a version check alone is fooled."""
    host, guest, code = await a_match(client)
    players = [host, guest]
    for _ in range(2):
        await play_one(players)
    live = server.lobby.rooms[code]
    ahead = live.room.version
    await truncate(server, code, ahead - 2)
    other = [{"e": "ready", "seat": 0, "ready": True}, {"e": "ready", "seat": 1, "ready": True}]
    await server.store.append(code, ahead - 2, other)  # no chain head: like an old writer
    assert len(await server.store.read(code)) == ahead
    await play_one(players)  # refused by the store, reloaded, decided again on its history
    for p in players:
        await p.until(lambda c: any(f["type"] == "rewound" for f in c.frames), 10)
    events = await server.store.read(code)
    assert events[ahead - 2 : ahead] == other
    replay(events)
    stored = replay(events)
    for p in players:
        await p.until(lambda c, s=p.seat: c.doc == stored.doc(s), 10)


async def test_a_room_gone_from_the_store_sends_its_viewers_out(
    client: ClientFactory, server: GameServer
) -> None:
    host, guest, code = await a_match(client)
    await server.store.delete_room(code)
    for p in (host, guest):
        await p.until(lambda c: c.room is None, 10)
        assert p.frames[-1] == {"type": "left", "room": code}
    assert code not in server.lobby.rooms


async def test_a_room_an_administrator_closed_kicks_its_viewers_out_without_the_announcement(
    client: ClientFactory, server: GameServer
) -> None:
    """A process that finds the room gone before the administrator's announcement reaches
    it (none is published here) tells its viewers what the announcement would."""
    host, guest, code = await a_match(client)
    await server.store.delete_room(code, closed=True)
    for p in (host, guest):
        await p.until(lambda c: c.room is None, 10)
        assert p.frames[-1] == {"type": "kicked", "room": code}
    assert code not in server.lobby.rooms
