"""Seats, bots, spectators, refusals, reconnects and the hidden-card audit, end to end."""

from __future__ import annotations

import asyncio
import random

import pytest

from clients.net import GameClient, ServerError
from server.app import GameServer

from .audit import Recorder, audit
from .conftest import ClientFactory, room_logs
from .test_match_flow import play_until_finished

# Seat 0 (dealer 3 deals to 0 first) gets the first 7 cards dealt to it in a 2-seat game:
# deck[0], deck[2], ... Building a known deck keeps these scenarios exact.
DECK = tuple(
    "7H 2C 9S 3D KD 4C QS 5D JD 6C 10C 7D 8D 8C 4H 9C 5H 10D 6H JC 3S QH AS KC 2S AD "
    "3H 2D 4D 3C 5C 6D 7C 8H 9H 10H JH QC KH 4S 5S 6S 7S 8S 9D 10S JS QD KS AC AH 2H".split()
)


async def two_seat_room(client: ClientFactory, **options: object) -> tuple[GameClient, GameClient]:
    a = await client("Ana")
    code = await a.create(seats=2, **options)
    b = await client("Ben")
    await b.join(code)
    await b.ready()
    await a.start()
    await b.until(lambda c: c.game is not None)
    return a, b


async def test_two_humans_and_two_bots_finish_a_match(
    server: GameServer, client: ClientFactory, recorder: Recorder
) -> None:
    a = await client("Ana")
    code = await a.create(seats=4, target=15, bots=[None, "heuristic", None, "random"])
    b = await client("Ben")
    await b.join(code)
    assert {a.seat, b.seat} == {0, 2}
    await b.ready()
    watcher = await client("Wes")
    await watcher.join(code, spectate=True)
    await a.start()
    await play_until_finished([a, b], random.Random(3))
    await watcher.until(lambda c: c.game is not None and c.game["phase"] == "finished")
    assert watcher.game is not None and "hand" not in watcher.game
    # Three viewers over a whole match: at least every move's frame was audited.
    assert audit(recorder, await room_logs(server)) > 20


async def test_spectator_follows_a_whole_match_and_never_sees_a_hand(
    server: GameServer, client: ClientFactory, recorder: Recorder
) -> None:
    host = await client("Ana")
    code = await host.create(seats=3, target=12, bots=[None, "heuristic", "heuristic"])
    watcher = await client("Wes")
    await watcher.join(code, spectate=True)
    assert watcher.role == "spectator" and watcher.token is None
    await host.start()
    await play_until_finished([host], random.Random(5))
    await watcher.until(lambda c: c.game is not None and c.game["phase"] == "finished", 20)
    game = watcher.game
    assert game is not None
    assert "hand" not in game and "legal" not in game
    assert game["totals"] == host.game["totals"]  # type: ignore[index]
    assert any(line["ev"] == "hand_over" for line in watcher.log)
    assert audit(recorder, await room_logs(server)) > 20


async def test_patches_keep_every_client_equal_to_the_server(
    server: GameServer, client: ClientFactory
) -> None:
    a, b = await two_seat_room(client, target=8)
    await play_until_finished([a, b], random.Random(11))
    live = server.lobby.rooms[a.room]  # type: ignore[index]
    await a.until(lambda c: c.version == live.room.version)
    await b.until(lambda c: c.version == live.room.version)
    assert a.doc == live.room.doc(a.seat)
    assert b.doc == live.room.doc(b.seat)


async def test_a_card_played_costs_a_few_operations(client: ClientFactory) -> None:
    a, _b = await two_seat_room(client, decks=[DECK], dealer=1)
    assert a.game is not None and a.seat == 0 and a.my_turn
    play = next(t for t in a.game["legal"] if t != "end" and t[0] != t[0].lower() and ">" in t)
    reply = await a.act(play)
    assert reply["type"] == "patch"
    assert 1 <= len(reply["ops"]) <= 5, reply["ops"]


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"type": "play", "card": "ZZ", "pile": "N"}, "bad_action"),
        ({"type": "play", "card": "7H", "pile": "X"}, "no_such_pile"),
        ({"type": "play", "card": "AH", "pile": "N"}, "not_in_hand"),
        ({"type": "play", "card": "7H", "pile": "NE"}, "corner_needs_king"),
        ({"type": "play", "card": "9S", "pile": "N"}, "does_not_fit"),
        ({"type": "move", "from": "NE", "to": "N"}, "cannot_move_pile"),
        ({"type": "move", "from": "N", "to": "N"}, "cannot_move_pile"),
    ],
)
async def test_refused_actions_name_the_rule_and_change_nothing(
    server: GameServer, client: ClientFactory, action: dict[str, str], code: str
) -> None:
    a, _b = await two_seat_room(client, decks=[DECK], dealer=1)
    live = server.lobby.rooms[a.room]  # type: ignore[index]
    version, before = live.room.version, live.room.doc(0)
    reply = await a.act(action)
    assert reply["type"] == "error" and reply["code"] == code, reply
    assert reply["seq"] is not None and reply["message"]
    assert live.room.version == version and live.room.doc(0) == before
    # The connection stays open and usable.
    assert (await a.act("end"))["type"] == "patch"


async def test_nobody_acts_out_of_turn_or_as_a_spectator(
    server: GameServer, client: ClientFactory
) -> None:
    a, b = await two_seat_room(client, decks=[DECK], dealer=1)
    assert a.my_turn and not b.my_turn
    reply = await b.act("end")
    assert reply["type"] == "error" and reply["code"] == "not_your_turn"
    watcher = await client("Wes")
    await watcher.join(a.room, spectate=True)  # type: ignore[arg-type]
    reply = await watcher.act("end")
    assert reply["type"] == "error" and reply["code"] == "not_seated"
    assert (await a.act("end"))["type"] == "patch"


async def test_protocol_errors_are_answered_and_the_connection_survives(
    client: ClientFactory,
) -> None:
    c = await client("Ana")
    for bad, code in [
        ("not json", "bad_message"),
        ("[1, 2]", "bad_message"),
        ('{"type": "fly"}', "bad_message"),
        ('{"type": "act", "seq": 1, "action": {"type": "end_turn"}}', "not_in_room"),
        ('{"type": "join", "room": "QQQQQQ"}', "room_not_found"),
        ('{"type": "hello", "version": 99}', "bad_phase"),  # a connection says hello once
    ]:
        start = len(c.frames)
        await c.send_raw(bad)
        await c.until(lambda cl, s=start: any(f["type"] == "error" for f in cl.frames[s:]))
        error = next(f for f in c.frames[start:] if f["type"] == "error")
        assert error["code"] == code, (bad, error)
    code_ = await c.create(seats=2)
    assert len(code_) == 6


async def test_first_message_must_be_hello(server: GameServer) -> None:
    from websockets.asyncio.client import connect

    from server.app import port_of

    async with connect(f"ws://127.0.0.1:{port_of(server)}/") as ws:
        await ws.send('{"type": "list_rooms"}')
        reply = await asyncio.wait_for(ws.recv(), 10)
        assert '"hello_first"' in str(reply)


async def test_reconnect_with_token_resumes_the_seat_with_the_hand_intact(
    client: ClientFactory,
) -> None:
    a, b = await two_seat_room(client)
    hand = list(a.game["hand"])  # type: ignore[index]
    code, token, seat = a.room, a.token, a.seat
    await a.close()
    await b.until(lambda c: c.doc is not None and not c.doc["room"]["seats"][seat]["connected"])
    again = await client("Ana")
    await again.join(code, token=token)  # type: ignore[arg-type]
    assert again.seat == seat and again.role == "player"
    assert again.game is not None and again.game["hand"] == hand
    await b.until(lambda c: c.doc is not None and c.doc["room"]["seats"][seat]["connected"])


async def test_a_forged_token_is_refused(client: ClientFactory) -> None:
    a, _b = await two_seat_room(client)
    thief = await client("Eve")
    with pytest.raises(ServerError) as info:
        await thief.join(a.room, token="x" * 22)  # type: ignore[arg-type]
    assert info.value.code == "bad_token"


async def test_a_bot_takes_over_an_absent_seat_and_hands_it_back(
    server: GameServer, client: ClientFactory
) -> None:
    a, b = await two_seat_room(client, decks=[DECK], dealer=1)
    code, token, seat = a.room, a.token, a.seat
    assert a.my_turn
    await a.close()
    # After the grace period a bot plays seat 0's turns, so the turn reaches Ben.
    await b.until(lambda c: c.doc is not None and c.doc["room"]["seats"][seat]["away"], 10)
    await b.until(lambda c: c.my_turn, 10)
    assert any(line["ev"] == "away" for line in b.log)
    again = await client("Ana")
    await again.join(code, token=token)  # type: ignore[arg-type]
    await b.until(lambda c: c.doc is not None and not c.doc["room"]["seats"][seat]["away"])
    # Seat 0 is a human again: after Ben ends his turn, the bot does not move for Ana.
    await b.act("end")
    await again.until(lambda c: c.my_turn, 10)
    await asyncio.sleep(0.2)
    assert again.my_turn


async def test_leaving_mid_match_hands_the_seat_to_a_bot(client: ClientFactory) -> None:
    a, b = await two_seat_room(client, target=5)
    await b.send({"type": "leave"})
    await b.wait_for(lambda f: f["type"] == "left")
    await a.until(lambda c: c.doc is not None and c.doc["room"]["seats"][1]["kind"] == "bot")


async def test_room_codes_avoid_look_alike_characters(client: ClientFactory) -> None:
    c = await client()
    code = await c.create(seats=2)
    assert len(code) == 6 and not set(code) & set("0O1IL5S2Z8B")


async def test_chat_reaches_everyone_in_the_room(client: ClientFactory) -> None:
    a, b = await two_seat_room(client)
    await a.send({"type": "chat", "text": "hola\x07 <b>bien</b>"})
    line = await b.wait_for(lambda f: f["type"] == "chat")
    assert line["name"] == "Ana" and line["text"] == "hola <b>bien</b>"


async def test_quick_play_seats_waiting_players_together(client: ClientFactory) -> None:
    a = await client("Ana")
    b = await client("Ben")
    await a.send({"type": "quick_play", "seats": 2})
    await a.wait_for(lambda f: f["type"] == "queued")
    await b.send({"type": "quick_play", "seats": 2})
    await a.until(lambda c: c.game is not None)
    await b.until(lambda c: c.game is not None)
    assert a.room == b.room and {a.seat, b.seat} == {0, 1}


async def test_quick_play_fills_with_bots_after_the_wait(client: ClientFactory) -> None:
    a = await client("Ana")
    await a.send({"type": "quick_play", "seats": 3})
    await a.until(lambda c: c.game is not None, 10)
    kinds = [s["kind"] for s in a.doc["room"]["seats"]]  # type: ignore[index]
    assert kinds.count("bot") == 2


async def test_public_rooms_are_listed(client: ClientFactory) -> None:
    a = await client("Ana")
    code = await a.create(seats=3, public=True)
    b = await client("Ben")
    for _ in range(50):
        rooms = await b.request({"type": "list_rooms"}, "rooms")
        if any(r["room"] == code for r in rooms["rooms"]):
            break
        await asyncio.sleep(0.02)
    else:
        raise AssertionError("room never listed")
    c = await client("Cai")
    await c.create(seats=2)  # private rooms stay unlisted
    rooms = await b.request({"type": "list_rooms"}, "rooms")
    assert [r["room"] for r in rooms["rooms"]] == [code]


async def test_a_public_room_with_no_person_left_is_not_listed(client: ClientFactory) -> None:
    a = await client("Ana")
    code = await a.create(seats=2, public=True, bots=[None, "random"])
    b = await client("Ben")

    async def listed() -> bool:
        rooms = await b.request({"type": "list_rooms"}, "rooms")
        return any(r["room"] == code for r in rooms["rooms"])

    for _ in range(50):
        if await listed():
            break
        await asyncio.sleep(0.02)
    else:
        raise AssertionError("room never listed")
    await a.send({"type": "leave"})  # only the bot is left
    for _ in range(100):
        if not await listed():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("a room of bots alone is still listed")


async def test_healthz_answers_on_the_game_port(server: GameServer) -> None:
    from server.app import port_of

    reader, writer = await asyncio.open_connection("127.0.0.1", port_of(server))
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    await writer.drain()
    data = await asyncio.wait_for(reader.read(4096), 10)
    writer.close()
    assert data.startswith(b"HTTP/1.1 200") and b'"status":"ok"' in data
