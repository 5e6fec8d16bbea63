"""Protocol versions over real WebSockets: the hello says which, the welcome answers with it,
anything else is refused with the versions spoken; and version 2's frames, pinned by example
(docs/protocol.md, "Versions"; docs/protocol-changes.md)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from clients.net import GameClient, ServerError
from protocol.engine import DECK
from protocol.messages import DEPRECATED_VERSIONS, PROTOCOL_VERSION, SUPPORTED_VERSIONS
from server import account_commands
from server.app import GameServer, port_of

from .conftest import ClientFactory
from .test_identity import fixed_tags
from .test_match_flow import play_until_finished


def url_of(server: GameServer) -> str:
    return f"ws://127.0.0.1:{port_of(server)}/"


def test_this_release_speaks_2_and_still_accepts_1() -> None:
    assert PROTOCOL_VERSION == 2
    assert sorted(DEPRECATED_VERSIONS) == [1]
    assert sorted(SUPPORTED_VERSIONS) == [1, 2]


@pytest.mark.parametrize("version", [1, 2])
async def test_the_welcome_answers_with_the_hellos_version(
    server: GameServer, version: int
) -> None:
    c = GameClient(url_of(server), "Ana")
    c._hello = lambda v=version: {"type": "hello", "version": version, "name": "Ana"}  # type: ignore[method-assign]
    await c.connect()
    try:
        welcome = next(f for f in c.frames if f["type"] == "welcome")
        assert welcome["version"] == version
        await c.create(seats=2)  # and the connection is served
        assert c.doc is not None and c.doc["room"]["seats"][0]["name"] == "Ana"
    finally:
        await c.close()


@pytest.mark.parametrize("version", [0, 3, 99])
async def test_a_version_not_spoken_is_refused_and_another_hello_is_welcome(
    server: GameServer, version: int
) -> None:
    c = GameClient(url_of(server), "Ana")
    c._hello = lambda v=version: {"type": "hello", "version": version, "name": "Ana"}  # type: ignore[method-assign]
    with pytest.raises(ServerError) as refused:
        await c.connect()
    try:
        assert refused.value.code == "unsupported_version"
        assert refused.value.params == {"supported": [1, 2]}
        assert "1, 2" in refused.value.message
        # Refused, still nobody: a request gets hello_first, a hello in 2 gets its welcome.
        await c.send({"type": "list_rooms"})
        assert (await c.wait_for(lambda f: f["type"] == "error"))["code"] == "hello_first"
        await c.send({"type": "hello", "version": 2, "name": "Ana"})
        assert (await c.wait_for(lambda f: f["type"] == "welcome"))["version"] == 2
    finally:
        await c.close()


async def test_the_client_falls_back_to_a_version_an_older_server_speaks(
    server: GameServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A server of the release before speaks only 1 (as during a rolling upgrade).
    monkeypatch.setattr(account_commands, "SUPPORTED_VERSIONS", frozenset({1}))
    c = await GameClient(url_of(server), "Ana").connect()
    try:
        refusal, welcome = [f for f in c.frames if f["type"] in ("error", "welcome")]
        assert refusal["code"] == "unsupported_version" and refusal["params"]["supported"] == [1]
        assert welcome["version"] == 1 and c.protocol == 1
        await c.create(seats=2)
        assert c.doc is not None
    finally:
        await c.close()


async def test_a_client_and_a_server_with_no_version_in_common_stop_at_the_refusal(
    server: GameServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(account_commands, "SUPPORTED_VERSIONS", frozenset({7}))
    c = GameClient(url_of(server), "Ana")
    with pytest.raises(ServerError) as refused:
        await c.connect()
    try:
        assert refused.value.params == {"supported": [7]}
        hellos = [f for f in c.frames if f["type"] == "error"]
        assert len(hellos) == 1 and c.protocol == 0  # one hello, no second try
    finally:
        await c.close()


async def test_version_1_and_2_spectators_get_the_same_frames(
    server: GameServer, client: ClientFactory
) -> None:
    ana = await client("Ana")
    code = await ana.create(seats=2, bots=[None, "random"], target=1)
    watchers = []
    for version in (1, 2):
        w = GameClient(url_of(server), "Watcher")
        hello = {"type": "hello", "version": version, "name": "Watcher"}
        w._hello = lambda _version=0, hello=hello: dict(hello)  # type: ignore[method-assign]
        await w.connect()
        assert w.protocol == version
        await w.join(code, spectate=True)
        watchers.append(w)
    await ana.start()
    await play_until_finished([ana], random.Random(3))
    for w in watchers:
        await w.until(lambda c: c.version == ana.version, timeout=30)
    old, new = ([f for f in w.frames if f["type"] in ("patch", "snapshot")] for w in watchers)
    for w in watchers:
        await w.close()
    assert old == new and len(new) > 2


def _placeholders(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The frames with what each run draws (room code, tokens, player ids) named instead."""
    text = json.dumps(frames)
    for frame in frames:
        if frame["type"] == "welcome":
            text = text.replace(frame["player"], "<player>")
            text = text.replace(frame["player_id"], "<player_id>")
        if frame["type"] == "joined":
            text = text.replace(frame["room"], "ROOM")
            if frame["token"]:
                text = text.replace(frame["token"], "<seat token>")
    result: list[dict[str, Any]] = json.loads(text)
    return result


SEAT = {"kind": "human", "level": None, "connected": True, "away": False}

#: Version 2, as Ana's connection sees it: hello, create, Ben sits and is ready, the start
#: and her first play (a stacked deck in DECK order, seat 1 dealing).
VERSION_2_FRAMES: list[dict[str, Any]] = [
    {
        "type": "welcome",
        "version": 2,
        "server": "kings-corner/0.1",
        "player": "<player>",
        "player_id": "<player_id>",
        "tag": None,
        "name": "Ana",
    },
    {"type": "joined", "room": "ROOM", "role": "player", "seat": 0, "token": "<seat token>"},
    {
        "type": "snapshot",
        "room": "ROOM",
        "version": 2,
        "doc": {
            "room": {
                "rated": False,
                "unrated": "chosen_deal",
                "ratings": None,
                "code": "ROOM",
                "phase": "lobby",
                "public": False,
                "locked": False,
                "options": {
                    "seats": 2,
                    "target": 25,
                    "draw": "end",
                    "kings_first": False,
                    "opening_refill": False,
                    "scoring": "penalty",
                    "turn_timer": None,
                    "casual": False,
                    "pace": "normal",
                },
                "seats": [{"name": "Ana", "tag": "<tag>", **SEAT, "ready": False}, None],
                "host": 0,
                "rematch": [],
                "daily": None,
            },
            "game": None,
        },
    },
    {
        "type": "patch",
        "from": 2,
        "to": 3,
        "ops": [
            {
                "op": "replace",
                "path": "/room/seats/1",
                "value": {"name": "Ben", "tag": "<tag>", **SEAT, "ready": False},
            }
        ],
        "log": [{"ev": "sat", "seat": 1, "name": "Ben", "bot": None}],
    },
    {
        "type": "patch",
        "from": 3,
        "to": 4,
        "ops": [{"op": "replace", "path": "/room/seats/1/ready", "value": True}],
    },
    {
        "type": "patch",
        "from": 4,
        "to": 5,
        "ops": [
            {"op": "replace", "path": "/room/phase", "value": "playing"},
            {
                "op": "replace",
                "path": "/game",
                "value": {
                    "phase": "playing",
                    "hand_no": 1,
                    "seats": 2,
                    "dealer": 1,
                    "turn": 0,
                    "moved": False,
                    "piles": {
                        "N": ["2D"],
                        "E": ["3D"],
                        "S": ["4D"],
                        "W": ["5D"],
                        "NE": [],
                        "SE": [],
                        "SW": [],
                        "NW": [],
                    },
                    "stock": 34,
                    "counts": [7, 7],
                    "target": 25,
                    "totals": [0, 0],
                    "scores": [],
                    "result": None,
                    "winners": None,
                    "you": 0,
                    "hand": ["AC", "3C", "5C", "7C", "9C", "JC", "KC"],
                    "legal": ["AC>N", "3C>S", "KC>NE", "KC>SE", "KC>SW", "KC>NW", "end"],
                },
            },
        ],
        "log": [{"ev": "started", "dealer": 1, "rematch": False}],
    },
    {
        "type": "patch",
        "from": 5,
        "to": 6,
        "ops": [
            {"op": "replace", "path": "/game/moved", "value": True},
            {"op": "add", "path": "/game/piles/N/1", "value": "AC"},
            {"op": "replace", "path": "/game/counts/0", "value": 6},
            {"op": "remove", "path": "/game/hand/0"},
            {"op": "remove", "path": "/game/legal/0"},
        ],
        "log": [{"ev": "played", "seat": 0, "card": "AC", "pile": "N"}],
        "seq": 1,
    },
]


async def test_version_2_frames_are_the_pinned_examples(
    client: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    fixed_tags(monkeypatch, "<tag>")  # a person who sits is given one (drawn at random)
    ana, ben = await client("Ana"), await client("Ben")
    code = await ana.create(seats=2, target=25, decks=[list(DECK)], dealer=1)
    await ben.join(code)
    await ben.ready()
    await ana.start()
    await ana.until(lambda c: c.my_turn)
    answer = await ana.act("AC>N")
    assert answer["type"] == "patch"
    await ben.until(lambda c: c.version == ana.version)
    assert _placeholders(ana.frames) == VERSION_2_FRAMES
