"""Seats before the start: sitting, moving, the host, starting."""

from __future__ import annotations

from clients.net import ServerError

from .conftest import ClientFactory


async def test_a_spectator_can_take_a_free_seat_and_a_player_can_move(
    client: ClientFactory,
) -> None:
    host = await client("Ana")
    code = await host.create(seats=3)
    watcher = await client("Wes")
    await watcher.join(code, spectate=True)
    await watcher.request({"type": "sit", "seat": 2}, "snapshot")
    assert watcher.seat == 2 and watcher.role == "player" and watcher.token
    await watcher.request({"type": "sit", "seat": 1}, "snapshot")
    assert watcher.seat == 1
    await host.until(lambda c: c.doc is not None and c.doc["room"]["seats"][1] is not None)
    assert host.doc is not None and host.doc["room"]["seats"][2] is None


async def test_taken_seats_and_full_rooms_are_refused(client: ClientFactory) -> None:
    host = await client("Ana")
    code = await host.create(seats=2)
    b = await client("Ben")
    try:
        await b.join(code, seat=0)
    except ServerError as exc:
        assert exc.code == "seat_taken"
    else:
        raise AssertionError("sat in a taken seat")
    await b.join(code)
    c = await client("Cai")
    try:
        await c.join(code)
    except ServerError as exc:
        assert exc.code == "room_full"
    else:
        raise AssertionError("sat in a full room")


async def test_only_the_host_starts_and_only_with_every_seat_filled(client: ClientFactory) -> None:
    host = await client("Ana")
    code = await host.create(seats=3)
    b = await client("Ben")
    await b.join(code)
    error = await b.request({"type": "start"}, "error")
    assert error["code"] == "not_host"
    error = await host.request({"type": "start"}, "error")
    assert error["code"] == "not_ready"
    await b.ready()
    error = await host.request({"type": "start"}, "error")
    assert error["code"] == "bad_phase"
    await host.start(fill="random")
    assert host.doc is not None
    assert [s["kind"] for s in host.doc["room"]["seats"]] == ["human", "human", "bot"]
    error = await host.request({"type": "start"}, "error")
    assert error["code"] == "bad_phase"


async def test_a_bad_stacked_deck_is_refused_when_creating(client: ClientFactory) -> None:
    host = await client("Ana")
    error = await host.request({"type": "create", "options": {"decks": [["AS"] * 52]}}, "error")
    assert error["code"] == "bad_options"
    assert host.room is None


async def test_next_hand_deals_with_the_dealer_moved_left(client: ClientFactory) -> None:
    host = await client("Ana")
    await host.create(seats=2, target=200, bots=[None, "heuristic"])
    await host.start()
    assert host.game is not None
    dealer = host.game["dealer"]
    for _ in range(2000):
        game = host.game
        assert game is not None
        if game["hand_no"] == 2:
            break
        if host.my_turn:
            await host.act("end" if "end" in game["legal"] else game["legal"][0])
        else:
            await host.until(lambda c: c.my_turn or (c.game or {}).get("hand_no") == 2, 10)
    assert host.game is not None and host.game["hand_no"] == 2
    assert host.game["dealer"] == (dealer + 1) % 2
    assert len(host.game["scores"]) == 1
