"""A room that draws until a card can be played, over real WebSockets: the ``draw`` action,
its ``took`` event, its refusals, its stored format, and bots that finish such a match."""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest
from pydantic import TypeAdapter

import server.room as room_module
from protocol.codec import decode_server
from protocol.errors import UpgradeNeeded
from protocol.log_events import LogEvent
from protocol.messages import RoomOptions
from server.app import GameServer
from server.room import UNTIL_PLAYABLE_FORMAT, create_event, needs_reader

from .audit import Recorder
from .conftest import ClientFactory
from .test_events import documented_act
from .test_match_flow import next_mover

EVENTS: TypeAdapter[Any] = TypeAdapter(LogEvent)


async def test_two_people_play_a_match_that_draws_until_playable(
    server: GameServer, client: ClientFactory, recorder: Recorder
) -> None:
    ana, ben = await client("Ana"), await client("Ben")
    code = await ana.create(seats=2, target=10, draw="until_playable", dealer=1, seed="until")
    await ben.join(code)
    await ben.ready()
    await ana.start()
    await ana.until(lambda c: c.my_turn)
    assert ana.doc is not None and ana.doc["room"]["options"]["draw"] == "until_playable"
    # The first turn: nothing played yet and a full stock, so it cannot end.
    legal = ana.game["legal"]  # type: ignore[index]
    assert "end" not in legal
    refused = await ana.act({"type": "end_turn"})
    assert (refused["type"], refused["code"]) == ("error", "must_play_card")
    if "draw" not in legal:
        refused = await ana.act({"type": "draw"})
        assert refused["code"] == "cannot_draw"
        assert refused["params"]["reason"] == "playable"
    rng = random.Random(5)
    draws = 0
    for _ in range(4000):
        mover = await next_mover([ana, ben])
        if mover is None:
            break
        assert mover.game is not None
        legal = mover.game["legal"]
        text = "draw" if "draw" in legal else rng.choice(legal)
        stock = mover.game["stock"]
        reply = await mover.act(documented_act(text))
        assert reply["type"] == "patch", reply
        if text == "draw":
            draws += 1
            took = [e for e in reply.get("log", []) if e["ev"] == "took"]
            assert took == [{"ev": "took", "seat": mover.seat, "count": 1}]
            assert mover.game["stock"] == stock - 1
            assert mover.game["turn"] == mover.seat
    await ben.until(lambda c: c.game is not None and c.game["phase"] == "finished")
    assert draws > 0
    kinds = set()
    for sent in recorder.sent:
        decode_server(orjson.dumps(sent.frame))
        for event in sent.frame.get("log", []):
            EVENTS.validate_python(event)
            kinds.add(event["ev"])
    assert {"took", "ended", "hand_over", "match_over"} <= kinds
    assert "drew" not in kinds  # no turn ends with a draw
    stored = await server.store.read(code)
    assert stored[0]["e"] == "create" and stored[0]["v"] == UNTIL_PLAYABLE_FORMAT
    acts = [e for e in stored if e["e"] == "act"]
    assert sum(e["a"] == "draw" for e in acts) == draws
    assert all(("v" in e) == (e["a"] == "draw") for e in acts)


async def test_bots_of_every_kind_finish_a_match_that_draws_until_playable(
    server: GameServer, client: ClientFactory
) -> None:
    ana = await client("Ana")
    bots = [None, "random", "easy", "expert"]
    await ana.create(seats=4, target=12, draw="until_playable", bots=bots, seed="bots", pace="fast")
    await ana.start()
    rng = random.Random(9)
    for _ in range(4000):
        mover = await next_mover([ana], timeout=20)
        if mover is None:
            break
        assert mover.game is not None
        reply = await mover.act(rng.choice(mover.game["legal"]))
        assert reply["type"] == "patch", reply
    await ana.until(lambda c: c.game is not None and c.game["phase"] == "finished", 30)
    game = ana.game
    assert game is not None and max(game["totals"]) >= 12
    took = {e["seat"] for e in ana.log if e["ev"] == "took"}
    assert took - {ana.seat}, "no bot ever drew"


def test_a_reader_of_format_1_leaves_such_a_room_to_newer_processes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    until = create_event("AAAAAA", RoomOptions(seats=2, draw="until_playable"))
    plain = create_event("BBBBBB", RoomOptions(seats=2))
    assert until["v"] == UNTIL_PLAYABLE_FORMAT and "v" not in plain
    needs_reader(until, "AAAAAA")  # this release reads it
    monkeypatch.setattr(room_module, "EVENT_FORMAT", 1)  # the release before
    needs_reader(plain, "BBBBBB")
    with pytest.raises(UpgradeNeeded) as refused:
        needs_reader(until, "AAAAAA")
    assert refused.value.params == {"room": "AAAAAA", "format": UNTIL_PLAYABLE_FORMAT}
