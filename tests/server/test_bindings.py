"""A connection acts and sees only as the seat it is bound to now.

A person may hold a seat with several connections (a refresh, a second device). Whatever
changes who holds the seat — leaving, moving, a bot taking over, a kick — every one of those
connections follows: to the new seat, or out of the room. Checked by the frames the
connections received (the hidden-card audit) and by what the server accepts from them.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

from clients.net import GameClient
from server.app import GameServer, port_of, start_server
from tests.redis_helpers import DEFAULT_REDIS_URL, delete_prefix

from .audit import Recorder, audit
from .conftest import ClientFactory, make_settings, room_logs


async def second_connection(client: ClientFactory, first: GameClient, name: str) -> GameClient:
    """Another connection of the same person, resuming ``first``'s seat with its token."""
    other = await client(name)
    other.player = first.player
    assert first.room is not None and first.token is not None
    await other.join(first.room, token=first.token)
    assert other.seat == first.seat
    return other


async def received(c: GameClient, *kinds: str) -> None:
    """Wait until ``c`` has received a frame of one of ``kinds`` (at any time so far)."""
    await c.until(lambda c: any(f["type"] in kinds for f in c.frames))


def room_frames_after(c: GameClient, start: int) -> list[dict[str, object]]:
    return [f for f in c.frames[start:] if f["type"] in ("snapshot", "patch", "hint")]


async def test_leaving_in_the_lobby_takes_every_connection_of_the_seat_out(
    client: ClientFactory, server: GameServer, recorder: Recorder
) -> None:
    host = await client("Ana")
    code = await host.create(seats=2)
    ben = await client("Ben")
    await ben.join(code)
    ben2 = await second_connection(client, ben, "Ben")
    await ben.request({"type": "leave"}, "left")
    await received(ben2, "left")
    mark = len(ben2.frames)
    cai = await client("Cai")
    await cai.join(code, seat=1)
    await cai.ready()
    await host.start()
    await host.until(lambda c: c.game is not None)
    # The old connection holds nothing: it hears nothing of the room and cannot act.
    assert room_frames_after(ben2, mark) == []
    error = await ben2.request({"type": "act", "seq": 1, "action": {"type": "end_turn"}}, "error")
    assert error["code"] == "not_in_room"
    assert audit(recorder, await room_logs(server)) > 0


async def test_moving_seats_moves_every_connection_of_the_seat(
    client: ClientFactory, server: GameServer, recorder: Recorder
) -> None:
    host = await client("Ana")
    code = await host.create(seats=3)
    ben = await client("Ben")
    await ben.join(code, seat=1)
    ben2 = await second_connection(client, ben, "Ben")
    await ben.request({"type": "sit", "seat": 2}, "snapshot")
    await ben2.until(lambda c: c.seat == 2 and c.doc is not None)
    cai = await client("Cai")
    await cai.join(code, seat=1)
    for p in (ben, cai):
        await p.ready()
    await host.start()
    for p in (ben, ben2, cai):
        await p.until(lambda c: c.game is not None)
    assert ben2.game is not None and cai.game is not None and ben.game is not None
    assert ben2.game["you"] == 2 and ben2.game["hand"] == ben.game["hand"]
    assert ben2.doc == ben.doc
    assert audit(recorder, await room_logs(server)) > 0


async def test_a_bot_taking_over_a_left_seat_detaches_its_other_connections(
    client: ClientFactory, server: GameServer, recorder: Recorder
) -> None:
    host = await client("Ana")
    code = await host.create(seats=2)
    ben = await client("Ben")
    await ben.join(code)
    await ben.ready()
    ben2 = await second_connection(client, ben, "Ben")
    await host.start()
    await ben2.until(lambda c: c.game is not None)
    await ben.request({"type": "leave"}, "left")
    await received(ben2, "left")
    mark = len(ben2.frames)
    # The match goes on with a bot in seat 1; the old connection learns nothing of it.
    await host.until(lambda c: c.doc is not None and c.doc["room"]["seats"][1]["kind"] == "bot")
    for _ in range(3):
        await host.request({"type": "resync"}, "snapshot")
    assert room_frames_after(ben2, mark) == []
    error = await ben2.request({"type": "hint"}, "error")
    assert error["code"] == "not_in_room"
    assert audit(recorder, await room_logs(server)) > 0


async def test_a_kick_sends_every_connection_of_the_seat_out(
    client: ClientFactory, server: GameServer, recorder: Recorder
) -> None:
    host = await client("Ana")
    code = await host.create(seats=2)
    ben = await client("Ben")
    await ben.join(code)
    ben2 = await second_connection(client, ben, "Ben")
    await host.send({"type": "kick", "seat": 1})
    for c in (ben, ben2):
        await received(c, "kicked", "left")
        assert c.room is None
    cai = await client("Cai")
    await cai.join(code, seat=1)
    assert audit(recorder, await room_logs(server)) > 0


async def test_a_removed_seat_cannot_wedge_the_start(
    client: ClientFactory, server: GameServer, recorder: Recorder
) -> None:
    """A stale connection of a seat the host then removes must not break the start."""
    host = await client("Ana")
    code = await host.create(seats=4)
    ben = await client("Ben")
    await ben.join(code, seat=3)
    ben2 = await second_connection(client, ben, "Ben")
    await ben.request({"type": "leave"}, "left")
    await received(ben2, "left")
    await host.request({"type": "configure", "options": {"seats": 2}}, "patch")
    await host.start(fill="heuristic")
    await host.until(lambda c: c.game is not None)
    live = server.lobby.rooms[code]
    assert live.room.phase == "playing"
    # The host's document equals a fresh one: nothing was left half-applied.
    await host.until(lambda c: c.doc == live.room.doc(0))
    assert audit(recorder, await room_logs(server)) > 0


async def test_a_failed_fan_out_leaves_every_viewer_on_the_stored_state(
    client: ClientFactory, server: GameServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If telling the viewers about a stored change fails, they all get snapshots of it."""
    host = await client("Ana")
    code = await host.create(seats=2, bots=[None, "heuristic"])
    watcher = await client("Wes")
    await watcher.join(code, spectate=True)
    live = server.lobby.rooms[code]
    from server import audience

    real = audience.patches
    calls = {"n": 0}

    def failing_once(old: object, new: object) -> object:
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("a bug in the fan-out")
        return real(old, new)  # type: ignore[arg-type]

    monkeypatch.setattr(audience, "patches", failing_once)
    await host.send({"type": "start"})
    for c, seat in ((host, 0), (watcher, None)):
        await c.until(lambda c, seat=seat: c.game is not None and c.doc == live.room.doc(seat))  # type: ignore[misc]
    assert host.close_code is None and live.room.phase == "playing"
    stored = await server.store.read(code)
    assert len(stored) == live.room.version


async def test_a_failed_apply_reloads_the_room_from_the_store(
    client: ClientFactory, server: GameServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    host = await client("Ana")
    code = await host.create(seats=2, bots=[None, "heuristic"])
    live = server.lobby.rooms[code]
    from server.room import EVENT_HANDLERS, Room

    real = EVENT_HANDLERS["start"]
    calls = {"n": 0}

    def failing_once(self: Room, e: dict[str, Any]) -> list[dict[str, Any]]:
        calls["n"] += 1
        if calls["n"] == 1:
            self.locked = True  # half-applied on purpose
            raise RuntimeError("a bug while applying")
        return real(self, e)

    monkeypatch.setitem(EVENT_HANDLERS, "start", failing_once)
    await host.send({"type": "start"})
    await host.until(lambda c: c.game is not None and c.doc == live.room.doc(0))
    assert live.room.locked is False and live.room.phase == "playing"
    assert host.close_code is None


@pytest.fixture
async def two_servers() -> AsyncIterator[tuple[GameServer, GameServer]]:
    """Two server processes' worth of state on one real Redis (one event loop)."""
    url = os.environ.get("REDIS_URL", DEFAULT_REDIS_URL)
    prefix = f"kc-test-{uuid.uuid4().hex[:12]}"
    games = [
        await start_server(make_settings(redis_url=url, redis_prefix=prefix, tick=0.2))
        for _ in range(2)
    ]
    try:
        yield games[0], games[1]
    finally:
        for game in games:
            await game.shutdown()
        await delete_prefix(url, prefix)


async def test_a_connection_on_another_process_follows_its_seat(
    two_servers: tuple[GameServer, GameServer], recorder: Recorder
) -> None:
    a, b = two_servers
    made: list[GameClient] = []

    async def on(game: GameServer, name: str) -> GameClient:
        c = await GameClient(f"ws://127.0.0.1:{port_of(game)}/", name).connect()
        made.append(c)
        return c

    try:
        host = await on(a, "Ana")
        code = await host.create(seats=3)
        ben = await on(a, "Ben")
        await ben.join(code, seat=1)
        ben2 = await on(b, "Ben")
        ben2.player = ben.player
        assert ben.token is not None
        await ben2.join(code, token=ben.token)
        # Moving on process a moves the connection on process b too.
        await ben.request({"type": "sit", "seat": 2}, "snapshot")
        await ben2.until(lambda c: c.seat == 2)
        await ben.request({"type": "leave"}, "left")
        await received(ben2, "left")
        mark = len(ben2.frames)
        cai = await on(a, "Cai")
        await cai.join(code, seat=2)
        await cai.ready()
        await host.start(fill="heuristic")
        await cai.until(lambda c: c.game is not None)
        assert room_frames_after(ben2, mark) == []
        logs = {code: await a.store.read(code)}
        assert audit(recorder, logs) > 0
    finally:
        for c in made:
            await c.close()
