"""Room life: host controls, ready, kick, lock, host hand-over, rematch, idle seats."""

from __future__ import annotations

import random

from clients.net import GameClient, ServerError
from server.app import GameServer, port_of, start_server
from tests.invariants import replay

from .conftest import ClientFactory, make_settings
from .test_match_flow import play_until_finished


def seats(c: GameClient) -> list[dict[str, object] | None]:
    assert c.doc is not None
    result: list[dict[str, object] | None] = c.doc["room"]["seats"]
    return result


async def test_the_host_configures_the_room_and_manages_bots(client: ClientFactory) -> None:
    host = await client("Ana")
    await host.create(seats=2)
    b = await client("Ben")
    await b.join(host.room)  # type: ignore[arg-type]
    await b.ready()
    error = await b.request({"type": "configure", "options": {"seats": 4}}, "error")
    assert error["code"] == "not_host"
    await host.request(
        {"type": "configure", "options": {"seats": 4, "target": 40, "bots": [None, None, "easy"]}},
        "patch",
    )
    await host.until(lambda c: c.doc is not None and c.doc["room"]["options"]["seats"] == 4)
    assert host.doc is not None and host.doc["room"]["options"]["target"] == 40
    assert [s and s["kind"] for s in seats(host)] == ["human", "human", "bot", None]
    # Changing the options asks everyone to confirm they are ready again.
    assert seats(host)[1]["ready"] is False  # type: ignore[index]
    await host.request({"type": "add_bot", "seat": 3, "level": "hard"}, "patch")
    await host.until(lambda c: seats(c)[3] is not None)
    assert seats(host)[3]["level"] == "hard"  # type: ignore[index]
    await host.request({"type": "remove_bot", "seat": 2}, "patch")
    await host.until(lambda c: seats(c)[2] is None)
    bad = {"type": "configure", "options": {"seats": 4, "bots": [None, "easy"]}}
    error = await host.request(bad, "error")
    assert error["code"] == "bad_options"  # seat 2 is Ben's: it cannot become a bot
    error = await host.request({"type": "remove_bot", "seat": 1}, "error")
    assert error["code"] == "seat_taken"


async def test_a_locked_room_refuses_new_players_but_not_spectators(client: ClientFactory) -> None:
    host = await client("Ana")
    code = await host.create(seats=3)
    await host.request({"type": "lock"}, "patch")
    await host.until(lambda c: c.doc is not None and c.doc["room"]["locked"])
    late = await client("Lou")
    try:
        await late.join(code)
    except ServerError as exc:
        assert exc.code == "room_locked"
    else:
        raise AssertionError("joined a locked room")
    await late.join(code, spectate=True)
    assert late.role == "spectator"


async def test_a_kicked_player_is_told_and_cannot_come_back_with_the_token(
    client: ClientFactory,
) -> None:
    host = await client("Ana")
    code = await host.create(seats=3)
    b = await client("Ben")
    await b.join(code)
    token = b.token
    await host.request({"type": "kick", "seat": 1}, "patch")
    await b.until(lambda c: any(f["type"] == "kicked" for f in c.frames))
    await host.until(lambda c: seats(c)[1] is None)
    assert any(line["ev"] == "kicked" for line in host.log)
    again = await client("Ben")
    try:
        await again.join(code, token=token)
    except ServerError as exc:
        assert exc.code == "kicked"
    else:
        raise AssertionError("a kicked token opened the room")


async def test_when_the_host_leaves_the_longest_seated_person_becomes_host(
    client: ClientFactory,
) -> None:
    host = await client("Ana")
    code = await host.create(seats=4)
    b, c = await client("Ben"), await client("Cai")
    await b.join(code)
    await c.join(code)
    await host.send({"type": "leave"})
    await b.until(lambda cl: cl.doc is not None and cl.doc["room"]["host"] == 1)
    assert {"ev": "host", "seat": 1} in c.log  # Ben's seat
    # The new host can start; Cai must be ready first.
    await c.ready()
    await b.start(fill="easy")
    assert b.game is not None


async def test_a_host_gone_past_the_grace_period_hands_the_role_on(client: ClientFactory) -> None:
    host = await client("Ana")
    code = await host.create(seats=2, bots=[None, None])
    b = await client("Ben")
    await b.join(code)
    await host.close()
    await b.until(lambda cl: cl.doc is not None and cl.doc["room"]["host"] == 1, 10)


async def test_a_rematch_keeps_the_table_and_a_bot_takes_the_seat_of_who_left() -> None:
    game = await start_server(make_settings(grace=0.2))
    url = f"ws://127.0.0.1:{port_of(game)}/"
    a, b = GameClient(url, "Ana"), GameClient(url, "Ben")
    try:
        await a.connect()
        await b.connect()
        code = await a.create(seats=3, target=3, bots=[None, None, "heuristic"])
        await b.join(code)
        await b.ready()
        await a.start()
        await play_until_finished([a, b], random.Random(1))
        await b.until(lambda c: c.game is not None and c.game["phase"] == "finished")
        # Ben votes and leaves; Ana, the host, forces the rematch with a bot for Ben.
        await b.request({"type": "rematch"}, "patch")
        await a.until(lambda c: c.doc is not None and c.doc["room"]["rematch"] == [1])
        await b.close()
        await a.until(lambda c: not seats(c)[1]["connected"])  # type: ignore[index]
        await a.request({"type": "rematch", "force": True}, "patch")
        await a.until(lambda c: c.game is not None and c.game["phase"] == "playing", 10)
        assert [s["kind"] for s in seats(a)] == ["human", "bot", "bot"]  # type: ignore[index]
        # The new match is not Ben's: his bot goes by its own name in it.
        assert [s["name"] for s in seats(a)] == ["Ana", "Bot 2", "Bot 3"]  # type: ignore[index]
        assert a.game is not None and a.game["totals"] == [0, 0, 0]
        assert a.doc is not None and a.doc["room"]["code"] == code
    finally:
        await a.close()
        await game.shutdown()


async def test_a_leavers_bot_keeps_their_name_for_the_match_and_its_own_in_a_rematch(
    server: GameServer, client: ClientFactory
) -> None:
    a, b = await client("Ana"), await client("Ben")
    code = await a.create(seats=3, target=3, bots=[None, None, "heuristic"])
    await b.join(code)
    await b.ready()
    await a.start()
    await b.request({"type": "leave"}, "left")
    # For the rest of the match the bot plays Ben's seat under his name ("bot for Ben").
    await a.until(lambda c: seats(c)[1]["kind"] == "bot")  # type: ignore[index]
    assert seats(a)[1]["name"] == "Ben"  # type: ignore[index]
    await play_until_finished([a], random.Random(2))
    await a.until(lambda c: c.game is not None and c.game["phase"] == "finished", 30)
    await a.request({"type": "rematch"}, "patch")
    await a.until(lambda c: c.game is not None and c.game["phase"] == "playing", 10)
    assert [s["name"] for s in seats(a)] == ["Ana", "Bot 2", "Bot 3"]  # type: ignore[index]
    # Folded again from the stored log, the room says the same.
    folded = replay(await server.store.read(code))
    assert [s.name for s in folded.seats if s is not None] == ["Ana", "Bot 2", "Bot 3"]


async def test_a_rematch_starts_when_every_person_agrees(client: ClientFactory) -> None:
    a = await client("Ana")
    code = await a.create(seats=2, target=2)
    b = await client("Ben")
    await b.join(code)
    await b.ready()
    await a.start()
    await play_until_finished([a, b], random.Random(2))
    await b.until(lambda c: c.game is not None and c.game["phase"] == "finished")
    await a.request({"type": "rematch"}, "patch")
    assert a.game is not None and a.game["phase"] == "finished"
    await b.request({"type": "rematch"}, "patch")
    await a.until(lambda c: c.game is not None and c.game["phase"] == "playing")
    assert a.doc is not None and a.doc["room"]["rematch"] == []


async def test_an_idle_player_is_marked_away_and_returns_by_acting() -> None:
    game = await start_server(make_settings(idle_turns=2))
    url = f"ws://127.0.0.1:{port_of(game)}/"
    a = GameClient(url, "Ana")
    try:
        await a.connect()
        await a.create(seats=2, target=100, turn_timer=0.2, bots=[None, "random"])
        await a.start()
        # Ana never acts: two timers in a row run out and her seat is marked away.
        await a.until(lambda c: bool(seats(c)[0]["away"]), 15)  # type: ignore[index]
        assert sum(1 for line in a.log if line["ev"] == "timed_out" and line["seat"] == 0) >= 2
        await a.request({"type": "back"}, "patch")
        await a.until(lambda c: not seats(c)[0]["away"])  # type: ignore[index]
    finally:
        await a.close()
        await game.shutdown()


async def test_configure_replaces_the_options_but_keeps_pace_and_the_deal(
    client: ClientFactory,
) -> None:
    ana = await client("Ana")
    code = await ana.create(
        seats=3, target=40, public=True, pace="fast", seed="kept", bots=[None, "easy"]
    )
    await ana.request({"type": "configure", "options": {"target": 30}}, "patch")
    room = ana.doc["room"] if ana.doc else {}
    # Left out: back to the default (4 seats, not public); pace and the seed are kept, and
    # the bot stays in its seat.
    assert room["options"]["target"] == 30 and room["options"]["seats"] == 4
    assert room["public"] is False and room["options"]["pace"] == "fast"
    assert room["unrated"] == "chosen_deal"  # the seed is still the room's
    assert room["seats"][1] is not None and room["seats"][1]["level"] == "easy"
    assert code == room["code"]
