"""End to end on both stores: play a short match, fetch its record over HTTP with the replay
client, rebuild it and step through it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from clients.net import GameClient
from clients.terminal.replay import ReplayError, build, fetch_record, main, navigate
from server.app import GameServer, port_of
from tests.server.conftest import ClientFactory, client, server

#: The fixtures of the server tests: a live server on the memory store and on Redis.
__all__ = ["client", "server"]


def my_turn_or_over(c: GameClient) -> bool:
    game = c.game
    return game is not None and (game["phase"] != "playing" or bool(game.get("legal")))


def next_hand_after(hand: int) -> Callable[[GameClient], bool]:
    return lambda c: c.game is not None and c.game["hand_no"] != hand


async def play_out(c: GameClient) -> None:
    """Take the first legal action on every turn until the match is over."""
    while True:
        await c.until(my_turn_or_over, timeout=30)
        game = c.game
        assert game is not None
        if game["phase"] == "finished":
            return
        if game["phase"] == "hand_over":
            await c.until(next_hand_after(game["hand_no"]))
            continue
        frame = await c.act(game["legal"][0])
        assert frame["type"] == "patch", frame


async def finished_match(c: GameClient) -> dict[str, object]:
    """The summary of ``c``'s finished match (it is recorded just after the match ends)."""
    async with asyncio.timeout(10):
        while True:
            reply = await c.request({"type": "my_matches"}, "matches")
            if reply["matches"]:
                summary: dict[str, object] = reply["matches"][0]
                return summary
            await asyncio.sleep(0.05)


async def test_a_played_match_replays_from_its_record(
    server: GameServer, client: ClientFactory
) -> None:
    ana = await client("Ana")
    await ana.create(seats=2, target=5, bots=[None, "random"])
    await ana.start()
    await play_out(ana)
    game = ana.game
    assert game is not None
    summary = await finished_match(ana)
    assert summary["totals"] == game["totals"] and summary["winners"] == game["winners"]
    match_id = str(summary["id"])

    base = f"http://127.0.0.1:{port_of(server)}"
    record = await asyncio.to_thread(fetch_record, base, match_id)
    assert record["id"] == match_id and record["totals"] == game["totals"]
    replay = build(record)
    assert replay.totals == game["totals"] and replay.winners == game["winners"]
    assert replay.mismatch() is None
    assert len(replay.hand_starts) == len(game["scores"]) and replay.last == len(record["log"])
    # Every step of the replay is the match after that many entries of the server's log.
    for step in replay.steps:
        assert step.match.log == tuple(record["log"][: step.index])
    assert navigate(replay, 0, "e").index == replay.last
    assert navigate(replay, replay.last, "h 1").index == 0

    # The command line, with a WebSocket address: forward twice, back, to the end, quit.
    lines = iter(["", "n", "b", "e", "q"])
    out: list[str] = []
    argv = [match_id, "--url", ana.url, "--ascii"]
    status = await asyncio.to_thread(main, argv, read_line=lambda: next(lines), write=out.append)
    assert status == 0
    assert out[0].startswith(f"Match {match_id} in room {record['room']}, finished ")
    steps = [int(text.split(" · step ")[1].split()[0]) for text in out if " · step " in text]
    assert steps == [0, 1, 2, 1, replay.last]
    assert "Match over: " in out[-1] and "Ana" in out[-1]

    with pytest.raises(ReplayError, match="has no finished match"):
        await asyncio.to_thread(fetch_record, base, "NOSUCH-1")
    out.clear()
    status = await asyncio.to_thread(main, ["NOSUCH-1", "--url", base], write=out.append)
    assert status == 1 and "has no finished match NOSUCH-1" in out[0]
