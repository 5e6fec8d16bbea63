"""Whole matches over real WebSocket connections on loopback."""

from __future__ import annotations

import asyncio
import random

from clients.net import GameClient

from .conftest import ClientFactory


async def next_mover(players: list[GameClient], timeout: float = 10.0) -> GameClient | None:
    """The player whose turn it is, once its own client knows; None when the match is over."""

    def ready(c: GameClient) -> bool:
        return c.my_turn or (c.game is not None and c.game["phase"] == "finished")

    waits = [asyncio.ensure_future(p.until(ready, timeout)) for p in players]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED, timeout=timeout)
    finally:
        for w in waits:
            w.cancel()
        await asyncio.gather(*waits, return_exceptions=True)
    mover = next((p for p in players if p.my_turn), None)
    if mover is None and not any(ready(p) for p in players):
        raise AssertionError("nobody got the turn")
    return mover


async def play_until_finished(players: list[GameClient], rng: random.Random) -> None:
    """Each player whose turn it is plays a random legal action, until the match ends."""
    for _ in range(5000):
        mover = await next_mover(players)
        if mover is None:
            return
        action = rng.choice(mover.game["legal"])  # type: ignore[index]
        reply = await mover.act(action)
        assert reply["type"] == "patch", reply
    raise AssertionError("match did not finish")


async def test_four_clients_play_a_whole_match(client: ClientFactory) -> None:
    host = await client("Ana")
    code = await host.create(seats=4, target=10)
    others = [await client(name) for name in ("Ben", "Cai", "Dee")]
    for other in others:
        await other.join(code)
        await other.ready()
    players = [host, *others]
    assert sorted(p.seat for p in players) == [0, 1, 2, 3]
    await host.start()
    for p in others:
        await p.until(lambda c: c.game is not None)
    await play_until_finished(players, random.Random(7))
    for p in players:
        await p.until(lambda c: c.game is not None and c.game["phase"] == "finished")
        game = p.game
        assert game is not None
        assert max(game["totals"]) >= 10
        assert game["winners"] == [
            i for i, t in enumerate(game["totals"]) if t == min(game["totals"])
        ]
