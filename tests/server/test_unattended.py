"""Bots never starve people: every room a connection gets counts against its limit, rooms
nobody watches wait while a person is still seated (within a disconnect's grace) and are
finished by their bots once nobody is left, and bots think in worker processes.

Both stores (the ``server`` fixture); real connections on loopback throughout.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import random
import uuid

import pytest

from clients.net import GameClient
from protocol.bots import Bot, make_bot
from protocol.engine import seat_view
from server.app import GameServer, port_of, start_server
from server.room import Room
from tests.redis_helpers import DEFAULT_REDIS_URL, delete_prefix

from .conftest import ClientFactory, make_settings
from .test_match_flow import next_mover

#: Long enough that a room that should be paused would have moved on many times.
STILL = 1.2


async def refused(c: GameClient, message: dict[str, object]) -> str:
    reply = await c.request(message, "error")
    return str(reply["code"])


async def leave(c: GameClient) -> None:
    await c.send({"type": "leave"})
    await c.wait_for(lambda f: f["type"] == "left")


async def until_a_bot_acted(server: GameServer, c: GameClient) -> None:
    """Play ``c``'s turns to their end until a bot has acted in its room."""
    assert c.room is not None
    for _ in range(200):
        events = await server.store.read(c.room)
        if any(e["e"] == "act" and e.get("by") == "bot" for e in events):
            return
        if c.my_turn:
            legal = c.game["legal"]  # type: ignore[index]
            await c.act("end" if "end" in legal else legal[0])
        else:
            await asyncio.sleep(0.05)
    raise AssertionError("no bot acted")


# --- rooms per connection ------------------------------------------------------------------


@pytest.mark.settings(rooms_per_connection=2, daily_level="random", daily_target=3)
async def test_daily_counts_against_the_rooms_per_connection(
    server: GameServer, client: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    ana = await client("Ana")
    await ana.create(seats=2)
    await leave(ana)
    await ana.send({"type": "daily"})
    await ana.until(lambda c: c.game is not None)
    await leave(ana)
    rooms = len(server.lobby.rooms)
    assert await refused(ana, {"type": "daily"}) == "too_many_rooms"
    assert await refused(ana, {"type": "create", "options": {}}) == "too_many_rooms"
    assert len(server.lobby.rooms) == rooms


@pytest.mark.settings(rooms_per_connection=1, daily_level="random", daily_target=3)
async def test_a_refused_daily_keeps_the_ranked_try(
    server: GameServer, client: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    ana = await client("Ana")
    await ana.create(seats=2)
    await leave(ana)
    assert await refused(ana, {"type": "daily"}) == "too_many_rooms"
    again = GameClient(f"ws://127.0.0.1:{port_of(server)}/", "Ana")
    again.player = ana.player
    await again.connect()
    try:
        await again.send({"type": "daily"})
        await again.until(lambda c: c.doc is not None and c.doc["room"]["daily"] is not None)
        assert again.doc is not None and again.doc["room"]["daily"]["ranked"] is True
    finally:
        await again.close()


@pytest.mark.settings(rooms_per_connection=1)
async def test_quick_play_is_refused_at_the_limit_and_a_table_counts(
    server: GameServer, client: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    full = await client("Ana")
    await full.create(seats=2)
    await leave(full)
    assert await refused(full, {"type": "quick_play", "seats": 2}) == "too_many_rooms"
    assert server.lobby.waiting_by_size() == {}  # refused before it was queued
    # A table formed by quick play is the connection's room: it counts like a created one.
    ben = await client("Ben")
    await ben.send({"type": "quick_play", "seats": 2})
    await ben.until(lambda c: c.game is not None)
    await leave(ben)
    assert await refused(ben, {"type": "create", "options": {}}) == "too_many_rooms"
    assert await refused(ben, {"type": "quick_play", "seats": 3}) == "too_many_rooms"


# --- pausing rooms nobody watches ----------------------------------------------------------


async def version_after(server: GameServer, code: str, seconds: float) -> tuple[int, int]:
    """The room's version now and ``seconds`` later."""
    live = server.lobby.rooms[code]
    before = live.room.version
    await asyncio.sleep(seconds)
    return before, server.lobby.rooms[code].room.version


async def until_version(server: GameServer, code: str, above: int, timeout: float = 10) -> None:
    async with asyncio.timeout(timeout):
        while server.lobby.rooms[code].room.version <= above:
            await asyncio.sleep(0.02)


@pytest.mark.settings(grace=60.0, bot_delay=0.3)  # Ana stays "disconnected", not away
async def test_bots_wait_while_a_person_is_only_disconnected_and_play_on_for_a_spectator(
    server: GameServer, client: ClientFactory
) -> None:
    ana = await client("Ana")
    code = await ana.create(seats=4, target=500, bots=[None, "heuristic", "random", "easy"])
    await ana.start()
    await ana.until(lambda c: c.my_turn)  # the bots played up to Ana
    await ana.act("end")
    await ana.close()  # before the next bot's delay is over
    live = server.lobby.rooms[code]
    async with asyncio.timeout(10):
        while not (seat := live.room.seats[0]) or seat.connected:
            await asyncio.sleep(0.02)
    before, after = await version_after(server, code, STILL)
    assert after == before, "bots played in a room nobody watches"
    assert live.room.phase == "playing" and live.room.bot_to_move() not in (None, 0)
    wes = await client("Wes")
    await wes.join(code, spectate=True)
    await until_version(server, code, before + 2)  # play resumed: the bots up to Ana
    assert live.room.seats[0] is not None and not live.room.seats[0].away


@pytest.mark.settings(hand_pause=0.6, grace=60.0)
async def test_the_next_hand_waits_for_someone_to_watch(
    server: GameServer, client: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    ana = await client("Ana")
    code = await ana.create(seats=2, target=500, bots=[None, "heuristic"])
    await ana.start()
    rng = random.Random(4)
    while ana.game is not None and ana.game["phase"] == "playing":
        if ana.my_turn:
            await ana.act(rng.choice(ana.game["legal"]))
        else:
            await ana.until(lambda c: c.my_turn or c.game is None or c.game["phase"] != "playing")
    await ana.close()  # within the pause; she is only disconnected, a person still seated
    await asyncio.sleep(0.8)  # past the pause: the next deal would have come by now
    before, after = await version_after(server, code, STILL)
    assert after == before and server.lobby.rooms[code].room.phase == "hand_over"
    lou = await client("Lou")
    await lou.join(code, spectate=True)
    await lou.until(lambda c: c.doc is not None and c.doc["room"]["phase"] == "playing")


@pytest.mark.settings(grace=60.0)  # Ana stays "disconnected", not away
async def test_a_turn_timer_waits_for_someone_to_watch(
    server: GameServer, client: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    ana = await client("Ana")
    code = await ana.create(seats=2, target=500, bots=[None, "heuristic"], turn_timer=0.25)
    await ana.start()
    await ana.until(lambda c: c.my_turn)
    await ana.close()
    live = server.lobby.rooms[code]
    async with asyncio.timeout(10):
        while not (seat := live.room.seats[0]) or seat.connected:
            await asyncio.sleep(0.02)
    before, after = await version_after(server, code, STILL)  # several timer periods
    assert after == before, "a turn timer ran out in a room nobody watches"
    wes = await client("Wes")
    await wes.join(code, spectate=True)
    await until_version(server, code, before)
    events = await server.store.read(code, before)
    assert any(e["e"] == "timeout" for e in events)


async def test_a_spectator_on_another_process_keeps_the_bots_playing() -> None:
    """Two processes on one Redis: the one driving the bots has nobody connected, the
    other has a spectator; the store's presence records tell the first to play on, at the
    table's pace. Once the spectator goes too, nobody is left: the bots finish at once."""
    url = os.environ.get("REDIS_URL", DEFAULT_REDIS_URL)
    prefix = f"kc-test-{uuid.uuid4().hex[:12]}"
    settings = make_settings(
        redis_url=url, redis_prefix=prefix, tick=0.2, lease=1.0, bot_delay=0.05
    )
    a = await start_server(settings)
    b = await start_server(dataclasses.replace(settings, process_id=uuid.uuid4().hex[:8]))
    try:
        ana = await GameClient(f"ws://127.0.0.1:{port_of(a)}/", "Ana").connect()
        code = await ana.create(seats=4, target=20, bots=[None, "heuristic", "random", "easy"])
        await ana.start()
        await until_a_bot_acted(a, ana)
        wes = await GameClient(f"ws://127.0.0.1:{port_of(b)}/", "Wes").connect()
        await wes.join(code, spectate=True)
        await ana.close()
        live = a.lobby.rooms[code]
        async with asyncio.timeout(10):
            while not (seat := live.room.seats[0]) or not seat.away:
                await asyncio.sleep(0.02)
        start = live.room.version
        await until_version(a, code, start + 8)  # Wes watches on b: the bots play on
        assert live.room.phase != "finished"
        await wes.close()
        # Unpaced now, in the idle-priority workers (slow only on a machine busy with
        # other work: the generous deadline is for that).
        async with asyncio.timeout(300):
            while a.lobby.rooms[code].room.phase != "finished":
                await asyncio.sleep(0.05)
        async with asyncio.timeout(10):
            while not await a.records.match_summaries(str(ana.player_id)):
                await asyncio.sleep(0.05)
    finally:
        await a.shutdown()
        await b.shutdown()
        await delete_prefix(url, prefix)


# --- bots in worker processes --------------------------------------------------------------


@pytest.mark.settings(daily_level="medium", daily_target=60)
async def test_daily_bots_answer_as_one_bot_object_asked_in_order(
    server: GameServer, client: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bots of the daily deal think in worker processes, one decision at a time, yet
    decide exactly as one bot object per seat would, without a clock: the same moves get the
    same answers in everyone's room, however busy the machine. ``medium`` draws from its
    random stream on every turn it plans."""
    ana = await client("Ana")
    await ana.send({"type": "daily"})
    await ana.until(lambda c: c.game is not None)
    code = ana.room
    assert code is not None

    async def bot_acts() -> int:
        return sum(e["e"] == "act" and e.get("by") == "bot" for e in await server.store.read(code))

    rng = random.Random(2)
    while await bot_acts() < 40:
        mover = await next_mover([ana])
        assert mover is not None, "the match ended first"
        await mover.act(rng.choice(mover.game["legal"]))  # type: ignore[index]
    events = await server.store.read(code)
    room = Room(events[0])
    bots: dict[int, Bot] = {}
    answered = 0
    for index, event in enumerate(events[1:], 1):
        if event["e"] == "act" and event.get("by") == "bot":
            seat = event["seat"]
            held = room.seats[seat]
            assert held is not None and held.level == "medium"
            bot = bots.setdefault(seat, make_bot("medium", room.bot_seed(seat), budget_ms=None))
            assert room.match is not None
            answer = bot.choose(seat_view(room.match, seat)).text()
            before = [(e["e"], e.get("seat"), e.get("a")) for e in events[index - 4 : index]]
            assert answer == event["a"], f"event {index} of seat {seat}, after {before}"
            answered += 1
        room.apply(event)
    assert answered >= 40


async def test_the_workers_start_at_the_first_bot_decision_and_stop_at_shutdown() -> None:
    game = await start_server(make_settings(bot_idle_class=True))  # the shipped class
    try:
        c = await GameClient(f"ws://127.0.0.1:{port_of(game)}/", "Ana").connect()
        code = await c.create(seats=2)
        assert not game.bots.pool.started  # a server without bots never starts a worker
        await c.request({"type": "add_bot", "seat": 1, "level": "heuristic"}, "patch")
        await c.start()
        await c.until(lambda cl: cl.game is not None)
        await until_a_bot_acted(game, c)
        assert game.lobby.rooms[code].room.match is not None and game.bots.pool.started
        executor = game.bots.pool._executor
        assert executor is not None
        # Each worker runs at a lower priority than the server (os.nice(0) reads it).
        niceness = await asyncio.wrap_future(executor.submit(os.nice, 0))
        assert niceness >= os.nice(0) + 10 or niceness == 19
        if hasattr(os, "SCHED_IDLE"):  # Linux: ordinary processes take the CPU from it at once
            policy = await asyncio.wrap_future(executor.submit(os.sched_getscheduler, 0))
            assert policy == os.SCHED_IDLE
        pids = list(getattr(executor, "_processes", {}))
        assert pids and os.getpid() not in pids
        await c.close()
    finally:
        await game.shutdown()
    async with asyncio.timeout(10):
        while any(_alive(pid) for pid in pids):
            await asyncio.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_a_hint_goes_ahead_of_waiting_bot_decisions() -> None:
    from server.bot_pool import BOT, HINT, _Gate

    gate = _Gate(1)
    await gate.acquire(BOT)  # one decision computing
    order: list[str] = []

    async def wait(name: str, priority: int) -> None:
        await gate.acquire(priority)
        order.append(name)

    waiters = [asyncio.ensure_future(wait(f"bot{i}", BOT)) for i in range(3)]
    await asyncio.sleep(0)
    waiters.append(asyncio.ensure_future(wait("hint", HINT)))
    await asyncio.sleep(0)
    waiters[1].cancel()  # a room closed while its bot waited
    await asyncio.sleep(0)
    for _ in range(3):
        gate.release()
        await asyncio.sleep(0)
    assert order == ["hint", "bot0", "bot2"]
    assert gate.waiting == 0 and gate.busy == 1
    gate.release()
    assert gate.busy == 0
    await asyncio.gather(*waiters, return_exceptions=True)


async def test_a_killed_worker_is_replaced(
    client: ClientFactory, server: GameServer, caplog: pytest.LogCaptureFixture
) -> None:
    ana = await client("Ana")
    await ana.create(seats=2, target=500, bots=[None, "heuristic"])
    await ana.start()
    await until_a_bot_acted(server, ana)
    # Every worker of both pools: Ana plays and watches, so her bot's turns go to the
    # normal-priority pool (killing only the idle one left whether its death was noticed
    # before the test ended to the machine's pace).
    pool = server.bots.pool
    executors = [pool._executor, pool._urgent.executor if pool._urgent else None]
    assert all(executor is not None for executor in executors)
    killed = 0
    for executor in executors:
        for pid in list(getattr(executor, "_processes", {})):
            try:
                os.kill(pid, 9)
                killed += 1
            except ProcessLookupError:  # a worker the pool was already replacing
                pass
    assert killed
    await asyncio.sleep(0.2)
    assert ana.room is not None
    acted = len(await server.store.read(ana.room))
    for _ in range(3):  # Ana ends her turns; the bot answers each time, from new workers
        before = len(await server.store.read(ana.room))
        assert await next_mover([ana]) is ana
        assert (await ana.act("end"))["type"] == "patch"
        await ana.until(lambda c: c.my_turn)
        events = await server.store.read(ana.room, before)
        assert any(e["e"] == "act" and e.get("by") == "bot" for e in events)
    assert len(await server.store.read(ana.room)) > acted
    assert any("worker process died" in r.getMessage() for r in caplog.records)
    assert server.bots.pool._executor is not executor
