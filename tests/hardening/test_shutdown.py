"""Graceful shutdown on Redis: SIGTERM stops accepting, tells every client ``closing``, and
a new server on the same Redis resumes every room: people come back with their tokens to
their seats and hands, and the matches go on.

The servers are real ``kings-corner serve`` processes on a private redis-server, each
stopped by its own process id.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from websockets.asyncio.client import connect

from clients.net import GameClient
from server.store.redis_store import RedisStore
from tests.redis_helpers import PrivateRedis

from .helpers import UNIT, clients_of, fast_settings, next_mover, play_moves, serving

GRACE = 2.0


class ServerProcess:
    """``python -m server serve`` on a free port, pointed at ``redis_url``."""

    def __init__(self, redis_url: str) -> None:
        self.redis_url = redis_url
        self.proc: asyncio.subprocess.Process | None = None
        self.port = 0

    async def start(self) -> ServerProcess:
        env = {
            **os.environ,
            "REDIS_URL": self.redis_url,
            "KC_HOST": "127.0.0.1",
            "KC_PORT": "0",
            "KC_BOT_DELAY": "0",
            "KC_HAND_PAUSE": "0.05",
            "KC_GRACE": str(GRACE),
            "KC_TICK": "0.2",
            "KC_LOG_LEVEL": "WARNING",
        }
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "server",
            "serve",
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        assert self.proc.stdout is not None
        line = (await asyncio.wait_for(self.proc.stdout.readline(), 300 * UNIT)).decode()
        assert "serving on" in line, line
        self.port = int(line.rsplit(":", 1)[1].strip(" /\n"))
        return self

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    def terminate(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)

    async def wait(self, timeout: float) -> int:
        assert self.proc is not None
        return await asyncio.wait_for(self.proc.wait(), timeout)

    async def kill(self) -> None:
        """SIGKILL this process (only this one) if it still runs."""
        if self.proc is not None and self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()


@contextlib.asynccontextmanager
async def server_process(redis_url: str) -> AsyncIterator[ServerProcess]:
    server = ServerProcess(redis_url)
    try:
        yield await server.start()
    finally:
        await server.kill()


class People:
    """Clients of one server process, closed at the end."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.made: list[GameClient] = []

    async def new(self, name: str) -> GameClient:
        c = GameClient(self.url, name)
        self.made.append(c)
        await c.connect()
        return c

    async def close(self) -> None:
        for c in self.made:
            with contextlib.suppress(Exception):
                await c.close()


async def tables(people: People) -> list[list[GameClient]]:
    """Rooms in every state worth resuming: matches in progress between people, one with
    bots waiting for its person, a lobby."""
    rooms: list[list[GameClient]] = []
    for i in range(3):
        a = await people.new(f"A{i}")
        code = await a.create(seats=2, target=500)
        b = await people.new(f"B{i}")
        await b.join(code)
        await b.ready()
        await a.start()
        await play_moves([a, b], random.Random(i), 4 + i)
        rooms.append([a, b])
    solo = await people.new("Solo")
    await solo.create(seats=3, target=500, bots=[None, "random", "heuristic"])
    await solo.start()
    await next_mover([solo])  # the bots play until it is the person's turn
    rooms.append([solo])
    host = await people.new("Host")
    code = await host.create(seats=3)
    guest = await people.new("Guest")
    await guest.join(code)
    rooms.append([host, guest])
    return rooms


def everyone_connected(c: GameClient) -> bool:
    return c.doc is not None and all(
        s["connected"] for s in c.doc["room"]["seats"] if s is not None and s["kind"] == "human"
    )


async def test_sigterm_then_a_new_server_on_the_same_redis_resumes_every_room(
    private_redis: PrivateRedis,
) -> None:
    reader = RedisStore(private_redis.url)
    try:
        async with server_process(private_redis.url) as first:
            people = People(first.url)
            try:
                rooms = await tables(people)
                clients = [c for players in rooms for c in players]
                for c in clients:
                    await c.until(everyone_connected, timeout=50 * UNIT)
                before = {
                    (c.room, c.seat): {"doc": c.snapshot_copy(), "token": c.token, "name": c.name}
                    for c in clients
                }
                logs = {c.room: await reader.read(c.room or "") for c in clients}
                await check_sigterm(first, clients)
            finally:
                await people.close()
        async with server_process(private_redis.url) as second:
            people = People(second.url)
            try:
                await check_resumed(second, people, before, logs, reader)
            finally:
                await people.close()
    finally:
        await reader.close()


async def check_sigterm(server: ServerProcess, clients: list[GameClient]) -> None:
    server.terminate()

    def told(c: GameClient) -> bool:
        return any(f["type"] == "closing" and f["reason"] for f in c.frames)

    for c in clients:
        await c.until(told, timeout=100 * UNIT)
    # Once told, nobody new gets in.
    with pytest.raises(OSError):
        async with connect(server.url, open_timeout=20 * UNIT):
            pass
    for c in clients:
        await c.until(lambda cl: cl.close_code is not None, timeout=100 * UNIT)
        assert c.close_code == 1001
    assert await server.wait(timeout=100 * UNIT) == 0


async def check_resumed(
    server: ServerProcess,
    people: People,
    before: dict[tuple[str | None, int | None], dict[str, Any]],
    logs: dict[str | None, list[dict[str, Any]]],
    reader: RedisStore,
) -> None:
    async def come_back(key: tuple[str | None, int | None]) -> GameClient:
        room, _seat = key
        c = await people.new(before[key]["name"])
        assert room is not None
        await c.join(room, token=before[key]["token"])
        return c

    back = await asyncio.gather(*(come_back(key) for key in before))
    for c in back:
        await c.until(everyone_connected, timeout=100 * UNIT)
    for c in back:
        was = before[(c.room, c.seat)]
        assert c.role == "player" and c.token == was["token"]
        assert c.doc == was["doc"], f"{c.room} seat {c.seat}"
    # Nothing but presence happened to any room in between.
    for code, events in logs.items():
        now = await reader.read(code or "")
        assert now[: len(events)] == events
        assert {e["e"] for e in now[len(events) :]} <= {"presence"}
    # Every match goes on where it was.
    for code in {c.room for c in back}:
        players = [c for c in back if c.room == code]
        assert players[0].game is None or await play_moves(players, random.Random(1), 2) == 2


async def test_shutdown_does_not_wait_for_connections_that_already_closed() -> None:
    async with serving(fast_settings()) as game:
        async with clients_of(game) as pool:
            c = await pool.new("Ana")
            await c.create(seats=2)
        started = time.monotonic()
        await game.shutdown()
        assert time.monotonic() - started < 0.5


async def test_after_a_restart_a_seat_nobody_returns_to_goes_to_a_bot(
    private_redis: PrivateRedis,
) -> None:
    async with server_process(private_redis.url) as first:
        people = People(first.url)
        try:
            a = await people.new("Ana")
            code = await a.create(seats=2, target=500)
            b = await people.new("Ben")
            await b.join(code)
            await b.ready()
            await a.start()
            await play_moves([a, b], random.Random(3), 3)
            await b.until(everyone_connected, timeout=50 * UNIT)
            token, seat = a.token, a.seat
            first.terminate()
            assert await first.wait(timeout=100 * UNIT) == 0
        finally:
            await people.close()
    async with server_process(private_redis.url) as second:
        people = People(second.url)
        try:
            # Only Ana comes back; Ben's seat must not hold the match up for ever.
            again = await people.new("Ana")
            await again.join(code, token=token)
            assert again.seat == seat
            other = 1 - (seat or 0)

            def ben(c: GameClient) -> dict[str, Any]:
                assert c.doc is not None
                s: dict[str, Any] = c.doc["room"]["seats"][other]
                return s

            await again.until(lambda c: not ben(c)["connected"], timeout=100 * UNIT)
            await again.until(lambda c: ben(c)["away"], timeout=GRACE + 100 * UNIT)
            # A bot plays Ben's turns: Ana always gets the turn back.
            for _ in range(3):
                assert await play_moves([again], random.Random(4), 1) == 1
        finally:
            await people.close()
