"""A stored room event from a newer version: this server leaves that room, serves the rest.

A newer release may store an event of a kind (or a format) this code does not know. Folding
it anyway would build a wrong room; crashing on it would take the room's players down with
every request. Instead the room is left to a process that knows it: its viewers here get
``upgrade_needed`` and ``left``, the lobby forgets it, a join is refused with the same code,
nothing is written to it, and every other room plays on. Both stores.
"""

from __future__ import annotations

from typing import Any

import pytest

import server.room as room_module
from clients.net import GameClient, ServerError
from protocol.errors import UpgradeNeeded
from protocol.messages import RoomOptions
from server import admin
from server.app import GameServer
from server.room import (
    EVENT_FORMAT,
    EVENT_HANDLERS,
    EVENT_KINDS,
    VARIANTS_FORMAT,
    Room,
    create_event,
    stored_options,
)
from server.store.base import Event, head_of, link
from tests.redis_helpers import UNIT, eventually

from .conftest import ClientFactory

#: Events a newer release might store: a kind this code lacks, and a known kind in a
#: format newer than :data:`EVENT_FORMAT` (its fields may mean something else by then).
NEWER: dict[str, Event] = {
    "unknown kind": {"e": "pause", "seat": 0, "until": 12.5},
    "newer format": {"e": "ready", "seat": 1, "ready": True, "v": EVENT_FORMAT + 1},
}


async def append_from_the_future(store: Any, code: str, event: Event) -> int:
    """Store ``event`` after room ``code``'s log as a newer process would: chained, at the
    room's version, announced. Returns the new version."""
    log = await store.read(code)
    head = head_of(log)
    stored = {**event, "h": link(head, event)}
    announce = {"kind": "changed", "v": len(log) + 1, "by": "a-newer-process"}
    version: int = await store.append(code, len(log), [stored], announce, head=head)
    return version


async def table(client: ClientFactory, *names: str) -> tuple[str, list[GameClient]]:
    host = await client(names[0])
    code = await host.create(seats=len(names))
    people = [host]
    for name in names[1:]:
        guest = await client(name)
        await guest.join(code)
        people.append(guest)
    return code, people


@pytest.mark.parametrize("event", list(NEWER.values()), ids=list(NEWER))
async def test_a_room_a_newer_version_wrote_to_is_left_to_it(
    server: GameServer, client: ClientFactory, event: Event
) -> None:
    code, (ana, ben) = await table(client, "Ana", "Ben")
    other, (cy, dee) = await table(client, "Cy", "Dee")
    watcher = await client("Eve")
    await watcher.join(code, spectate=True)
    version = await append_from_the_future(server.store, code, event)

    # Every viewer of the room here is told, then taken out of it; the connections stay.
    for viewer in (ana, ben, watcher):
        await viewer.until(lambda c: c.room is None, timeout=50 * UNIT)
        error, left = viewer.frames[-2:]
        assert error["type"] == "error" and error["code"] == "upgrade_needed", error
        assert error["params"] == {"room": code, "format": event.get("v", 1)}, error
        assert error["seq"] is None
        assert left == {"type": "left", "room": code}
        assert viewer.close_code is None

    async def forgotten() -> bool:
        return code not in server.lobby.rooms

    await eventually(forgotten)

    # Joining again is refused with the same code, here as from a new connection; the
    # failed-join limits do not count it (the code names a room).
    for person in (ana, await client("Fay")):
        with pytest.raises(ServerError) as refused:
            await person.join(code)
        assert refused.value.code == "upgrade_needed"
    assert code not in server.lobby.rooms

    # Nothing was written to that room since, and the other room plays on.
    assert len(await server.store.read(code)) == version
    await dee.ready()
    await cy.start()
    mover = cy if cy.my_turn else dee
    assert mover.game is not None
    reply = await mover.act(mover.game["legal"][0])
    assert reply["type"] == "patch", reply
    assert other in server.lobby.rooms


async def test_a_room_stored_with_a_newer_event_is_refused_when_loaded(
    server: GameServer, client: ClientFactory
) -> None:
    """A room this process has not loaded yet (written by a newer one) is never loaded."""
    code = "NEWER3"
    first = create_event(code, RoomOptions(seats=2))
    assert await server.store.create_room(code, first)
    await append_from_the_future(server.store, code, NEWER["unknown kind"])
    late = await client("Gus")
    with pytest.raises(ServerError) as refused:
        await late.join(code)
    assert refused.value.code == "upgrade_needed"
    assert refused.value.frame["params"] == {"room": code, "format": 1}
    assert code not in server.lobby.rooms
    # The connection serves on: a room of this version's is created and joined.
    mine = await late.create(seats=2)
    # The admin listing names the room it cannot fold, and folds the others.
    listed = {entry["room"]: entry for entry in await admin.list_rooms(server.store)}
    assert listed[code]["upgrade_needed"] == {"room": code, "format": 1}
    assert listed[mine]["phase"] == "lobby"


def test_folding_stops_at_an_event_it_cannot_read_and_changes_nothing() -> None:
    first = create_event("AAAAAA", RoomOptions(seats=2))
    room = Room.from_events([first])
    before = (room.version, room.head)
    for event in (*NEWER.values(), {"e": "ready", "seat": 0, "ready": True, "v": "2"}):
        with pytest.raises(UpgradeNeeded) as refused:
            room.apply(event)
        assert refused.value.params["room"] == "AAAAAA"
        assert (room.version, room.head) == before
    with pytest.raises(UpgradeNeeded):
        Room.from_events([{**first, "v": EVENT_FORMAT + 1}])
    # Format 1 is this code's: ``v`` absent or 1 folds as before.
    room.apply({"e": "lock", "locked": True, "v": 1})
    assert room.locked and room.version == before[0] + 1


async def test_this_version_writes_format_1_events_of_kinds_it_folds(
    server: GameServer, client: ClientFactory
) -> None:
    """Nothing this version stores needs a newer reader: no ``v``, only known kinds."""
    code, (ana, ben) = await table(client, "Ana", "Ben")
    await ben.ready()
    await ana.start()
    for _ in range(6):
        mover = ana if ana.my_turn else ben
        assert mover.game is not None
        await mover.act(mover.game["legal"][-1])
    stored = await server.store.read(code)
    assert {e["e"] for e in stored} <= EVENT_KINDS
    assert {"create", "sit", "start", "act"} <= {e["e"] for e in stored}
    assert all("v" not in e for e in stored)


def test_every_event_handler_of_the_room_is_in_its_table_under_its_kind() -> None:
    """The kinds this code reads are the table's: a handler left out of it would make its
    own kind read as a newer release's."""
    handlers = {name: value for name, value in vars(Room).items() if name.startswith("_on_")}
    assert {f"_on_{kind}": handler for kind, handler in EVENT_HANDLERS.items()} == handlers
    assert {"create", *EVENT_HANDLERS} == EVENT_KINDS
    assert NEWER["unknown kind"]["e"] not in EVENT_KINDS


#: Issue 46's rules, which a process of format 2 must not fold (docs/deploy.md, Upgrading).
VARIANT_RULES: dict[str, dict[str, Any]] = {
    "opening_refill": {"opening_refill": True},
    "scoring corners": {"scoring": "corners"},
}


@pytest.mark.parametrize("rules", list(VARIANT_RULES.values()), ids=list(VARIANT_RULES))
async def test_a_process_of_format_2_leaves_a_room_a_newer_one_gave_a_variant(
    server: GameServer,
    client: ClientFactory,
    monkeypatch: pytest.MonkeyPatch,
    rules: dict[str, Any],
) -> None:
    """This server as the release before (format 2): a room of the standard rules is its to
    serve, until a newer process stores a ``configure`` choosing a variant; a room a newer
    process created with one is never loaded. Every other room plays on."""
    monkeypatch.setattr(room_module, "EVENT_FORMAT", 2)
    code, (ana, ben) = await table(client, "Ana", "Ben")
    other, (cy, dee) = await table(client, "Cy", "Dee")
    configure = {"e": "configure", **stored_options(RoomOptions(seats=2, **rules))}
    assert configure["v"] == VARIANTS_FORMAT
    version = await append_from_the_future(server.store, code, configure)
    for viewer in (ana, ben):
        await viewer.until(lambda c: c.room is None, timeout=50 * UNIT)
        error, left = viewer.frames[-2:]
        assert error["code"] == "upgrade_needed", error
        assert error["params"] == {"room": code, "format": VARIANTS_FORMAT}
        assert left == {"type": "left", "room": code}
    assert len(await server.store.read(code)) == version

    newer = "NEWER4"
    assert await server.store.create_room(newer, create_event(newer, RoomOptions(**rules)))
    with pytest.raises(ServerError) as refused:
        await (await client("Gus")).join(newer)
    assert refused.value.params == {"room": newer, "format": VARIANTS_FORMAT}
    assert newer not in server.lobby.rooms

    await dee.ready()
    await cy.start()
    mover = cy if cy.my_turn else dee
    assert mover.game is not None
    reply = await mover.act(mover.game["legal"][0])
    assert reply["type"] == "patch", reply
    assert other in server.lobby.rooms
