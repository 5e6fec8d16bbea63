"""Identity, the daily deal, leaderboards, match history and replays (both stores)."""

from __future__ import annotations

import asyncio
import json
import random
import urllib.error
import urllib.request

import jsonpatch
import pytest

from clients.net import GameClient
from protocol.engine import replay
from server.app import GameServer, port_of

from .conftest import ClientFactory
from .test_match_flow import play_until_finished


def get(game: GameServer, path: str) -> tuple[int, dict[str, object]]:
    url = f"http://127.0.0.1:{port_of(game)}{path}"
    try:
        with urllib.request.urlopen(url, timeout=5) as reply:
            return int(reply.status), json.load(reply)
    except urllib.error.HTTPError as exc:
        return int(exc.code), json.load(exc)


#: Short daily matches against quick bots, so the tests finish fast.
pytestmark = pytest.mark.settings(daily_target=3, daily_level="random")


def first_frame(c: GameClient, kind: str) -> dict[str, object]:
    return next(f for f in c.frames if f["type"] == kind)


async def test_the_player_token_is_the_same_player_on_every_visit(
    server: GameServer, client: ClientFactory
) -> None:
    first = await client("Ana")
    welcome = first_frame(first, "welcome")
    assert len(str(welcome["player"])) >= 22 and welcome["player_id"]
    again = GameClient(first.url, "Ana")
    again.player = str(welcome["player"])
    await again.connect()
    try:
        assert first_frame(again, "welcome")["player_id"] == welcome["player_id"]
    finally:
        await again.close()
    other = await client("Ben")
    assert first_frame(other, "welcome")["player_id"] != welcome["player_id"]


async def play_daily(c: GameClient) -> None:
    await c.send({"type": "daily"})
    await c.until(lambda cl: cl.game is not None)
    await play_until_finished([c], random.Random(1))
    await c.until(lambda cl: cl.game is not None and cl.game["phase"] == "finished")


async def test_everyone_gets_the_same_daily_deal_and_only_the_first_is_ranked(
    server: GameServer, client: ClientFactory
) -> None:
    ana, ben = await client("Ana"), await client("Ben")
    await ana.send({"type": "daily"})
    await ben.send({"type": "daily"})
    await ana.until(lambda c: c.game is not None)
    await ben.until(lambda c: c.game is not None)
    assert ana.room != ben.room
    # Same deal: same seven cards for the person, same first dealer.
    await ana.until(lambda c: c.my_turn)
    await ben.until(lambda c: c.my_turn)
    assert ana.game["hand"] == ben.game["hand"]  # type: ignore[index]
    assert ana.game["dealer"] == ben.game["dealer"]  # type: ignore[index]
    assert ana.doc["room"]["daily"]["ranked"] is True  # type: ignore[index]
    await play_until_finished([ana], random.Random(1))
    await ana.until(lambda c: c.game is not None and c.game["phase"] == "finished")
    ranked_total = ana.game["totals"][0]  # type: ignore[index]
    # Ana's second daily today is a replay: not ranked.
    await ana.send({"type": "leave"})
    await ana.wait_for(lambda f: f["type"] == "left")
    await ana.send({"type": "daily"})
    await ana.until(lambda c: c.doc is not None and c.doc["room"]["daily"] is not None)
    assert ana.doc["room"]["daily"]["ranked"] is False  # type: ignore[index]
    reply = await ben.request({"type": "leaderboard", "board": "daily"}, "leaderboard")
    for _ in range(50):
        if reply["entries"]:
            break
        await asyncio.sleep(0.05)
        reply = await ben.request({"type": "leaderboard", "board": "daily"}, "leaderboard")
    assert [e["name"] for e in reply["entries"]] == ["Ana"]  # type: ignore[index]
    # The result is the one the server computed for Ana's first (ranked) daily.
    assert reply["entries"][0]["penalty"] == ranked_total  # type: ignore[index]


async def test_results_count_on_the_all_time_board_and_in_history(
    server: GameServer, client: ClientFactory
) -> None:
    a, b = await client("Ana"), await client("Ben")
    code = await a.create(seats=2, target=4)
    await b.join(code)
    await b.ready()
    await a.start()
    await play_until_finished([a, b], random.Random(5))
    await a.until(lambda c: c.game is not None and c.game["phase"] == "finished")
    totals, winners = a.game["totals"], a.game["winners"]  # type: ignore[index]
    board: list[dict[str, object]] = []
    for _ in range(50):
        status, payload = await asyncio.to_thread(get, server, "/api/leaderboard?board=alltime")
        board = payload["entries"]  # type: ignore[assignment]
        if len(board) == 2:
            break
        await asyncio.sleep(0.05)
    assert status == 200 and {row["name"] for row in board} == {"Ana", "Ben"}
    assert sum(int(row["won"]) for row in board) == len(winners)  # type: ignore[call-overload]
    reply = await a.request({"type": "my_matches"}, "matches")
    [summary] = reply["matches"]  # type: ignore[misc]
    assert summary["totals"] == totals and summary["room"] == code
    status, record = await asyncio.to_thread(get, server, f"/api/matches/{summary['id']}")
    assert status == 200
    replayed = replay(record)  # the engine reproduces the match from the record
    assert list(replayed.totals) == totals and list(replayed.winners) == winners
    status, frames = await asyncio.to_thread(get, server, f"/api/matches/{summary['id']}/replay")
    assert status == 200
    view = frames["first"]
    for step in frames["steps"]:  # type: ignore[attr-defined]
        view = jsonpatch.apply_patch(view, step["ops"])
    assert view["totals"] == totals and view["phase"] == "finished"  # type: ignore[index]
    assert frames["hands"][0] == 0  # type: ignore[index]


async def test_todays_daily_match_is_withheld_until_the_day_is_over(
    server: GameServer, client: ClientFactory
) -> None:
    a = await client("Ana")
    await play_daily(a)
    match_id = None
    for _ in range(50):
        reply = await a.request({"type": "my_matches"}, "matches")
        if reply["matches"]:
            match_id = reply["matches"][0]["id"]  # type: ignore[index]
            break
        await asyncio.sleep(0.05)
    assert match_id is not None
    status, payload = await asyncio.to_thread(get, server, f"/api/matches/{match_id}")
    assert status == 403 and "seed" not in payload
    status, _ = await asyncio.to_thread(get, server, f"/api/matches/{match_id}/replay")
    assert status == 403
    status, _ = await asyncio.to_thread(get, server, f"/api/matches/{match_id}/review")
    assert status == 403


async def test_the_api_refuses_bad_requests(server: GameServer) -> None:
    assert (await asyncio.to_thread(get, server, "/api/leaderboard?board=weekly"))[0] == 400
    assert (await asyncio.to_thread(get, server, "/api/matches/NOPE-1"))[0] == 404
    assert (await asyncio.to_thread(get, server, "/api/nothing"))[0] == 404
