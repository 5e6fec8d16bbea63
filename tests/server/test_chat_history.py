"""Who comes late reads what was said: a room keeps its last chat lines and sends them as
``chat_history`` right after ``joined`` (a spectator, a player who sits, a reload or a
reconnection), on both stores."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from clients.net import GameClient, unseen
from server.app import GameServer, port_of
from server.store.base import CHAT_KEPT

from .conftest import ClientFactory

pytestmark = pytest.mark.settings(room_chat_rate=10000.0, room_chat_burst=10000)


async def say(c: GameClient, *texts: str) -> None:
    for text in texts:
        await c.send({"type": "chat", "text": text})
        await c.until(heard(text, sum(line["text"] == text for line in c.chat) + 1))


def heard(text: str, times: int) -> Callable[[GameClient], bool]:
    return lambda c: sum(line["text"] == text for line in c.chat) >= times


def histories(c: GameClient) -> list[dict[str, Any]]:
    return [f for f in c.frames if f["type"] == "chat_history"]


async def test_a_late_spectator_and_a_late_player_read_what_was_said(
    client: ClientFactory,
) -> None:
    ana = await client("Ana")
    code = await ana.create(seats=3)
    assert histories(ana) == []  # nothing was said yet: no history at all
    await say(ana, "hi", "who's in?")
    wes = await client("Wes")
    await wes.join(code, spectate=True)
    await wes.until(lambda c: len(c.chat) == 2)
    (history,) = histories(wes)
    assert history["room"] == code
    assert [{k: v for k, v in line.items() if k != "id"} for line in history["lines"]] == [
        {"seat": 0, "name": "Ana", "text": "hi"},
        {"seat": 0, "name": "Ana", "text": "who's in?"},
    ]
    # Each line keeps the id its live frame had: a client meeting it twice shows it once.
    assert [line["id"] for line in history["lines"]] == [line["id"] for line in ana.chat]
    # It came after the joined and the snapshot: the page knows the room it is for.
    kinds = [f["type"] for f in wes.frames]
    assert kinds.index("joined") < kinds.index("chat_history")
    await say(wes, "me, watching")
    # A spectator who takes a seat read it all already: no second history.
    await wes.request({"type": "sit", "seat": 1}, "joined")
    ben = await client("Ben")
    await ben.join(code)
    await ben.until(lambda c: len(c.chat) == 3)
    assert [line["seat"] for line in histories(ben)[0]["lines"]] == [0, 0, None]
    assert len(histories(wes)) == 1


async def test_the_room_keeps_its_last_lines_only(
    server: GameServer, client: ClientFactory
) -> None:
    ana = await client("Ana")
    code = await ana.create(seats=2)
    await say(ana, *(f"line {n}" for n in range(CHAT_KEPT + 7)))
    kept = await server.store.chat_lines(code)
    assert [line["text"] for line in kept] == [f"line {n}" for n in range(7, CHAT_KEPT + 7)]
    wes = await client("Wes")
    await wes.join(code, spectate=True)
    await wes.until(lambda c: len(c.chat) == CHAT_KEPT)
    assert wes.chat[0]["text"] == "line 7" and wes.chat[-1]["text"] == f"line {CHAT_KEPT + 6}"
    # Deleted with the room.
    await server.store.delete_room(code)
    assert await server.store.chat_lines(code) == []
    if not server.settings.redis_url:
        # The embedded store keeps nothing for a room it no longer has.
        await server.store.add_chat(code, {"seat": 0, "name": "Ana", "text": "late"})
        assert await server.store.chat_lines(code) == []


async def test_a_reconnection_adds_only_the_lines_missed(server: GameServer) -> None:
    url = f"ws://127.0.0.1:{port_of(server)}/"
    ana = GameClient(url, "Ana", reconnect=True)
    ben = GameClient(url, "Ben")
    try:
        await ana.connect()
        await ben.connect()
        code = await ana.create(seats=2)
        await ben.join(code)
        await say(ana, "one", "two")
        await ben.until(lambda c: len(c.chat) == 2)
        assert ana.ws is not None
        await ana.ws.close()  # dropped: it comes back with its token
        await ben.until(lambda c: not c.doc["room"]["seats"][0]["connected"])  # type: ignore[index]
        await say(ben, "three")
        await ana.until(lambda c: len(histories(c)) == 1, 10)
        assert [line["text"] for line in ana.chat] == ["one", "two", "three"]
    finally:
        await ana.close()
        await ben.close()


async def test_a_line_met_live_and_in_the_history_is_shown_once(
    server: GameServer, client: ClientFactory
) -> None:
    ana = await client("Ana")
    code = await ana.create(seats=2)
    await say(ana, "hello")
    wes = await client("Wes")
    await wes.join(code, spectate=True)
    await wes.until(lambda c: len(c.chat) == 1)
    # The same line again, as a live frame arriving after the history that held it.
    line = dict(wes.chat[0])
    await wes._take(line)
    assert [c["text"] for c in wes.chat] == ["hello"]
    # A line of the same words but its own id is a line of its own.
    await say(ana, "hello")
    await wes.until(lambda c: len(c.chat) == 2)


def test_unseen_lines_are_those_after_the_overlap() -> None:
    def line(text: str) -> dict[str, Any]:
        return {"type": "chat", "room": "R", "seat": 0, "name": "A", "text": text}

    heard = [line("a"), line("b"), line("c")]
    assert unseen(heard, [line("b"), line("c"), line("d")]) == [line("d")]
    assert unseen(heard, [line("a"), line("b"), line("c")]) == []
    assert unseen(heard, [line("x"), line("y")]) == [line("x"), line("y")]
    assert unseen([], [line("a")]) == [line("a")]
    # Another room's history is all new, whatever its words.
    other = [{**line("c"), "room": "S"}]
    assert unseen(heard, other) == other
    # Named lines are told apart by their ids, wherever they are.
    named = [{**line("a"), "id": "1"}, {**line("a"), "id": "2"}]
    assert unseen(named[:1], named) == named[1:]
    assert unseen(named, list(reversed(named))) == []
