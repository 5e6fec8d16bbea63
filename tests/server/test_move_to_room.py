"""A client that entered a room on a connection not naming it moves to one that does.

After a ``create`` (or quick play) the connection's URL names no room, so a load balancer
routing by room could not have put it with the room's other players. A client made with
``move_to_room=True`` opens a connection at ``/?room=CODE``, takes its seat there with its
token and closes the first with 1000 ``moved``: the seat is never shown gone. A client that
says it moved but never arrives is noticed by the maintenance ticks, as after a crash.
Across processes behind the real nginx: tests/deploy/test_room_routing.py.
"""

from __future__ import annotations

import orjson
import pytest
from websockets.asyncio.client import connect

from clients.net import GameClient, room_url
from server.app import GameServer, port_of

from .conftest import ClientFactory

pytestmark = pytest.mark.settings(tick=0.2, grace=0.3)


async def test_a_creator_moves_to_a_connection_naming_its_room_and_plays_on(
    server: GameServer, client: ClientFactory
) -> None:
    ana = await client("Ana", move_to_room=True)
    first = ana.ws
    code = await ana.create(seats=2, target=5, bots=[None, "random"])
    assert ana.moves == 1
    assert ana.connected_url == room_url(ana.url, code)
    assert first is not None and first.close_code == 1000 and first.close_reason == "moved"
    assert ana.room == code and ana.seat == 0 and ana.doc is not None
    # The server holding both connections told the first one "left" (its seat went to the
    # second); the client no longer read it, so nothing undid the room it is in.
    assert all(f["type"] != "left" for f in ana.frames)
    await ana.start()
    await ana.until(lambda c: c.my_turn)
    answer = await ana.act(ana.game["legal"][0])  # type: ignore[index]
    assert answer["type"] == "patch", answer
    # The seat never looked gone: no presence change was stored.
    events = await server.store.read(code)
    assert [e for e in events if e["e"] in ("presence", "away")] == []
    assert ana.doc is not None and ana.doc["room"]["seats"][0]["connected"] is True


async def test_a_client_naming_its_room_already_does_not_move(client: ClientFactory) -> None:
    host = await client("Ana")
    code = await host.create(seats=2)
    ben = GameClient(host.url, "Ben", move_to_room=True)
    try:
        await ben.connect(code)
        await ben.join(code)
        assert ben.moves == 0 and ben.connected_url == room_url(host.url, code)
        # Without move_to_room the creator stays where it is.
        assert host.moves == 0 and host.connected_url == host.url
    finally:
        await ben.close()


async def test_a_client_that_says_it_moved_but_never_arrives_is_taken_for_gone(
    server: GameServer, client: ClientFactory
) -> None:
    async with connect(f"ws://127.0.0.1:{port_of(server)}/") as ws:
        await ws.send(orjson.dumps({"type": "hello", "version": 2, "name": "Ana"}).decode())
        create = {"type": "create", "options": {"seats": 2}, "spectate": False}
        await ws.send(orjson.dumps(create).decode())
        while True:
            frame = orjson.loads(await ws.recv())
            if frame["type"] == "joined":
                code = frame["room"]
                break
        await ws.close(1000, "moved")
    watcher = await client("Wes")
    await watcher.join(code, spectate=True)
    # No connection holds the seat anywhere: the ticks find it missing and it is shown gone.
    await watcher.until(
        lambda c: c.doc is not None and c.doc["room"]["seats"][0]["connected"] is False, 10
    )
