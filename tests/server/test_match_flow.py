"""Whole matches over real WebSocket connections on loopback."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

from clients.net import GameClient
from server.app import port_of, start_server

from .conftest import ClientFactory, make_settings


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


def on_hand(number: int) -> Callable[[GameClient], bool]:
    return lambda c: c.game is not None and c.game["hand_no"] == number


def past(version: int) -> Callable[[GameClient], bool]:
    return lambda c: c.version > version


async def test_a_bot_leading_a_hand_dealt_early_plays_without_waiting_out_the_pause() -> None:
    # The pause between hands is long; a person deals the next hand at once with next_hand.
    # When a bot leads that hand, it must move now, not when the pause would have ended.
    game = await start_server(make_settings(hand_pause=60.0))
    ana = GameClient(f"ws://127.0.0.1:{port_of(game)}/", "Ana")
    try:
        await ana.connect()
        await ana.create(seats=2, target=500, bots=[None, "heuristic"])
        await ana.start()
        bot_led = 0
        for _ in range(4):
            hand = ana.game["hand_no"]  # type: ignore[index]
            while ana.game is not None and ana.game["phase"] == "playing":
                if ana.my_turn:
                    legal = ana.game["legal"]
                    await ana.act("end" if "end" in legal else legal[0])
                else:
                    await ana.until(lambda c: c.my_turn or c.game["phase"] != "playing", 10)  # type: ignore[index]
            assert ana.game is not None and ana.game["phase"] == "hand_over"
            await ana.send({"type": "next_hand"})
            await ana.until(on_hand(hand + 1), 10)
            if ana.game["turn"] != ana.seat:  # type: ignore[index]
                bot_led += 1
                dealt = ana.version
                await ana.until(past(dealt), 5)
        assert bot_led >= 1
    finally:
        await ana.close()
        await game.shutdown()
