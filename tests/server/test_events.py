"""The wire carries data, not sentences: log events and refusals with their parameters, and
the rules a client author would otherwise have to guess (docs/protocol.md)."""

from __future__ import annotations

import itertools
import random
import re
from pathlib import Path
from typing import Any, get_args

import orjson
from pydantic import TypeAdapter

from clients.net import GameClient
from protocol.codec import decode_server
from protocol.engine import shuffled_deck
from protocol.engine.actions import Play
from protocol.errors import KingsCornerError, NotInHand
from protocol.log_events import LogEvent
from protocol.messages import RoomOptions
from protocol.schema import error_classes
from server.app import GameServer, port_of
from server.room import Room, create_event

from .audit import Recorder
from .conftest import ClientFactory
from .test_match_flow import next_mover

DOCS = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
EVENTS: TypeAdapter[Any] = TypeAdapter(LogEvent)
#: The documented mapping of a ``legal`` text to an ``act`` (docs/protocol.md).
CARD = re.compile(r"^(A|[2-9]|10|J|Q|K)[CDHS]$")


def documented_act(text: str) -> dict[str, str]:
    if text == "end":
        return {"type": "end_turn"}
    if text == "draw":
        return {"type": "draw"}
    left, right = text.split(">")
    if CARD.match(left):
        return {"type": "play", "card": left, "pile": right}
    return {"type": "move", "from": left, "to": right}


def table(heading: str) -> dict[str, set[str]]:
    """First column → the backquoted names of the second, of the table under ``heading``."""
    section = DOCS.split(heading, 1)[1]
    rows: dict[str, set[str]] = {}
    lines = [line for line in section.split("\n\n|", 1)[1].splitlines()]
    for line in lines[2:]:  # after the header and its rule
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        names = re.findall(r"`([^`]+)`", cells[0])
        # Parentheses hold a parameter's values or a remark, not parameters.
        params = set(re.findall(r"`([a-z_]+)`", re.sub(r"\([^)]*\)", "", cells[1])))
        for name in names:
            rows[name] = params
    return rows


def event_models() -> dict[str, set[str]]:
    models = get_args(get_args(LogEvent)[0])
    out = {}
    for model in models:
        fields = {f.alias or name for name, f in model.model_fields.items()} - {"ev"}
        out[model.model_fields["ev"].default] = fields
    return out


def test_the_docs_list_every_log_event_with_its_parameters() -> None:
    assert table("### The table log: events, not sentences") == event_models()


def test_the_docs_list_every_error_code_with_its_parameters() -> None:
    documented = table("## Errors")
    codes = {cls.code: set(cls.param_names) for cls in error_classes()}
    assert documented == codes


def test_an_error_refuses_parameters_its_code_does_not_declare() -> None:
    assert NotInHand(card="7H").params == {"card": "7H"}
    try:
        NotInHand(pile="N")
    except TypeError:
        return
    raise AssertionError("an undeclared parameter was accepted")


async def test_a_whole_match_sends_only_events_and_every_frame_fits_the_schema(
    client: ClientFactory, recorder: Recorder
) -> None:
    ana, ben = await client("Ana"), await client("Ben")
    # Seat 2 deals, so Ana moves first (a bot moving first may go out in its first turn).
    code = await ana.create(seats=3, target=12, bots=[None, None, "heuristic"], dealer=2)
    await ben.join(code)
    watcher = await client("Cai")
    await watcher.join(code, spectate=True)
    await ben.ready()
    await ana.start()
    rng = random.Random(7)
    ended = False
    for _ in range(3000):
        mover = await next_mover([ana, ben])
        if mover is None:
            break
        assert mover.game is not None
        legal = mover.game["legal"]
        # The first turn is ended at once: a hand can otherwise end (and a match at 12 with
        # it) before anyone ends a turn.
        text = "end" if not ended and "end" in legal else rng.choice(legal)
        ended = ended or text == "end"
        reply = await mover.act(documented_act(text))  # the documented mapping, never ours
        assert reply["type"] == "patch", reply
    await watcher.until(lambda c: c.game is not None and c.game["phase"] == "finished")
    kinds = set()
    for sent in recorder.sent:
        frame = sent.frame
        model = decode_server(orjson.dumps(frame))  # every frame is a valid server message
        # ... and exactly its model: the fields given, under their wire names, nothing else.
        assert model.model_dump(mode="json", by_alias=True, exclude_unset=True) == frame
        for event in frame.get("log", []):
            EVENTS.validate_python(event)
            assert "text" not in event
            kinds.add(event["ev"])
    assert {"sat", "started", "played", "hand_over", "match_over"} <= kinds
    assert kinds & {"drew", "ended"}


async def test_refusals_carry_their_parameters_and_change_nothing(
    client: ClientFactory,
) -> None:
    ana = await client("Ana")
    await ana.create(seats=2, bots=[None, "heuristic"])
    await ana.start()
    await ana.until(lambda c: c.my_turn)
    assert ana.game is not None
    version = ana.version
    held = set(ana.game["hand"])
    missing = next(c for c in shuffled_deck("x", 0) if c not in held)
    reply = await ana.act({"type": "play", "card": missing, "pile": "N"})
    assert reply["code"] == "not_in_hand" and reply["params"] == {"card": missing}
    assert ana.version == version
    bad = await ana.request({"type": "sit", "seat": "one"}, "error")
    assert bad["code"] == "bad_message"
    assert bad["params"] == {"reason": "invalid", "field": "seat", "problem": "int_type"}
    big = await ana.request({"type": "chat", "text": "x" * 20_000}, "error")
    assert big["params"] == {"reason": "too_large", "limit": 16384}
    taken = await ana.request({"type": "add_bot", "seat": 1, "level": "easy"}, "error")
    assert taken["code"] == "bad_phase"
    assert taken["params"] == {"command": "add_bot", "phase": "playing"}
    # The connection is still served after all of them.
    assert (await ana.request({"type": "resync"}, "snapshot"))["version"] == version


def test_a_refused_play_names_the_card_and_the_top_it_does_not_fit() -> None:
    for seed in range(100):  # the first deal that gives the mover a card of N's top's suit
        options = RoomOptions(seats=2, bots=[None, "random"], seed=f"fit-{seed}")
        room = Room(create_event("ABCDEF", options))
        room.apply(room.decide_sit(0, "Ana", "t" * 20))
        room.apply({"e": "sit", "seat": 1, "name": "Bot", "kind": "bot", "level": "random"})
        for event in room.decide_start(0, None):
            room.apply(event)
        assert room.match is not None
        position = room.match.position
        top = position.piles[0][-1]
        card = next((c for c in position.hands[position.turn] if c[-1] == top[-1]), None)
        if card is not None:
            break
    else:
        raise AssertionError("no deal of 100 gave a same-suit card")
    try:
        room.decide_act(position.turn, _play(card, "N"))
    except KingsCornerError as exc:
        assert exc.code == "does_not_fit"
        assert exc.params == {"card": card, "pile": "N", "onto": top}
    else:
        raise AssertionError("a same-suit card fitted")


def _play(card: str, pile: str) -> Any:
    return Play(card, pile)


async def test_your_own_seat_is_connected_in_your_first_snapshot(
    client: ClientFactory, server: GameServer
) -> None:
    ana = await client("Ana")
    code = await ana.create(seats=2)
    assert ana.doc is not None and ana.doc["room"]["seats"][0]["connected"] is True
    ben = await client("Ben")
    await ben.join(code)
    assert ben.doc is not None and ben.doc["room"]["seats"][1]["connected"] is True
    token = ben.token
    await ben.close()
    await ana.until(lambda c: c.doc is not None and not c.doc["room"]["seats"][1]["connected"])
    back = await client("Ben")
    await back.join(code, token=token)
    first = next(f for f in back.frames if f["type"] == "snapshot")
    assert first["doc"]["room"]["seats"][1]["connected"] is True


async def test_versions_chain_and_a_resync_is_never_older_than_a_patch(
    client: ClientFactory,
) -> None:
    ana = await client("Ana")
    code = await ana.create(seats=4, target=2)
    spy = await client("Spy")
    await spy.join(code, spectate=True)
    await ana.start(fill="random")  # three bots sit and the match starts: one patch
    for _ in range(40):
        if not await next_mover([ana]):
            break
        assert ana.game is not None
        await ana.act(documented_act(ana.game["legal"][-1]))
        snapshot = await spy.request({"type": "resync"}, "snapshot")
        before = spy.frames[: spy.frames.index(snapshot)]
        assert all(snapshot["version"] >= f["to"] for f in before if f["type"] == "patch")
    patches = [f for f in spy.frames if f["type"] == "patch"]
    assert any(f["to"] > f["from"] + 1 for f in patches)  # a start with bots spans several
    for before, after in itertools.pairwise(patches):
        assert after["from"] == before["to"]


async def test_a_spectator_sees_no_you_hand_or_legal(client: ClientFactory) -> None:
    ana = await client("Ana")
    code = await ana.create(seats=2, bots=[None, "random"])
    spy = await client("Spy")
    await spy.join(code, spectate=True)
    await ana.start()
    await spy.until(lambda c: c.game is not None)
    assert spy.game is not None
    assert not {"you", "hand", "legal"} & set(spy.game)
    assert spy.game["phase"] in ("playing", "hand_over", "finished")


async def test_the_largest_create_fits_and_a_rematch_keeps_the_decks(
    client: ClientFactory, server: GameServer
) -> None:
    decks = [list(shuffled_deck("decks", i)) for i in range(32)]
    ana = await client("Ana")
    frame = orjson.dumps({"type": "create", "options": {"seats": 2, "decks": decks}})
    assert 8_000 < len(frame) < 16_384
    code = await ana.create(seats=2, target=1, bots=[None, "random"], decks=decks)
    await ana.start()
    rng = random.Random(3)
    for _ in range(3000):
        if await next_mover([ana]) is None:
            break
        assert ana.game is not None
        await ana.act(documented_act(rng.choice(ana.game["legal"])))
    await ana.until(lambda c: c.game is not None and c.game["phase"] == "finished")
    first = server.lobby.rooms[code].room.match
    await ana.send({"type": "rematch", "force": False})
    await ana.until(lambda c: c.game is not None and c.game["phase"] != "finished")
    match = server.lobby.rooms[code].room.match
    assert match is not None and match is not first and match.hand_index == 0
    assert [list(d) for d in match.decks] == decks  # dealt from the first stacked deck again


async def test_hello_without_a_name_is_welcomed_as_player(server: GameServer) -> None:
    c = GameClient(f"ws://127.0.0.1:{port_of(server)}/", "unused")
    c._hello = lambda version=2: {"type": "hello", "version": version}  # type: ignore[method-assign]
    await c.connect()
    try:
        await c.create(seats=2)
        assert c.doc is not None and c.doc["room"]["seats"][0]["name"] == "Player"
    finally:
        await c.close()


async def test_the_bots_that_replace_people_play_at_the_documented_levels(
    client: ClientFactory,
) -> None:
    ana, ben, cai = await client("Ana"), await client("Ben"), await client("Cai")
    code = await ana.create(seats=3)
    await ben.join(code)
    await cai.join(code)
    await ben.ready()
    await cai.ready()
    await ana.start()
    await ana.until(lambda c: c.game is not None)
    await ben.send({"type": "leave"})
    await ana.send({"type": "kick", "seat": 2})

    def seat(c: Any, i: int) -> dict[str, Any]:
        entry: dict[str, Any] = c.doc["room"]["seats"][i]
        return entry

    await ana.until(lambda c: seat(c, 1)["kind"] == "bot" and seat(c, 2)["kind"] == "bot")
    assert seat(ana, 1)["level"] == "heuristic" and seat(ana, 2)["level"] == "heuristic"
    assert {"ev": "bot_took", "seat": 1, "name": "Ben", "level": "heuristic"} in ana.log


async def test_coming_back_after_being_away_ends_with_an_away_event(
    server: GameServer, client: ClientFactory
) -> None:
    ana, ben = await client("Ana"), await client("Ben")
    code = await ana.create(seats=2)
    await ben.join(code)
    await ben.ready()
    await ana.start()
    token = ben.token
    await ben.close()
    # Past the grace period a bot plays for Ben: the log says he is away.
    away = {"ev": "away", "seat": 1, "away": True}
    await ana.until(lambda c: away in c.log)
    assert ana.doc is not None and ana.doc["room"]["seats"][1]["away"] is True
    back = GameClient(f"ws://127.0.0.1:{port_of(server)}/", "Ben")
    await back.connect()
    try:
        await back.join(code, token=token)
        # Reconnecting ends it, and the log says so in the same patch that clears the flag.
        returned = {"ev": "away", "seat": 1, "away": False}
        await ana.until(lambda c: returned in c.log)
        cleared = [f for f in ana.frames if f["type"] == "patch" and returned in f.get("log", [])]
        assert len(cleared) == 1
        ops = cleared[0]["ops"]
        assert {"op": "replace", "path": "/room/seats/1/away", "value": False} in ops
        assert back.doc is not None and back.doc["room"]["seats"][1]["away"] is False
    finally:
        await back.close()
