"""Ratings, tags, abandonment and recovery codes, on both stores, over real WebSockets."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import urllib.request
from typing import Any

import pytest
from openskill.models import PlackettLuce

from clients.net import GameClient, ServerError
from protocol.bots.calibration import LEVEL_RATINGS
from server.app import GameServer, port_of
from server.ratings import DEFAULT, MIN_MATCHES, PROVISIONAL_MATCHES, Skill, bounded, display
from server.records import Records

from .conftest import ClientFactory
from .test_match_flow import play_until_finished

MODEL = PlackettLuce()


def get(game: GameServer, path: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port_of(game)}{path}", timeout=5) as reply:
        return dict(json.load(reply))


def record(seats: list[Any], totals: list[int], **extra: Any) -> dict[str, Any]:
    """A finished match's record as the room writes it (what rating reads of it)."""
    low = min(totals)
    return {
        "id": extra.pop("id", "ROOM01-1"),
        "room": "ROOM01",
        "finished_at": 0.0,
        "seats": seats,
        "players": extra.pop("players"),
        "results": [totals],
        "totals": totals,
        "winners": [i for i, t in enumerate(totals) if t == low],
        "daily": None,
        "rated": True,
        "abandoned": extra.pop("abandoned", []),
        **extra,
    }


def person(name: str) -> dict[str, Any]:
    return {"name": name, "kind": "human", "level": None}


def bot(level: str) -> dict[str, Any]:
    return {"name": "Bot", "kind": "bot", "level": level}


async def establish(
    server: GameServer, player: str, mu: float = 25.0, sigma: float = 3.0, **more: Any
) -> None:
    """Give ``player`` an established rating, as earlier matches would have (its bot
    rating the same unless ``bot_mu`` and ``bot_sigma`` say otherwise)."""
    rating = {"mu": mu, "sigma": sigma, "matches": PROVISIONAL_MATCHES}
    stored = {player: {**rating, "bot_mu": mu, "bot_sigma": sigma, **more}}
    assert await server.store.update_ratings({player: 0}, stored, {player: mu})


def rated(start: Skill, opponents: list[Skill], ranks: list[int]) -> Skill:
    """What the rules make of ``start`` placed ``ranks[0]`` among ``opponents`` (the rest
    of ``ranks``): OpenSkill's update, its move bounded (:func:`server.ratings.bounded`)."""
    r = MODEL.rating
    [[mine], *_] = MODEL.rate([[r(*start)], *([r(*o)] for o in opponents)], ranks=ranks)
    return (bounded(start[0], mine.mu), mine.sigma)


async def test_a_match_rates_people_as_openskill_does_ties_shared_bots_fixed(
    server: GameServer,
) -> None:
    records = server.records
    await establish(server, "pa")
    await establish(server, "pb")
    seats = [person("Ana"), bot("medium"), person("Ben"), bot("heuristic")]
    people = [("pa", "Ana", 0), ("pb", "Ben", 2)]
    # Ana and Ben tie for first; the medium bot is third, the heuristic one last. Every
    # seat counts for both: two established players, and no bot far below them.
    first = record(seats, [5, 12, 5, 30], players=["pa", None, "pb", None])
    changes = await records.record_finished(first, people, None)
    medium, heuristic = LEVEL_RATINGS["medium"], LEVEL_RATINGS["heuristic"]
    r = MODEL.rating
    expected = MODEL.rate(
        [[r(25, 3)], [r(*medium)], [r(25, 3)], [r(*heuristic)]], ranks=[1, 3, 1, 4]
    )
    ana = (bounded(25, expected[0][0].mu), expected[0][0].sigma)
    ben = (bounded(25, expected[2][0].mu), expected[2][0].sigma)
    assert ana == rated((25, 3), [medium, (25, 3), heuristic], [1, 3, 1, 4])
    stored = await server.store.ratings(["pa", "pb"])
    for player, skill in (("pa", ana), ("pb", ben)):
        assert (stored[player]["mu"], stored[player]["sigma"]) == pytest.approx(skill)
        assert stored[player]["matches"] == PROVISIONAL_MATCHES + 1
    # Their bot ratings: the same rules over the two bots alone.
    bots_only = rated((25, 3), [medium, heuristic], [1, 2, 3])
    assert (stored["pa"]["bot_mu"], stored["pa"]["bot_sigma"]) == pytest.approx(bots_only)
    assert changes is not None and changes[1] is None and changes[3] is None
    assert changes[0] == {
        "before": 1000,
        "after": display(ana),
        "matches": PROVISIONAL_MATCHES + 1,
        "provisional": False,
        "place": 1,
        "of": 4,
        "reason": "placed",
    }
    # The next match starts from the ratings the first one left (Ben wins alone).
    again = record(seats, [9, 3, 2, 30], id="ROOM01-2", players=["pa", None, "pb", None])
    await records.record_finished(again, people, None)
    stored = await server.store.ratings(["pa", "pb"])
    assert stored["pa"]["mu"] == pytest.approx(
        rated(ana, [medium, ben, heuristic], [3, 2, 1, 4])[0]
    )
    assert stored["pb"]["sigma"] == pytest.approx(
        rated(ben, [ana, medium, heuristic], [1, 3, 2, 4])[1]
    )


async def test_two_matches_of_one_person_rated_at_once_both_count(server: GameServer) -> None:
    # Two processes' Records over the one store, each rating a match Ana just finished.
    here, there = Records(server.settings, server.store), Records(server.settings, server.store)
    seats = [person("Ana"), bot("medium")]
    won = record(seats, [1, 9], id="ROOM01-1", players=["pa", None])
    lost = record(seats, [9, 1], id="ROOM02-1", players=["pa", None])
    ana = [("pa", "Ana", 0)]
    await asyncio.gather(
        here.record_finished(won, ana, None), there.record_finished(lost, ana, None)
    )
    [stored] = (await server.store.ratings(["pa"])).values()
    assert stored["matches"] == 2
    level = LEVEL_RATINGS["medium"]
    orders = []
    for first, second in (([1, 2], [2, 1]), ([2, 1], [1, 2])):
        orders.append(rated(rated(DEFAULT, [level], first), [level], second))
    assert any(
        stored["mu"] == pytest.approx(mu) and stored["sigma"] == pytest.approx(sigma)
        for mu, sigma in orders
    )


async def test_abandoning_takes_the_last_place_and_never_a_win(server: GameServer) -> None:
    records = server.records
    seats = [person("Ana"), person("Ben"), bot("medium")]
    # Ana was away (a bot finished for her) and her bot came first: she still comes last.
    match = record(seats, [2, 10, 8], players=["pa", "pb", None], abandoned=[0])
    await records.record_finished(match, [("pa", "Ana", 0), ("pb", "Ben", 1)], None)
    medium = LEVEL_RATINGS["medium"]
    # Ana loses to everyone who played, Ben as new as she is included; Ben is rated on
    # the seats that were played only, and a new Ana does not count for him anyway.
    anas = rated(DEFAULT, [DEFAULT, medium], [3, 2, 1])
    bens = rated(DEFAULT, [medium], [2, 1])
    stored = await server.store.ratings(["pa", "pb"])
    assert stored["pa"]["mu"] == pytest.approx(anas[0])
    assert stored["pb"]["mu"] == pytest.approx(bens[0])
    board = {row["player"]: row for row in (await records.leaderboard("alltime", None))[0]}
    assert board["pa"]["won"] == 0 and board["pa"]["played"] == 1
    assert [s["seat"] for s in await records.match_summaries("pa")] == [0]


async def test_the_top_players_board_needs_enough_matches_and_tags_everyone(
    server: GameServer,
) -> None:
    records = server.records
    seats = [person("Ana"), bot("medium")]
    for n in range(MIN_MATCHES):
        rows, _ = await records.leaderboard("rating", None)
        assert rows == []  # not listed before the minimum
        # Win and lose in turn: a player far above the bot who beats it is not counted.
        totals = [1, 9] if n % 2 else [9, 1]
        match = record(seats, totals, id=f"ROOM01-{n + 1}", players=["pa", None])
        await records.record_finished(match, [("pa", "Ana", 0)], None)
    rows, _ = await records.leaderboard("rating", None)
    tag = (await server.store.tags(["pa"]))["pa"]  # given at the first recorded match
    assert [(row["name"], row["tag"], row["matches"]) for row in rows] == [
        ("Ana", tag, MIN_MATCHES)
    ]
    profile = await records.profile("pa", "Ana")
    assert profile["rating"] == rows[0]["rating"] and profile["listed"]
    payload = await asyncio.to_thread(get, server, "/api/leaderboard?board=rating")
    assert payload["entries"] == rows


async def finish_against_a_bot(c: GameClient, **options: Any) -> dict[str, Any]:
    """Create a 2-seat room against a heuristic bot (one that counts for a new player,
    win or lose), play it out; the finished document."""
    await c.create(seats=2, target=3, bots=[None, "heuristic"], **options)
    await c.start()
    await play_until_finished([c], random.Random(3))
    await c.until(lambda cl: cl.game is not None and cl.game["phase"] == "finished")
    return dict(c.doc or {})


async def test_the_room_shows_each_persons_rating_change_once_the_match_is_rated(
    server: GameServer, client: ClientFactory
) -> None:
    ana = await client("Ana")
    doc = await finish_against_a_bot(ana)
    assert doc["room"]["rated"] is True
    await ana.until(lambda c: c.doc is not None and c.doc["room"]["ratings"] is not None)
    change = ana.doc["room"]["ratings"][0]  # type: ignore[index]
    assert ana.doc["room"]["ratings"][1] is None  # type: ignore[index]
    # The change is what openskill makes of the finished order.
    totals = ana.game["totals"]  # type: ignore[index]
    ranks = [1 + sum(1 for o in totals if o < t) for t in totals]
    mine = rated(DEFAULT, [LEVEL_RATINGS["heuristic"]], ranks)
    assert change == {
        "before": 1000,
        "after": display(mine),
        "matches": 1,
        "provisional": True,
        "place": ranks[0],
        "of": 2,
        "reason": "placed",
    }
    profile = await ana.request({"type": "profile"}, "profile")
    assert profile["rating"] == change["after"] and profile["matches"] == 1
    assert (await server.store.identity(str(ana.player_id))).tag == profile["tag"]
    assert not profile["listed"]


async def test_casual_rooms_and_known_deals_are_not_rated(
    server: GameServer, client: ClientFactory
) -> None:
    ana = await client("Ana")
    doc = await finish_against_a_bot(ana, casual=True)
    assert doc["room"]["rated"] is False and doc["room"]["options"]["casual"] is True
    assert doc["room"]["unrated"] == "casual"
    await ana.send({"type": "leave"})
    await ana.wait_for(lambda f: f["type"] == "left")
    doc = await finish_against_a_bot(ana, seed="known")
    assert doc["room"]["rated"] is False and doc["room"]["unrated"] == "chosen_deal"
    await asyncio.sleep(0.2)
    profile = await ana.request({"type": "profile"}, "profile")
    assert profile["matches"] == 0 and profile["rating"] == 1000
    # Both are in the history all the same.
    for _ in range(50):
        matches = (await ana.request({"type": "my_matches"}, "matches"))["matches"]
        if len(matches) == 2:
            break
        await asyncio.sleep(0.05)
    assert len(matches) == 2


async def test_a_person_who_leaves_before_playing_makes_the_match_count_for_nobody(
    server: GameServer, client: ClientFactory
) -> None:
    ana, ben = await client("Ana"), await client("Ben")
    code = await ana.create(seats=2, target=3)
    await ben.join(code)
    await ben.ready()
    await ana.start()
    await ben.until(lambda c: c.game is not None)
    ben_id = ben.player_id
    await ben.send({"type": "leave"})
    await ben.wait_for(lambda f: f["type"] == "left")
    await ana.until(lambda c: c.doc is not None and c.doc["room"]["unrated"] == "aborted")
    await play_until_finished([ana], random.Random(2))
    for _ in range(100):  # the match is recorded a moment after it ends
        matches = await server.records.match_summaries(str(ben_id))
        if matches:
            break
        await asyncio.sleep(0.05)
    [summary] = matches
    assert summary["seat"] == 1 and summary["abandoned"] == [1]
    assert summary["ratings"] is None and summary["unrated"] == "aborted"
    assert ana.doc is not None and ana.doc["room"]["ratings"] is None
    assert await server.store.ratings([str(ana.player_id), str(ben_id)]) == {}
    # An unrated match is no win or loss on the all-time board either.
    assert (await server.records.leaderboard("alltime", None))[0] == []


async def test_a_recovery_code_takes_the_identity_to_another_client(
    server: GameServer, client: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    ana = await client("Ana")
    await finish_against_a_bot(ana)
    await ana.until(lambda c: c.doc is not None and c.doc["room"]["ratings"] is not None)
    mine = await ana.request({"type": "profile"}, "profile")
    old_code = await ana.recovery_code()
    code = await ana.recovery_code()  # a new one: the first stops working
    assert code != old_code and len(code.replace("-", "")) == 16
    other = await client("Someone")
    before = other.player_id
    with pytest.raises(ServerError) as refused:
        await other.recover(old_code)
    assert refused.value.code == "bad_recovery_code" and other.player_id == before
    with caplog.at_level(logging.DEBUG):
        welcome = await other.recover(code.lower().replace("-", " "))
    assert welcome["player_id"] == ana.player_id and welcome["name"] == "Ana"
    assert welcome["tag"] == mine["tag"] and welcome["player"] != ana.player
    assert code not in caplog.text and str(welcome["player"]) not in caplog.text
    # The same player: history, rating, and again after reconnecting with the new token.
    matches = (await other.request({"type": "my_matches"}, "matches"))["matches"]
    assert len(matches) == 1
    assert (await other.request({"type": "profile"}, "profile"))["rating"] == mine["rating"]
    third = GameClient(other.url, "Ana")
    third.player = other.player
    await third.connect()
    try:
        assert third.player_id == ana.player_id
    finally:
        await third.close()
    # A forged recovered token is just another (new) player.
    forged = GameClient(other.url, "Eve")
    forged.player = f"r1-{ana.player_id}-{'0' * 32}"
    await forged.connect()
    try:
        assert forged.player_id != ana.player_id
    finally:
        await forged.close()


async def test_renaming_shows_the_new_name_with_the_same_tag_on_every_board(
    server: GameServer, client: ClientFactory
) -> None:
    ana = await client("Ana")
    await finish_against_a_bot(ana)
    await ana.until(lambda c: c.doc is not None and c.doc["room"]["ratings"] is not None)
    reply = await ana.request({"type": "rename", "name": "Ana B"}, "profile")
    assert reply["name"] == "Ana B"
    with pytest.raises(ServerError) as refused:
        await ana.request({"type": "rename", "name": "\u200b\n"}, "profile")
    assert refused.value.code == "bad_name" and refused.value.params["reason"] == "invisible"
    for board in ("alltime", "rating", "daily"):
        rows = (await ana.request({"type": "leaderboard", "board": board}, "leaderboard"))[
            "entries"
        ]
        tags = await server.store.tags([row["player"] for row in rows])
        for row in rows:
            assert row["tag"] == tags[row["player"]]
        if board == "alltime":
            assert [(r["name"], r["tag"]) for r in rows] == [("Ana B", reply["tag"])]
    [summary] = (await ana.request({"type": "my_matches"}, "matches"))["matches"]
    assert summary["seats"][0]["tag"] == reply["tag"] and summary["seats"][1]["tag"] is None
