"""Fair play: the attacks an outsider would try on ratings, each against its rule
(docs/ratings.md), over real WebSockets on both stores.

Throwaway identities, second identities, kicks, leaves, closed clients and timers: every
test plays the attack through the documented protocol and checks what was stored.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import random
import uuid
from collections.abc import Awaitable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clients.net import GameClient
from protocol.bots.calibration import LEVEL_RATINGS
from protocol.messages import RoomOptions
from server import ratings
from server.app import GameServer, port_of, start_server
from server.ratings import PROVISIONAL_MATCHES, display, outcomes
from server.room import Room, create_event
from tests.redis_helpers import DEFAULT_REDIS_URL, delete_prefix

from .conftest import ClientFactory, make_settings
from .test_match_flow import next_mover, play_until_finished
from .test_ratings import bot, person, record

END = {"type": "end_turn"}


async def establish(server: GameServer, player: str, mu: float, sigma: float = 2.0) -> None:
    """Give ``player`` an established rating, as many earlier matches would have."""
    stored = {player: {"mu": mu, "sigma": sigma, "matches": 50}}
    assert await server.store.update_ratings({player: 0}, stored, {player: mu})


async def end_turns(players: list[GameClient], turns: int, timeout: float = 30.0) -> None:
    """Let every one of ``players`` end ``turns`` turns of their own (bots play between,
    and a hand may end and be dealt again meanwhile)."""
    done = {id(p): 0 for p in players}
    while min(done.values()) < turns:
        mover = await next_mover(players, timeout)
        assert mover is not None, "the match ended first"
        reply = await mover.act(END)
        assert reply["type"] == "patch", reply
        done[id(mover)] += 1


async def recorded(
    server: GameServer, player: str, count: int = 1, timeout: float = 60.0
) -> list[dict[str, Any]]:
    """``player``'s match history once it holds ``count`` matches (a match is recorded a
    moment after it ends; bots may still be finishing it)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        matches = await server.records.match_summaries(player)
        if len(matches) >= count or loop.time() > deadline:
            break
        await asyncio.sleep(0.05)
    if len(matches) >= count:
        return matches
    raise AssertionError(f"{player} has {len(matches)} matches recorded, not {count}")


async def table(
    client: ClientFactory, host: GameClient, names: list[str], **options: Any
) -> tuple[str, list[GameClient]]:
    """A room of ``host`` and fresh identities called ``names``, all ready: its code and
    the others' clients."""
    code = await host.create(**options)
    others = []
    for name in names:
        other = await client(name)
        await other.join(code)
        await other.ready()
        others.append(other)
    return code, others


# --- 1. throwaway opponents ------------------------------------------------------------


async def test_throwaways_who_leave_at_the_start_make_the_match_count_for_nobody(
    server: GameServer, client: ClientFactory
) -> None:
    host = await client("Host")
    _, throwaways = await table(client, host, ["T0", "T1", "T2"], seats=4, target=1)
    await host.start()
    for t in throwaways:
        await t.until(lambda c: c.game is not None)
        await t.send({"type": "leave"})
        await t.wait_for(lambda f: f["type"] == "left")
    await host.until(lambda c: c.doc is not None and c.doc["room"]["unrated"] == "aborted")
    assert host.doc is not None and host.doc["room"]["rated"] is False
    await play_until_finished([host], random.Random(1))
    [summary] = await recorded(server, str(host.player_id))
    assert summary["ratings"] is None and summary["unrated"] == "aborted"
    people = [str(host.player_id), *(str(t.player_id) for t in throwaways)]
    assert await server.store.ratings(people) == {}
    assert (await server.records.leaderboard("alltime", None))[0] == []


async def test_throwaways_who_play_a_little_then_leave_give_the_host_nothing(
    server: GameServer, client: ClientFactory
) -> None:
    host = await client("Host")
    _, throwaways = await table(client, host, ["T0", "T1", "T2"], seats=4, target=1)
    await host.start()
    await end_turns([host, *throwaways], 3)
    seats = {id(t): t.seat for t in throwaways}
    for t in throwaways:
        await t.send({"type": "leave"})
        await t.wait_for(lambda f: f["type"] == "left")
    assert host.doc is not None and host.doc["room"]["rated"] is True
    await play_until_finished([host], random.Random(2))
    await host.until(lambda c: c.doc is not None and c.doc["room"]["ratings"] is not None)
    changes = host.doc["room"]["ratings"]
    # The host beat only seats nobody played: no one counted for them, nothing moved.
    assert changes[host.seat]["reason"] == "no_opponents"
    assert changes[host.seat]["after"] == changes[host.seat]["before"] == 1000
    stored = await server.store.ratings([str(host.player_id)])
    assert stored[str(host.player_id)]["matches"] == 0
    # Each leaver takes the last place against everyone who played.
    for t in throwaways:
        mine = changes[seats[id(t)]]
        assert mine["reason"] == "abandoned" and mine["place"] == mine["of"] == 2
        assert mine["after"] < mine["before"]
    board = {r["player"]: r for r in (await server.records.leaderboard("alltime", None))[0]}
    assert all(board[str(t.player_id)]["won"] == 0 for t in throwaways)


# --- 2. weak opponents as a ladder, provisional ratings, the shown number --------------


async def test_a_new_identity_beating_the_weakest_bot_twenty_times_gains_nothing(
    server: GameServer,
) -> None:
    records = server.records
    seats = [person("Eve"), bot("random")]
    for n in range(20):
        match = record(seats, [0, 40], players=["pe", None], id=f"ROOM01-{n + 1}")
        changes = await records.record_finished(match, [("pe", "Eve", 0)], None)
        assert changes is not None and changes[0]["reason"] == "no_opponents"
    profile = await records.profile("pe", "Eve")
    assert profile["rating"] == 1000 and profile["matches"] == 0 and profile["provisional"]
    assert (await records.leaderboard("rating", None))[0] == []


async def test_twenty_wins_over_a_far_weaker_bot_move_less_than_one_over_an_equal(
    server: GameServer,
) -> None:
    records = server.records
    mu = LEVEL_RATINGS["easy"][0] + ratings.OUTCLASSED + 2
    await establish(server, "pa", mu)
    await establish(server, "pb", mu)
    await establish(server, "pc", mu)
    for n in range(20):
        match = record([person("Ana"), bot("easy")], [0, 30], players=["pa", None], id=f"R1-{n}")
        await records.record_finished(match, [("pa", "Ana", 0)], None)
    ana = (await server.store.ratings(["pa"]))["pa"]
    equal = record([person("Ben"), person("Cai")], [0, 30], players=["pb", "pc"], id="R2-1")
    changes = await records.record_finished(equal, [("pb", "Ben", 0), ("pc", "Cai", 1)], None)
    ben = (await server.store.ratings(["pb"]))["pb"]
    assert changes is not None and changes[0]["reason"] == "placed"
    assert abs(ana["mu"] - mu) < ben["mu"] - mu
    # Losing to that bot still counts: there is something to lose.
    lost = record([person("Ana"), bot("easy")], [30, 0], players=["pa", None], id="R1-lost")
    await records.record_finished(lost, [("pa", "Ana", 0)], None)
    assert (await server.store.ratings(["pa"]))["pa"]["mu"] < ana["mu"]


async def test_a_provisional_player_moves_no_established_player(server: GameServer) -> None:
    records = server.records
    await establish(server, "pa", 30.0)
    # A fresh identity loses to Ana on purpose: she gains nothing, and until it is
    # established only bots rate it (docs/ratings.md).
    match = record([person("Ana"), person("New")], [0, 50], players=["pa", "pn"])
    changes = await records.record_finished(match, [("pa", "Ana", 0), ("pn", "New", 1)], None)
    assert changes is not None
    assert changes[0]["reason"] == "no_opponents" and changes[0]["after"] == display((30.0, 2.0))
    assert changes[1]["reason"] == "no_opponents" and changes[1]["provisional"] is True
    profile = await records.profile("pn", "New")
    assert profile["provisional"] and not profile["listed"]
    assert profile["min_matches"] == PROVISIONAL_MATCHES


skill = st.tuples(st.floats(-5, 45), st.floats(0.5, 9))


@settings(max_examples=300, deadline=None)
@given(
    skills=st.lists(skill, min_size=2, max_size=4),
    data=st.data(),
)
def test_a_last_place_never_raises_the_shown_rating(
    skills: list[tuple[float, float]], data: st.DataObject
) -> None:
    n = len(skills)
    totals = data.draw(st.lists(st.integers(0, 60), min_size=n, max_size=n))
    people = data.draw(st.sets(st.integers(0, n - 1), min_size=1))
    abandoned = data.draw(st.sets(st.sampled_from(sorted(people))))
    provisional = data.draw(st.sets(st.sampled_from(sorted(people))))
    for seat, outcome in outcomes(skills, totals, people, abandoned, provisional).items():
        assert 1 <= outcome.place <= outcome.of <= n
        if outcome.place == outcome.of and outcome.of > 1:
            assert display(outcome.skill) <= display(skills[seat])
        if seat in abandoned:
            assert outcome.reason == "abandoned" or outcome.of == 1


def test_the_shown_rating_follows_the_place_against_bots() -> None:
    # A new player against three medium bots (totals 10, 20, 30): the better the place,
    # the higher the shown number, and a last place lowers it.
    bots = [LEVEL_RATINGS["medium"]] * 3
    after = []
    for mine in (5, 15, 25, 35):
        outcome = outcomes([ratings.DEFAULT, *bots], [mine, 10, 20, 30], {0}, set(), {0})[0]
        after.append(display(outcome.skill))
    assert after == sorted(after, reverse=True) and len(set(after)) == 4
    assert after[3] < 1000 < after[0]


# --- 5. kicks neither impose nor erase a result ----------------------------------------


async def test_a_kicked_player_keeps_the_result_of_their_seat(
    server: GameServer, client: ClientFactory
) -> None:
    host, main = await client("Second"), await client("Main")
    code = await host.create(seats=3, target=150, bots=[None, None, "heuristic"])
    await main.join(code)
    await main.ready()
    await host.start()
    await end_turns([host, main], 3)
    main_id, main_seat = str(main.player_id), main.seat
    await host.send({"type": "kick", "seat": main_seat})
    await main.wait_for(lambda f: f["type"] == "kicked")
    assert host.doc is not None and host.doc["room"]["rated"] is True
    await play_until_finished([host], random.Random(5))
    [summary] = await recorded(server, main_id)
    assert summary["seat"] == main_seat and summary["abandoned"] == []
    change = summary["ratings"][main_seat]
    assert change is not None and change["reason"] == "placed" and change["of"] == 2
    # Placed against the bot (the host is as new as Main: only bots rate new players).
    totals = summary["totals"]
    assert change["place"] == 1 + int(totals[2] < totals[main_seat])
    assert (await server.store.ratings([main_id]))[main_id]["matches"] == 1


async def test_a_kick_at_the_start_makes_the_match_count_for_nobody(
    server: GameServer, client: ClientFactory
) -> None:
    host, main = await client("Second"), await client("Main")
    code = await host.create(seats=2, target=1)
    await main.join(code)
    await main.ready()
    await host.start()
    await host.send({"type": "kick", "seat": main.seat})
    await main.wait_for(lambda f: f["type"] == "kicked")
    await host.until(lambda c: c.doc is not None and c.doc["room"]["unrated"] == "aborted")
    await play_until_finished([host], random.Random(6))
    [summary] = await recorded(server, str(main.player_id))
    assert summary["ratings"] is None and summary["unrated"] == "aborted"


# --- 7. the daily deal -------------------------------------------------------------------


@pytest.mark.settings(daily_target=1, daily_level="heuristic")
async def test_the_daily_deal_changes_no_rating_and_keeps_its_board(
    server: GameServer, client: ClientFactory
) -> None:
    ana = await client("Ana")
    await ana.send({"type": "daily"})
    await ana.until(lambda c: c.game is not None)
    assert ana.doc is not None and ana.doc["room"]["unrated"] == "daily"
    await play_until_finished([ana], random.Random(7))
    [summary] = await recorded(server, str(ana.player_id))
    assert summary["ratings"] is None and summary["unrated"] == "daily"
    assert await server.store.ratings([str(ana.player_id)]) == {}
    # The board is written a moment after the match record: wait for it, not for the clock.
    async with asyncio.timeout(30):
        while not (rows := (await server.records.leaderboard("daily", None))[0]):
            await asyncio.sleep(0.05)
    assert [row["player"] for row in rows] == [ana.player_id]


# --- 9. every match settles --------------------------------------------------------------


@pytest.mark.settings(bot_delay=0.3, hand_pause=20.0, grace=0.25)
@pytest.mark.parametrize("how", ["leave", "close"])
async def test_a_match_left_alone_is_finished_by_its_bots_at_once_and_rated(
    server: GameServer, client: ClientFactory, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    waits: list[float] = []
    sleep = asyncio.sleep

    def noted(delay: float, *args: Any) -> Awaitable[Any]:
        waits.append(delay)
        return sleep(delay, *args)

    monkeypatch.setattr(asyncio, "sleep", noted)  # what the table waits: asked, not timed
    ana = await client("Ana")
    code = await ana.create(seats=2, target=150, bots=[None, "heuristic"])
    await ana.start()
    await end_turns([ana], 3)
    ana_id = str(ana.player_id)
    assert 0.3 in waits  # the bot kept the table's pace while Ana played
    if how == "leave":
        played = len(waits)
        await ana.send({"type": "leave"})
        await ana.wait_for(lambda f: f["type"] == "left")
    else:
        await ana.close()  # within the grace period she is still seated: the table waits
        live = server.lobby.rooms[code]
        async with asyncio.timeout(30):
            while not ((seat := live.room.seats[0]) is not None and seat.away):
                await asyncio.sleep(0.01)
        played = len(waits)  # away now, a bot covering her: nobody is left
    # The bots think in the idle-priority workers: on a busy machine that takes a while.
    [summary] = await recorded(server, ana_id, timeout=300)
    record = await server.records.get_match(summary["id"])
    assert record is not None and len(record["results"]) >= 1
    # Once nobody was left, neither the bot delay nor the pause between hands was waited.
    assert not {0.3, 20.0} & set(waits[played:]), sorted(set(waits[played:]))
    assert summary["abandoned"] == [0]
    change = summary["ratings"][0]
    assert change["reason"] == "abandoned" and change["place"] == change["of"] == 2


@pytest.mark.settings(daily_target=60, daily_level="heuristic")  # still on after 3 turns
async def test_a_daily_left_alone_settles_too_and_is_not_ranked(
    server: GameServer, client: ClientFactory
) -> None:
    ana = await client("Ana")
    await ana.send({"type": "daily"})
    await ana.until(lambda c: c.game is not None)
    await end_turns([ana], 3)
    await ana.send({"type": "leave"})
    await ana.wait_for(lambda f: f["type"] == "left")
    [summary] = await recorded(server, str(ana.player_id), timeout=300)  # idle-priority bots
    assert summary["abandoned"] == [0] and summary["daily"] is not None
    rows, _ = await server.records.leaderboard("daily", None)
    assert rows == []  # an abandoned try is not ranked


# --- 10. one grace timer per disconnect ---------------------------------------------------


async def rejoin(server: GameServer, who: GameClient, code: str) -> GameClient:
    again = GameClient(f"ws://127.0.0.1:{port_of(server)}/", who.name)
    again.player = who.player
    await again.connect()
    await again.join(code, token=who.token)
    again.token = who.token
    return again


@pytest.mark.settings(grace=1.0)
async def test_an_old_grace_timer_does_not_mark_a_new_short_disconnect_away(
    server: GameServer, client: ClientFactory
) -> None:
    ana, ben = await client("Ana"), await client("Ben")
    code = await ana.create(seats=2, target=50)
    await ben.join(code)
    await ben.ready()
    await ana.start()
    await ben.until(lambda c: c.game is not None)
    await ana.close()  # the first disconnect: its timer ends at +1.0 s
    await asyncio.sleep(0.7)
    back = await rejoin(server, ana, code)
    await asyncio.sleep(0.2)
    await back.close()  # a second, short disconnect at +0.9 s
    await asyncio.sleep(0.5)  # past the first timer's end, within the second's grace
    again = await rejoin(server, ana, code)
    await asyncio.sleep(1.5)  # and past the second one's end, connected all along
    try:
        assert not [line for line in ben.log if line.get("ev") == "away"]
        assert ben.doc is not None and ben.doc["room"]["seats"][0]["away"] is False
        # A disconnect longer than the grace period still ends in away.
        await again.close()
        await ben.until(lambda c: c.doc is not None and c.doc["room"]["seats"][0]["away"])
    finally:
        await again.close()


# --- 11. coming back for the last move ----------------------------------------------------


def covered_room(own: int, covered: int) -> Room:
    """A 2-seat room of Ana and Ben where Ben ended ``own`` turns himself and a bot ended
    ``covered`` of his turns while he was away, then he came back."""
    room = Room(create_event("ROOM01", RoomOptions.model_validate({"seats": 2, "target": 99})))
    room.apply(room.decide_sit(0, "Ana", "ta", "pa"))
    room.apply(room.decide_sit(1, "Ben", "tb", "pb"))
    room.apply({"e": "ready", "seat": 1, "ready": True})
    for event in room.decide_start(0, None, seed="s1"):
        room.apply(event)
    done = {"own": 0, "covered": 0}
    while done["own"] < own or done["covered"] < covered:
        seat = room.seat_to_move()
        assert seat is not None
        event: dict[str, Any] = {"e": "act", "seat": seat, "a": "end"}
        if seat == 1:
            kind = "own" if done["own"] < own else "covered"
            if kind == "covered":
                event["by"] = "bot"
                if not room.seats[1].away:  # type: ignore[union-attr]
                    room.apply({"e": "away", "seat": 1, "away": True})
            done[kind] += 1
        room.apply(event)
    room.apply({"e": "presence", "seat": 1, "connected": True})  # back: no longer away
    return room


def test_coming_back_at_the_end_does_not_collect_what_the_bot_played() -> None:
    # Ben played 3 turns, a bot 8 more, then he came back for the last moves.
    assert covered_room(own=3, covered=8).abandoned() == [1]
    # A bot finishing a few of many turns (a timeout, a short absence) is not abandoning.
    assert covered_room(own=8, covered=3).abandoned() == []


async def test_only_rated_matches_count_on_the_all_time_board(
    server: GameServer, client: ClientFactory
) -> None:
    ana = await client("Ana")
    await ana.create(seats=2, target=1, bots=[None, "random"], casual=True)
    await ana.start()
    await play_until_finished([ana], random.Random(9))
    await recorded(server, str(ana.player_id))
    assert (await server.records.leaderboard("alltime", None))[0] == []


# --- across processes ----------------------------------------------------------------------


async def test_coming_back_on_another_process_voids_the_first_processs_grace_timer() -> None:
    """Two processes on one Redis: Ana drops from ``a`` and comes back on ``b``, then has a
    short drop on ``b``. ``a``'s timer (from the first drop) ends during the second one: it
    must not mark her away, because she came back after it started."""
    url = os.environ.get("REDIS_URL", DEFAULT_REDIS_URL)
    prefix = f"kc-test-{uuid.uuid4().hex[:12]}"
    # The grace is long enough that connecting and joining, each within 0.3 of it, fits a
    # busy machine: a's timer must end inside the second drop, before b's ends.
    grace = 3.0
    settings = make_settings(redis_url=url, redis_prefix=prefix, tick=0.2, lease=1.0, grace=grace)
    a = await start_server(settings)
    b = await start_server(dataclasses.replace(settings, process_id=uuid.uuid4().hex[:8]))
    clients: list[GameClient] = []

    async def connect(server: GameServer, name: str, player: str | None = None) -> GameClient:
        c = GameClient(f"ws://127.0.0.1:{port_of(server)}/", name)
        c.player = player
        clients.append(await c.connect())
        return c

    try:
        ana, ben = await connect(a, "Ana"), await connect(a, "Ben")
        code = await ana.create(seats=2, target=50)
        await ben.join(code)
        await ben.ready()
        await ana.start()
        await ben.until(lambda c: c.game is not None)
        await ana.close()  # a's timer ends at +1.0 grace
        await asyncio.sleep(0.4 * grace)
        back = await connect(b, "Ana", ana.player)
        await back.join(code, token=ana.token)
        await asyncio.sleep(0.3 * grace)
        await back.close()  # a short drop at +0.7 grace on b
        await asyncio.sleep(0.6 * grace)  # a's old timer ends meanwhile
        again = await connect(b, "Ana", ana.player)
        await again.join(code, token=ana.token)
        await asyncio.sleep(1.2)
        assert not [line for line in ben.log if line.get("ev") == "away"]
        events = await a.store.read(code)
        assert not [e for e in events if e["e"] == "away"]
    finally:
        for c in clients:
            await c.close()
        await a.shutdown()
        await b.shutdown()
        await delete_prefix(url, prefix)


@pytest.mark.parametrize("how", ["leave", "kick"])
async def test_a_person_gone_mid_match_is_replaced_by_the_strongest_bot_at_the_table(
    client: ClientFactory, how: str
) -> None:
    """In a room of hard bots the seat a person leaves (or is kicked from) goes to a hard
    bot, not a weaker one: the others' results must not depend on who left."""
    host, guest = await client("Host"), await client("Guest")
    code = await host.create(seats=4, target=150, bots=[None, None, "hard", "easy"])
    await guest.join(code)
    await guest.ready()
    await host.start()
    seat = guest.seat
    assert seat is not None
    if how == "leave":
        await guest.send({"type": "leave"})
        await guest.wait_for(lambda f: f["type"] == "left")
    else:
        await host.send({"type": "kick", "seat": seat})
        await guest.wait_for(lambda f: f["type"] == "kicked")

    def taken(c: Any) -> bool:
        return c.doc is not None and c.doc["room"]["seats"][seat]["kind"] == "bot"

    await host.until(taken)
    assert host.doc is not None
    assert host.doc["room"]["seats"][seat]["level"] == "hard"


async def test_a_person_gone_from_a_table_of_people_gets_the_heuristic_bot(
    client: ClientFactory,
) -> None:
    host, guest = await client("Host"), await client("Guest")
    code = await host.create(seats=2, target=150)
    await guest.join(code)
    await guest.ready()
    await host.start()
    await guest.send({"type": "leave"})
    await host.until(lambda c: c.doc is not None and c.doc["room"]["seats"][1]["kind"] == "bot")
    assert host.doc is not None and host.doc["room"]["seats"][1]["level"] == "heuristic"
