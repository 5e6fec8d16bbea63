"""Which refusal wins when a request is wrong in several ways: each pair of the table in
docs/protocol.md ("Which refusal wins"), over real WebSockets, on both stores."""

from __future__ import annotations

import orjson
import pytest

from clients.net import Frame, GameClient
from protocol.engine import DECK
from server.app import GameServer, port_of

from .conftest import ClientFactory

# The pause between hands outlasts every test: a hand that is over stays over.
pytestmark = pytest.mark.settings(hand_pause=60.0)

#: Two seats, seat 1 dealing: seat 0 holds QH JS 10H 9S 8H 7S 6H and N starts with KS, so
#: seat 0 plays its whole hand onto N in its first turn and the hand is over.
OUT = ["QH", "JS", "10H", "9S", "8H", "7S", "6H"]
OTHER = ["2C", "3C", "4C", "5C", "6C", "7C", "8C"]
SIDES = ["KS", "9C", "10C", "JC"]
TOP = [card for pair in zip(OUT, OTHER, strict=True) for card in pair] + SIDES
QUICK_DECK = TOP + [card for card in DECK if card not in TOP]


class Table:
    """Ana (host, seat 0), Ben (seat 1) and Cy (watching), in a room in ``phase``."""

    def __init__(self, ana: GameClient, ben: GameClient, cy: GameClient) -> None:
        self.by_role = {"host": ana, "other": ben, "watcher": cy}


async def table(client: ClientFactory, phase: str) -> Table:
    ana, ben, cy = await client("Ana"), await client("Ben"), await client("Cy")
    target = 1 if phase == "finished" else 500
    code = await ana.create(seats=2, target=target, decks=[QUICK_DECK], dealer=1)
    await ben.join(code)
    await cy.join(code, spectate=True)
    if phase != "lobby":
        await ben.ready()
        await ana.start()
        await ana.until(lambda c: c.my_turn)
    if phase in ("hand_over", "finished"):
        for card in OUT:
            assert (await ana.act(f"{card}>N"))["type"] == "patch"
        for c in (ana, ben, cy):
            await c.until(lambda cl: cl.game is not None and cl.game["phase"] == phase)
    return Table(ana, ben, cy)


async def answer(c: GameClient, frame: Frame | str) -> Frame:
    """Send ``frame`` (a raw text frame when a string) and wait for its one answer."""
    start = len(c.frames)
    if isinstance(frame, str):
        await c.send_raw(frame)
    else:
        await c.send(frame)
    kinds = ("error", "patch", "hint", "snapshot", "joined", "left")
    await c.until(lambda cl: any(f["type"] in kinds for f in cl.frames[start:]))
    return next(f for f in c.frames[start:] if f["type"] in kinds)


PLAY = {"type": "act", "seq": 1, "action": {"type": "play", "card": "2C", "pile": "N"}}

#: (phase, who asks, the request, the code that wins, the codes it beats).
PAIRS: list[tuple[str, str, Frame, str, tuple[str, ...]]] = [
    # not_seated before not_host and before the phase
    ("playing", "watcher", {"type": "configure", "options": {}}, "not_seated", ("not_host",)),
    ("playing", "watcher", {"type": "ready"}, "not_seated", ("bad_phase",)),
    ("lobby", "watcher", {"type": "back"}, "not_seated", ("bad_phase",)),
    ("hand_over", "watcher", PLAY, "not_seated", ("hand_over",)),
    ("playing", "watcher", {"type": "next_hand"}, "not_seated", ("hand_in_progress",)),
    ("playing", "watcher", {"type": "hint"}, "not_seated", ("not_your_turn",)),
    # not_host before the phase and before the request's own refusals
    ("playing", "other", {"type": "configure", "options": {}}, "not_host", ("bad_phase",)),
    ("playing", "other", {"type": "start"}, "not_host", ("bad_phase",)),
    ("playing", "other", {"type": "lock"}, "not_host", ("bad_phase",)),
    ("playing", "other", {"type": "add_bot", "seat": 1}, "not_host", ("bad_phase", "seat_taken")),
    ("lobby", "other", {"type": "remove_bot", "seat": 1}, "not_host", ("seat_taken",)),
    ("playing", "other", {"type": "kick", "seat": 0}, "not_host", ("seat_taken",)),
    ("playing", "other", {"type": "rematch", "force": True}, "not_host", ("bad_phase",)),
    # the phase, with the game's own code where it has one
    ("hand_over", "other", PLAY, "hand_over", ("bad_phase", "not_your_turn")),
    ("finished", "other", PLAY, "match_over", ("bad_phase", "not_your_turn")),
    ("lobby", "host", PLAY, "bad_phase", ("not_your_turn",)),
    ("hand_over", "host", {"type": "hint"}, "hand_over", ("bad_phase",)),
    ("finished", "host", {"type": "hint"}, "match_over", ("bad_phase",)),
    ("lobby", "host", {"type": "hint"}, "bad_phase", ("not_your_turn",)),
    ("playing", "host", {"type": "next_hand"}, "hand_in_progress", ("bad_phase",)),
    ("finished", "host", {"type": "next_hand"}, "match_over", ("bad_phase",)),
    ("lobby", "host", {"type": "next_hand"}, "bad_phase", ()),
    ("playing", "host", {"type": "add_bot", "seat": 1}, "bad_phase", ("seat_taken",)),
    ("playing", "watcher", {"type": "sit", "seat": 1}, "bad_phase", ("seat_taken",)),
    ("playing", "host", {"type": "rematch"}, "bad_phase", ()),
]


@pytest.mark.parametrize(
    ("phase", "who", "request_", "wins", "beats"),
    PAIRS,
    ids=[f"{p[2]['type']}-{p[1]}-{p[0]}-{p[3]}" for p in PAIRS],
)
async def test_the_first_fault_of_the_table_is_the_refusal(
    client: ClientFactory,
    phase: str,
    who: str,
    request_: Frame,
    wins: str,
    beats: tuple[str, ...],
) -> None:
    t = await table(client, phase)
    asker = t.by_role[who]
    before = asker.version
    reply = await answer(asker, request_)
    assert reply["type"] == "error", reply
    assert reply["code"] == wins, (reply, "beats", beats)
    assert asker.version == before  # nothing changed


async def test_the_host_waits_for_people_before_empty_seats(client: ClientFactory) -> None:
    ana, ben = await client("Ana"), await client("Ben")
    code = await ana.create(seats=3)
    await ben.join(code)  # not ready, and seat 2 is empty with no fill
    reply = await answer(ana, {"type": "start"})
    assert reply["code"] == "not_ready" and reply["params"] == {"seats": [1]}


async def test_a_locked_room_refuses_before_it_is_full(client: ClientFactory) -> None:
    ana, ben, cy = await client("Ana"), await client("Ben"), await client("Cy")
    code = await ana.create(seats=2)
    await ben.join(code)
    await answer(ana, {"type": "lock"})
    assert (await answer(cy, {"type": "join", "room": code}))["code"] == "room_locked"


async def test_the_connection_faults_come_before_the_room(server: GameServer) -> None:
    url = f"ws://127.0.0.1:{port_of(server)}/"
    fresh = GameClient(url, "Flo")
    fresh._hello = lambda version=2: {"type": "hello", "version": 99}  # type: ignore[method-assign]
    try:
        with pytest.raises(Exception, match="unsupported_version"):
            await fresh.connect()
        # Not greeted: an unreadable frame is bad_message, a readable one hello_first.
        bad = orjson.dumps({"type": "act", "seq": -1}).decode()
        assert (await answer(fresh, bad))["code"] == "bad_message"
        assert (await answer(fresh, {"type": "ready"}))["code"] == "hello_first"
        await fresh.send({"type": "hello", "version": 2, "name": "Flo"})
        await fresh.until(lambda c: c.frames[-1]["type"] == "welcome")
        # Greeted, in no room: not_in_room before anything about seats or phases.
        assert (await answer(fresh, {"type": "ready"}))["code"] == "not_in_room"
        assert (await answer(fresh, PLAY))["code"] == "not_in_room"
    finally:
        await fresh.close()
