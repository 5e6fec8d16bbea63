"""Shared pieces of the hardening tests: servers on port 0, client pools, tables, checks."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
from collections.abc import AsyncIterator, Callable
from typing import Any

from clients.net import GameClient
from protocol.engine import DECK
from server.app import GameServer, port_of, start_server
from server.config import Settings
from server.room import Room
from server.store.base import Event, Store
from tests.redis_helpers import UNIT

#: KC_LONG_TESTS=1 runs the long versions (more fuzz examples, more matches).
LONG = os.environ.get("KC_LONG_TESTS", "") not in ("", "0")

__all__ = ["LONG", "UNIT"]


def fast_settings(**overrides: Any) -> Settings:
    """Settings for tests that are not about a limit: no bot delay, short pauses.

    Limits keep their defaults unless a test overrides them. The bot workers are niced but
    not idle-class, as in tests/server/conftest.py.
    """
    base: dict[str, Any] = {
        "host": "127.0.0.1",
        "port": 0,
        "bot_delay": 0.0,
        "hand_pause": 0.02,
        "queue_wait": 3600.0,
        "bot_idle_class": False,
    }
    base.update(overrides)
    return Settings(**base)


def default_settings(**overrides: Any) -> Settings:
    """The shipped defaults, on a free loopback port (what "on by default" means here)."""
    return Settings(host="127.0.0.1", port=0, **overrides)


@contextlib.asynccontextmanager
async def serving(settings: Settings, store: Store | None = None) -> AsyncIterator[GameServer]:
    """A real server for the duration of the block, shut down afterwards."""
    game = await start_server(settings, store)
    try:
        yield game
    finally:
        # Let connections the clients already closed finish first: shutdown waits up to a
        # second for any connection whose writer is gone (see test_shutdown.py).
        for _ in range(50):
            if not game.connections:
                break
            await asyncio.sleep(0.01)
        await game.shutdown()


def ws_url(game: GameServer) -> str:
    return f"ws://127.0.0.1:{port_of(game)}/"


class Clients:
    """Real WebSocket clients of one server, all closed at the end."""

    def __init__(self, game: GameServer) -> None:
        self.url = ws_url(game)
        self.made: list[GameClient] = []

    async def new(self, name: str = "Player", **kwargs: Any) -> GameClient:
        c = GameClient(self.url, name, **kwargs)
        await c.connect()
        self.made.append(c)
        return c

    async def close(self) -> None:
        for c in self.made:
            with contextlib.suppress(Exception):
                await c.close()
        self.made.clear()


@contextlib.asynccontextmanager
async def clients_of(game: GameServer) -> AsyncIterator[Clients]:
    pool = Clients(game)
    try:
        yield pool
    finally:
        await pool.close()


async def table(pool: Clients, humans: int, **options: Any) -> list[GameClient]:
    """A started room with ``humans`` people (seat 0 is the host); every client has a game."""
    host = await pool.new("P0")
    code = await host.create(**options)
    players = [host]
    for i in range(1, humans):
        p = await pool.new(f"P{i}")
        await p.join(code)
        await p.ready()
        players.append(p)
    fill = "random" if humans < options.get("seats", 4) else None
    await host.start(fill)
    for p in players:
        await p.until(lambda c: c.game is not None)
    return players


def mover(players: list[GameClient]) -> GameClient | None:
    return next((p for p in players if p.my_turn), None)


def over(c: GameClient) -> bool:
    return c.game is not None and c.game["phase"] == "finished"


async def next_mover(players: list[GameClient], timeout: float = 100 * UNIT) -> GameClient | None:
    """The player whose turn it is, as soon as its own document says so; None once the
    match is over. Each client learns at its own pace, so every one of them is watched."""

    def settled(c: GameClient) -> bool:
        return c.my_turn or over(c)

    watches = [asyncio.ensure_future(p.until(settled, timeout)) for p in players]
    try:
        await asyncio.wait(watches, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for w in watches:
            w.cancel()
        await asyncio.gather(*watches, return_exceptions=True)
    found = mover(players)
    if found is None and not any(over(p) for p in players):
        raise AssertionError("nobody got the turn")
    return found


async def play_moves(players: list[GameClient], rng: random.Random, moves: int) -> int:
    """Whoever's turn it is plays a random legal action, ``moves`` times (fewer if the
    match ends); returns how many were played. Every action must be accepted."""
    played = 0
    while played < moves:
        p = await next_mover(players)
        if p is None:
            break
        reply = await p.act(rng.choice(p.game["legal"]))  # type: ignore[index]
        assert reply["type"] == "patch", reply
        played += 1
    return played


async def settle(players: list[GameClient], version: int) -> None:
    """Wait until every client's document is at ``version``."""
    for p in players:
        await p.until(lambda c: c.version == version, timeout=100 * UNIT)


async def eventually(check: Callable[[], bool], within: float = 50 * UNIT) -> None:
    """Wait until ``check()`` holds, polling; fail after ``within`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while not check():
        if loop.time() > deadline:
            raise AssertionError(f"condition still false after {within:.1f}s")
        await asyncio.sleep(UNIT / 10)


def full_deck_everywhere(events: list[Event]) -> int:
    """Fold a room's events and check that every position holds the 52 cards once each.

    Returns the number of positions checked.
    """
    room = Room(events[0])
    checked = 0
    deck = sorted(DECK)
    for event in events[1:]:
        room.apply(event)
        if room.match is None:
            continue
        pos = room.match.position
        cards = [c for hand in pos.hands for c in hand]
        cards += [c for pile in pos.piles for c in pile]
        cards += list(pos.stock)
        assert sorted(cards) == deck, f"{room.code} v{room.version}: {len(cards)} cards"
        checked += 1
    return checked
