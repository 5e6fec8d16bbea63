"""The hidden-card audit under load: many matches at once through one server, on the
in-memory store and on Redis. Every frame any connection was sent is checked against the
room's stored log (tests/server/audit.py), and every position of every match must hold
the 52 cards exactly once.

Most rooms are all bots with spectators; some have scripted people who also ask for hints
and resyncs. ``KC_LONG_TESTS=1`` plays ten times as many matches.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from clients.net import GameClient
from server.app import GameServer
from server.room import Room
from tests.server import audit as audit_module
from tests.server.audit import Recorder, audit

from .helpers import LONG, UNIT, Clients, eventually, fast_settings, next_mover, serving
from .helpers import full_deck_everywhere as full_deck

MATCHES = 500 if LONG else 50
AT_ONCE = 12
LEVELS = ("random", "heuristic")


@pytest.fixture(params=["memory", "redis"])
def store_settings(
    request: pytest.FixtureRequest, redis_url: str, redis_prefix: str
) -> Iterator[dict[str, object]]:
    """Settings overrides for each store: none for memory, a private prefix on Redis."""
    if request.param == "memory":
        yield {}
    else:
        yield {"redis_url": redis_url, "redis_prefix": redis_prefix}


class Watcher:
    """A spectator that only drains what it is sent: the recorder keeps the frames, so it
    need not spend the CPU a full client spends keeping its document."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.frames = 0
        self._drain = asyncio.create_task(self._read())

    @classmethod
    async def watch(cls, pool: Clients, code: str) -> Watcher:
        ws = await connect(pool.url, max_size=2**20)
        await ws.send('{"type": "hello", "version": 1, "name": "Watcher"}')
        await ws.send(f'{{"type": "join", "room": "{code}", "spectate": true}}')
        return cls(ws)

    async def _read(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for _ in self.ws:
                self.frames += 1

    async def close(self) -> None:
        await self.ws.close()
        await self._drain


async def bot_match(pool: Clients, rng: random.Random) -> tuple[str, list[GameClient]]:
    """Bots in every seat and spectators; the host starts, then leaves its seat to a bot
    and stays on as a spectator."""
    seats = rng.choice((2, 3, 4))
    host = await pool.new("Host")
    bots = [None, *(rng.choice(LEVELS) for _ in range(seats - 1))]
    code = await host.create(seats=seats, target=rng.choice((1, 1, 3)), bots=bots)
    await host.start()
    await host.request({"type": "leave"}, "left")
    await host.join(code, spectate=True)  # mid-match
    return code, [host]


async def people_match(pool: Clients, rng: random.Random) -> tuple[str, list[GameClient]]:
    """One or two scripted people with bots; they play random moves and now and then ask
    for a hint or a resync."""
    seats = rng.choice((2, 3, 4))
    people = rng.randint(1, min(2, seats))
    host = await pool.new("Ana")
    bots = [None] * people + [rng.choice(LEVELS) for _ in range(seats - people)]
    code = await host.create(seats=seats, target=1, bots=bots)
    players = [host]
    for i in range(1, people):
        p = await pool.new(f"P{i}")
        await p.join(code, seat=i)
        await p.ready()
        players.append(p)
    await host.start()
    while True:
        mover = await next_mover(players)
        if mover is None or mover.game is None:
            break
        roll = rng.random()
        if roll < 0.05:
            hint = await mover.request({"type": "hint"}, "hint")
            # A hint names a card of the asker's own hand, for a move it may make.
            assert hint["text"] in mover.game["legal"], (hint, mover.game["legal"])
        elif roll < 0.1:
            await mover.request({"type": "resync"}, "snapshot")
        elif roll < 0.12:
            await mover.send({"type": "chat", "text": "7H on N, anyone?"})
        reply = await mover.act(rng.choice(mover.game["legal"]))
        assert reply["type"] == "patch", reply
    return code, players


async def play_all(game: GameServer, pool: Clients) -> list[str]:
    """Play MATCHES matches, AT_ONCE at a time, each watched from the start by a
    spectator; return the room codes."""
    gate = asyncio.Semaphore(AT_ONCE)
    codes: list[str] = []

    async def one(i: int) -> None:
        rng = random.Random(i)
        async with gate:
            make = people_match if i % 3 == 0 else bot_match
            code, clients = await make(pool, rng)
            watcher = await Watcher.watch(pool, code)
            live = game.lobby.rooms[code]
            await eventually(lambda: live.room.phase == "finished", within=600 * UNIT)
            codes.append(code)
            await watcher.close()
            for c in clients:
                await c.close()

    await asyncio.gather(*(one(i) for i in range(MATCHES)))
    return codes


def linear_states(events: list[dict[str, Any]]) -> dict[int, Room]:
    """What tests/server/audit.py's ``states`` computes, in linear instead of quadratic
    time: fold the events once and keep a copy of the room at every version. The match is
    an immutable value, so the copies share it."""
    room = Room(events[0])
    out = {1: copy.deepcopy(room)}
    for version, event in enumerate(events[1:], start=2):
        room.apply(event)
        out[version] = copy.deepcopy(room, {id(room.match): room.match})
    return out


def same_states(events: list[dict[str, Any]]) -> bool:
    slow, fast = audit_module.states(events), linear_states(events)
    seats = range(len(slow[1].seats))
    return slow.keys() == fast.keys() and all(
        slow[v].doc(viewer) == fast[v].doc(viewer) for v in slow for viewer in (None, *seats)
    )


async def test_no_card_reaches_a_viewer_who_may_not_see_it(
    store_settings: dict[str, object], recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Bots think in threads of the server here: in the idle-priority workers, the bot-only
    # rooms would make no progress at all on a machine busy with other work (by design),
    # and this test is about what every frame carries, not about whose CPU the bots use.
    settings = fast_settings(hand_pause=0.0, rate=1e6, burst=10**6, bot_workers=0, **store_settings)
    started = time.monotonic()
    async with serving(settings) as game:
        pool = Clients(game)
        try:
            codes = await play_all(game, pool)
            logs = {code: await game.store.read(code) for code in codes}
        finally:
            await pool.close()
    played = time.monotonic() - started
    assert len(logs) == MATCHES
    positions = sum(full_deck(events) for events in logs.values())
    # Hints name a card of the asker's hand (checked as they came); the audit knows only
    # documents, so they are left out of it.
    recorder.sent = [s for s in recorder.sent if s.frame["type"] != "hint"]
    samples = list(logs.values())[:2]
    assert all(same_states(events) for events in samples)
    monkeypatch.setattr(audit_module, "states", linear_states)
    checked = audit(recorder, logs)
    # Every match was watched from the start by a spectator: every frame was audited.
    assert checked > MATCHES * 50, checked
    assert positions > MATCHES * 20, positions
    audited = time.monotonic() - started - played
    print(f"{MATCHES} matches in {played:.1f}s; {checked} frames audited in {audited:.1f}s")
