"""The docs-only client against the real server: whole matches, and refusals.

The client (docs_client.py) knows the protocol only from docs/protocol.md and
protocol/schema.json; these tests only start the server and tell the client what to do. A
failure lists every disagreement the client recorded: what, expected per the contract,
actual, and the frame.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

import pytest

from server.app import GameServer, port_of, start_server
from tests.redis_helpers import DEFAULT_REDIS_URL, UNIT, delete_prefix
from tests.server.conftest import make_settings

from .docs_client import PILES, Contract, DocsClient, action_of, contract_drift

MATCH = 400 * UNIT  # a whole short match, at most
REPLY = 50 * UNIT  # one answer, at most
SEED = "contract-seed-q7x2"  # reproducible deals; the string must never reach a client


@pytest.fixture(scope="module")
def contract() -> Contract:
    return Contract.load()


@asynccontextmanager
async def running(store: str) -> AsyncIterator[GameServer]:
    """A real server on a free port: the memory store, or Redis under a private prefix."""
    if store == "memory":
        game = await start_server(make_settings())
        try:
            yield game
        finally:
            await game.shutdown()
        return
    url = os.environ.get("REDIS_URL", DEFAULT_REDIS_URL)
    prefix = f"kc-contract-{uuid.uuid4().hex[:12]}"
    game = await start_server(make_settings(redis_url=url, redis_prefix=prefix, tick=0.2))
    try:
        yield game
    finally:
        await game.shutdown()
        await delete_prefix(url, prefix)


def url_of(game: GameServer) -> str:
    return f"ws://127.0.0.1:{port_of(game)}/"


def assert_honest(*clients: DocsClient) -> None:
    """No client recorded a disagreement, and each kept its copy equal to the server's."""
    report = "\n".join(c.report() for c in clients if c.problems)
    assert not report, "the server disagrees with the contract:\n" + report
    for c in clients:
        assert c.stats["checks"] >= 1, (c.label, dict(c.stats))
        assert c.stats["mismatches"] == 0 and c.stats["gaps"] == 0, (c.label, dict(c.stats))
        assert c.stats["refused_legal"] == 0, (c.label, c.errors)
        # "Every request gets exactly one answer": each act's patch or error, with its seq.
        assert c.sent_seqs == c.answered, (c.label, sorted(c.sent_seqs - c.answered))


def in_phase(client: DocsClient, phase: str) -> bool:
    return client.phase() == phase


def assert_match_events(c: DocsClient) -> None:
    """One `started`, a `dealt` for every later hand, plays, and one `match_over`."""
    stats = c.stats
    for ev in ("started", "played", "hand_over", "match_over"):
        assert stats[f"ev:{ev}"] > 0, (c.label, ev, dict(stats))
    assert stats["ev:started"] == stats["ev:match_over"] == 1, dict(stats)
    hands = stats["ev:hand_over"]
    assert hands - 1 <= stats["ev:dealt"] <= hands, dict(stats)


def public(doc: dict[str, Any]) -> dict[str, Any]:
    """A player's document without what only its seat sees."""
    game = {k: v for k, v in doc["game"].items() if k not in ("you", "hand", "legal")}
    return {"room": doc["room"], "game": game}


async def finish(*clients: DocsClient) -> None:
    for c in clients:
        await c.check_now(REPLY)
    for c in clients:
        await c.leave(REPLY)
        await c.close()


def test_contract_files_agree(contract: Contract) -> None:
    """The docs' tables and JSON examples against the schema (no server)."""
    assert contract.events and contract.errors  # the tables were found
    drift = contract_drift(contract)
    assert not drift, "docs/protocol.md and protocol/schema.json disagree:\n" + "\n".join(drift)


def test_legal_text_maps_to_act_as_documented() -> None:
    assert action_of("7H>N") == {"type": "play", "card": "7H", "pile": "N"}
    assert action_of("10D>NW") == {"type": "play", "card": "10D", "pile": "NW"}
    assert action_of("N>E") == {"type": "move", "from": "N", "to": "E"}
    assert action_of("S>NE") == {"type": "move", "from": "S", "to": "NE"}
    assert action_of("end") == {"type": "end_turn"}
    for bad in ("7H", "7H>X", "1H>N", "end_turn", "X>N"):
        with pytest.raises(ValueError):
            action_of(bad)


@pytest.mark.parametrize("store", ["memory", "redis"])
async def test_two_docs_clients_and_a_spectator_play_a_match(
    contract: Contract, store: str
) -> None:
    async with running(store) as game:
        url = url_of(game)
        common: dict[str, Any] = {"contract": contract, "secrets": (SEED,)}
        host = DocsClient(url, "Ana", label="host", seed=1, resync_every=7, **common)
        guest = DocsClient(url, "Bea", label="guest", seed=2, resync_every=5, **common)
        watcher = DocsClient(url, "Cy", label="spectator", resync_every=6, **common)
        clients = (host, guest, watcher)
        try:
            await host.connect(REPLY)
            room = await host.create({"seats": 2, "target": 3, "seed": SEED}, REPLY)
            await guest.connect(REPLY)
            await guest.join(room, timeout=REPLY)
            await watcher.connect(REPLY)
            await watcher.join(room, spectate=True, timeout=REPLY)
            assert (host.seat, guest.seat, watcher.role) == (0, 1, "spectator")

            ready = await guest.request({"type": "ready", "ready": True}, ("patch",), REPLY)
            assert ready["type"] == "patch", ready
            await host.check_now(REPLY)  # caught up: the next patch answers `start`
            started = await host.request({"type": "start", "fill": None}, ("patch",), REPLY)
            assert started["type"] == "patch", started
            for c in clients:
                await c.play(REPLY, until=partial(in_phase, c, "playing"))

            # Off its turn, a seat is refused (nothing moves: the other seat waits for us).
            off = guest if guest.legal() == [] else host
            assert off.legal() == [], (host.legal(), guest.legal())
            seq = await off.act({"type": "end_turn"})
            refusal = await off.wait_for(lambda f: f.get("seq") == seq, REPLY, "refusal")
            assert (refusal["type"], refusal.get("code")) == ("error", "not_your_turn"), refusal

            await asyncio.gather(*(c.play(MATCH) for c in clients))
            for c in clients:
                await c.check_now(REPLY)
            if host.version == watcher.version:
                assert public(host.doc or {}) == watcher.doc
            assert_honest(*clients)
            acts = host.stats + guest.stats
            assert acts["act:play"] > 0 and acts["act:end_turn"] > 0, dict(acts)
            assert_match_events(watcher)
            assert watcher.doc is not None and watcher.doc["game"]["winners"]
            await finish(*clients)
            assert_honest(*clients)
        finally:
            for c in clients:
                await c.close()


async def test_docs_client_against_three_bots(contract: Contract) -> None:
    async with running("memory") as game:
        me = DocsClient(
            url_of(game), "Dee", contract=contract, seed=3, resync_every=6, secrets=(SEED,)
        )
        try:
            await me.connect(REPLY)
            options = {
                "seats": 4,
                "bots": [None, "heuristic", "heuristic", "heuristic"],
                "target": 12,
                "seed": SEED,
            }
            await me.create(options, REPLY)
            started = await me.request({"type": "start", "fill": None}, ("patch",), REPLY)
            assert started["type"] == "patch", started
            await me.play(MATCH)
            assert me.doc is not None and me.doc["game"]["winners"] is not None
            assert me.stats["act:play"] > 0, dict(me.stats)
            assert_match_events(me)
            assert me.stats["ev:hand_over"] >= 2, dict(me.stats)  # several hands
            await finish(me)
            assert_honest(me)
        finally:
            await me.close()


async def test_refusals_are_documented_errors(contract: Contract) -> None:
    """Refused requests: each error validates, is in the docs' table and changes nothing."""
    async with running("memory") as game:
        url = url_of(game)
        me = DocsClient(url, "Eve", contract=contract, seed=4, resync_every=0, label="player")
        fresh = DocsClient(url, "Flo", contract=contract, label="fresh")
        wrong: list[str] = []  # error frames that are not what the docs say

        def expect(frame: dict[str, Any], code: str, **params: object) -> None:
            got = frame.get("params") or {}
            if (
                frame.get("type") != "error"
                or frame.get("code") != code
                or any(got.get(k) != v for k, v in params.items())
            ):
                wrong.append(f"expected error {code} with params {params}; actual {frame}")

        async def act(action: dict[str, Any]) -> dict[str, Any]:
            seq = await me.act(action)
            frame = await me.wait_for(lambda f: f.get("seq") == seq, REPLY, f"answer to {action}")
            if frame["type"] == "error" and frame.get("seq") != seq:
                wrong.append(f"error does not carry the act's seq {seq}: {frame}")
            return frame

        async def raw(data: str | bytes) -> dict[str, Any]:
            await me.send_raw(data)
            return await me.wait_for(lambda f: f.get("type") == "error", REPLY, "error")

        try:
            await me.connect(REPLY)
            # A long match against one bot: whatever the deal, a turn of ours comes before the end.
            options = {"seats": 2, "bots": [None, "heuristic"], "target": 100, "seed": SEED}
            await me.create(options, REPLY)
            await me.request({"type": "start", "fill": None}, ("patch",), REPLY)
            await me.play(MATCH, until=lambda: bool(me.legal()) and me.pending_act is None)
            await me.check_now(REPLY)
            before = me.version
            assert me.doc is not None
            game_doc = me.doc["game"]
            hand, legal = game_doc["hand"], me.legal()

            # An action the document's `legal` does not list: a card, and a pile move.
            card, pile = next((c, p) for c in hand for p in PILES if f"{c}>{p}" not in legal)
            answer = await act({"type": "play", "card": card, "pile": pile})
            if answer.get("code") in ("does_not_fit", "corner_needs_king"):
                expect(answer, answer["code"], card=card, pile=pile)
            elif answer.get("type") != "error":
                wrong.append(f"{card}>{pile} is not in legal {legal} but was accepted: {answer}")
            full = next(p for p in PILES if game_doc["piles"][p])
            answer = await act({"type": "move", "from": full, "to": full})
            expect(answer, "cannot_move_pile", reason="itself")
            seen = set(hand) | {c for p in game_doc["piles"].values() for c in p}
            absent = next(
                f"{rank}{suit}"
                for rank in ("A", *map(str, range(2, 11)), "J", "Q", "K")
                for suit in "CDHS"
                if f"{rank}{suit}" not in seen
            )
            answer = await act({"type": "play", "card": absent, "pile": "N"})
            expect(answer, "not_in_hand", card=absent)
            answer = await act({"type": "play", "card": hand[0], "pile": "XX"})
            expect(answer, "no_such_pile", pile="XX")
            answer = await act({"type": "play", "card": "ZZ", "pile": "N"})
            expect(answer, "bad_action", card="ZZ")

            # Malformed frames (each indeed invalid per the schema), binary, and too large.
            for text, reason in (
                ("{not json", "not_json"),
                ("[1, 2]", "not_object"),
                ('{"type": "fly"}', "invalid"),
                ('{"type": "resync", "extra": 1}', "invalid"),
            ):
                if reason != "not_json":
                    assert contract.client_problems(json.loads(text)), text
                expect(await raw(text), "bad_message", reason=reason)
            missing = await raw('{"type": "act", "seq": 98}')
            expect(missing, "bad_message", reason="invalid", field="action", problem="missing")
            expect(await raw(b"\x00\x01binary"), "bad_message", reason="binary")
            big = json.dumps({"type": "chat", "text": "x" * 20_000})
            assert 16 * 1024 < len(big) < 4 * 16 * 1024
            expect(await raw(big), "bad_message", reason="too_large", limit=16 * 1024)

            # Nothing changed: the same version, the same document, still my turn.
            await me.check_now(REPLY)
            assert me.version == before, (before, me.version)
            assert me.legal() == legal

            # Before hello; an unsupported version; a room that does not exist.
            await fresh.connect(REPLY, hello=False)
            await fresh.send({"type": "resync"})
            expect(await fresh.wait_for(lambda f: True, REPLY, "error"), "hello_first")
            await fresh.send({"type": "hello", "version": contract.version + 1, "name": "Flo"})
            expect(
                await fresh.wait_for(lambda f: True, REPLY, "error"),
                "unsupported_version",
                supported=list(contract.accepted),
            )
            await fresh.send({"type": "hello", "version": contract.version, "name": "Flo"})
            welcome = await fresh.wait_for(lambda f: f.get("type") == "welcome", REPLY, "welcome")
            assert welcome["version"] == contract.version, welcome
            await fresh.send({"type": "join", "room": "ZZZZZZ"})
            expect(await fresh.wait_for(lambda f: True, REPLY, "error"), "room_not_found")
            # The docs' own example of `field`: "the first field at fault (`options.seats`)".
            too_many = {"type": "create", "options": {"seats": 9}}
            assert contract.client_problems(too_many)
            await fresh.send_raw(json.dumps(too_many))
            expect(
                await fresh.wait_for(lambda f: True, REPLY, "error"),
                "bad_message",
                reason="invalid",
                field="options.seats",
            )

            await me.leave(REPLY)
            refusals = me.errors + fresh.errors
            assert len(refusals) >= 14, refusals
            assert all(e["code"] in contract.errors for e in refusals)
            assert not wrong, "refusals that disagree with the docs:\n" + "\n".join(wrong)
            assert not me.problems and not fresh.problems, me.report() + "\n" + fresh.report()
            assert me.sent_seqs == me.answered, sorted(me.sent_seqs - me.answered)
        finally:
            await me.close()
            await fresh.close()


class FakeSocket:
    """Stands in for the WebSocket when frames are fed to the client by hand."""

    def __init__(self) -> None:
        self.sent: list[str | bytes] = []

    async def send(self, data: str | bytes) -> None:
        self.sent.append(data)


async def test_the_client_notices_drift(contract: Contract) -> None:
    """Its checks are not vacuous: frames that break the contract are each caught."""
    client = DocsClient("ws://unused", "T", contract=contract, resync_every=0)
    socket = FakeSocket()
    client.ws = socket  # type: ignore[assignment]
    client.room, client.role, client.seat = "K7QMXA", "player", 0

    async def feed(frame: dict[str, Any]) -> list[str]:
        before = len(client.problems)
        await client.handle(json.dumps(frame))
        return client.problems[before:]

    # The docs' own example document is consistent by every check of the client.
    doc = copy.deepcopy(contract.example_doc)
    assert not await feed({"type": "snapshot", "room": "K7QMXA", "version": 12, "doc": doc})

    def patch(start: int, ops: list[Any], log: list[Any]) -> dict[str, Any]:
        return {
            "type": "patch",
            "from": start,
            "to": start + 1,
            "ops": ops,
            "log": log,
        }

    played = {"ev": "played", "seat": 0, "card": "7H", "pile": "N"}
    ops = [
        {"op": "add", "path": "/game/piles/N/-", "value": "7H"},
        {"op": "remove", "path": "/game/hand/0"},
        {"op": "replace", "path": "/game/counts/0", "value": 6},
        {"op": "replace", "path": "/game/legal", "value": ["end"]},
    ]
    assert not await feed(patch(12, ops, [played]))
    assert client.version == 13 and client.doc is not None
    assert client.doc["game"]["piles"]["N"] == ["8C", "7H"]

    found = await feed(patch(13, [{"op": "add", "path": "/game/peek", "value": ["AS"]}], []))
    assert any("may not see" in p for p in found) and any("undocumented game" in p for p in found)
    # The schema allows an added field (a later release may add one); not the docs' table.
    found = await feed(patch(14, [], [{**played, "extra": 1, "seat": "0"}]))
    assert any("ServerMessage" in p for p in found) and any("events table" in p for p in found)
    found = await feed(
        {"type": "error", "code": "not_in_hand", "params": {"pile": "N"}, "message": "x"}
    )
    assert any("errors table" in p for p in found)
    found = await feed({"type": "error", "code": "no_such_code", "message": "x"})
    assert any("errors table" in p for p in found)
    found = await feed(patch(40, [], []))
    assert any("does not follow my version" in p for p in found)
    assert socket.sent == [json.dumps({"type": "resync"})]

    watcher = DocsClient("ws://unused", "W", contract=contract)
    watcher.room, watcher.role = "K7QMXA", "spectator"
    await watcher.handle(
        json.dumps(
            {"type": "snapshot", "room": "K7QMXA", "version": 1, "doc": contract.example_doc}
        )
    )
    assert any("spectator document shows" in p for p in watcher.problems)
    assert any("may not see" in p for p in watcher.problems)  # the hand's cards
