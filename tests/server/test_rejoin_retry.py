"""A reconnection whose ``join`` is refused with ``store_unavailable`` (the store away for a
moment) joins again: the Python client library does not leave its person out of the room."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.errors import StoreUnavailable
from server.app import GameServer

from .conftest import ClientFactory


async def test_a_refused_rejoin_is_sent_again_and_the_seat_comes_back(
    server: GameServer, client: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    ana = await client("Ana", reconnect=True)
    code = await ana.create(seats=2, bots=[None, "random"])
    await ana.start()
    await ana.until(lambda c: c.game is not None)
    refused: list[str] = []
    rejoin = server.lobby.rejoin

    async def once_unavailable(conn: Any, room: str, token: str) -> None:
        if not refused:
            refused.append(room)
            raise StoreUnavailable()
        await rejoin(conn, room, token)

    monkeypatch.setattr(server.lobby, "rejoin", once_unavailable)
    errors, start = len(ana.errors), len(ana.frames)
    assert ana.ws is not None
    await ana.ws.close()
    await ana.until(lambda c: c.reconnects == 1)
    await ana.until(lambda c: any(e["code"] == "store_unavailable" for e in c.errors[errors:]))
    # Sent again a moment later: the seat and the table come back.
    await ana.until(lambda c: any(f["type"] == "joined" for f in c.frames[start:]))
    assert refused == [code] and ana.seat == 0
    seat = server.lobby.rooms[code].room.seats[0]
    assert seat is not None and seat.connected
