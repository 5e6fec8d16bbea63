"""Turn timers, room expiry and graceful shutdown."""

from __future__ import annotations

import asyncio
import os
import signal
import sys

from clients.net import GameClient
from server.app import port_of, start_server

from .conftest import make_settings


async def test_when_the_turn_timer_runs_out_a_bot_plays_that_turn() -> None:
    game = await start_server(make_settings(bot_delay=0.0))
    url = f"ws://127.0.0.1:{port_of(game)}/"
    a, b = GameClient(url, "Ana"), GameClient(url, "Ben")
    try:
        await a.connect()
        await b.connect()
        code = await a.create(seats=2, turn_timer=0.3)
        await b.join(code)
        await b.ready()
        await a.start()
        for client in (a, b):  # both must know the game before asking whose turn it is
            await client.until(lambda c: c.game is not None)
        first = next(c for c in (a, b) if c.my_turn)
        other = b if first is a else a
        assert not other.my_turn
        # Nobody acts: the timer runs out, a bot finishes the turn and the turn moves on.
        await other.until(lambda c: c.my_turn, timeout=10)
        kinds = [line["ev"] for line in other.log if line.get("seat") == first.seat]
        assert "timed_out" in kinds
        # The bot ended the turn, or went out with it (some deals allow that: the hand ends).
        hand_over = any(line["ev"] == "hand_over" for line in other.log)
        assert kinds[-1] in ("drew", "ended") or hand_over
    finally:
        await a.close()
        await b.close()
        await game.shutdown()


async def test_a_room_nobody_is_connected_to_expires() -> None:
    game = await start_server(make_settings(room_ttl=0.2))
    url = f"ws://127.0.0.1:{port_of(game)}/"
    a = GameClient(url, "Ana")
    try:
        await a.connect()
        code = await a.create(seats=2)
        await a.send({"type": "leave"})
        await a.wait_for(lambda f: f["type"] == "left")
        for _ in range(100):
            if code not in await game.store.room_codes():
                break
            await asyncio.sleep(0.05)
        assert code not in await game.store.room_codes()
        start = len(a.frames)
        await a.send({"type": "join", "room": code})
        error = await a.wait_for(lambda f: f["type"] == "error")
        assert error["code"] == "room_not_found" and len(a.frames) > start
    finally:
        await a.close()
        await game.shutdown()


async def test_sigterm_tells_clients_and_exits_cleanly() -> None:
    env = {**os.environ, "KC_PORT": "0", "KC_BOT_DELAY": "0"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server", "serve", env=env, stdout=asyncio.subprocess.PIPE
    )
    try:
        assert proc.stdout is not None
        line = (await asyncio.wait_for(proc.stdout.readline(), 20)).decode()
        port = int(line.rsplit(":", 1)[1].strip(" /\n"))
        c = GameClient(f"ws://127.0.0.1:{port}/", "Ana")
        await c.connect()
        await c.create(seats=2)
        proc.send_signal(signal.SIGTERM)
        closing = await c.wait_for(lambda f: f["type"] == "closing", timeout=10)
        assert "restart" in closing["reason"]
        await c.until(lambda cl: cl.close_code is not None, timeout=10)
        assert c.close_code == 1001
        assert await asyncio.wait_for(proc.wait(), 10) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def test_a_room_reloads_when_the_store_lost_its_last_writes() -> None:
    from server.store.memory import MemoryStore

    store = MemoryStore()
    game = await start_server(make_settings(), store)
    url = f"ws://127.0.0.1:{port_of(game)}/"
    a = GameClient(url, "Ana")
    try:
        await a.connect()
        code = await a.create(seats=2, target=50, bots=[None, "heuristic"])
        await a.start()
        for _ in range(3):
            await a.until(lambda c: c.my_turn)
            await a.act("end")
        await a.until(lambda c: c.my_turn)
        stored = await store.read(code)
        # The store forgets the last event (as a Redis that crashed before syncing might).
        store._rooms[code] = stored[:-1]
        await a.act(a.game["legal"][-1])  # type: ignore[index]
        await a.until(
            lambda c: any(
                f["type"] == "snapshot" and f["version"] == len(stored) - 1 for f in c.frames
            )
        )
        # The room goes on from what the store kept, and the client follows it.
        await a.until(lambda c: c.my_turn)
        live = game.lobby.rooms[code]
        assert a.doc == live.room.doc(0)
        assert live.room.version == len(await store.read(code))
    finally:
        await a.close()
        await game.shutdown()
