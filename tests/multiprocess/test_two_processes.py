"""Several server processes on one Redis: one game, deaths of a process, Redis restarts."""

from __future__ import annotations

import asyncio
import random
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from clients.net import GameClient
from tests.redis_helpers import PrivateRedis
from tests.server.test_match_flow import next_mover, play_until_finished

from .conftest import ServerProcess


async def start_two(
    url: str, prefix: str, started: list[ServerProcess], **settings: str
) -> list[ServerProcess]:
    pair = [
        await ServerProcess(url, prefix, **settings).start(),
        await ServerProcess(url, prefix, **settings).start(),
    ]
    started.extend(pair)
    return pair


async def table(urls: list[str], seats: int = 4, target: int = 12) -> list[GameClient]:
    """A room whose players are spread over ``urls`` (player i on urls[i % len])."""
    players = [GameClient(urls[i % len(urls)], f"P{i}", reconnect=True) for i in range(seats)]
    for p in players:
        p.urls = urls[urls.index(p.url) :] + urls[: urls.index(p.url)]
        await p.connect()
    code = await players[0].create(seats=seats, target=target)
    for p in players[1:]:
        await p.join(code)
        await p.ready()
    await players[0].start()
    for p in players:
        await p.until(lambda c: c.game is not None)
    return players


async def test_players_on_two_processes_play_one_game(
    redis_url: str, redis_prefix: str, processes: list[ServerProcess]
) -> None:
    a, b = await start_two(redis_url, redis_prefix, processes)
    players = await table([a.url, b.url])
    try:
        await play_until_finished(players, random.Random(9))
        for p in players:
            await p.until(lambda c: c.game is not None and c.game["phase"] == "finished")
        assert {p.url for p in players} == {a.url, b.url}
        # Rated once, by the process whose append finished the match; everyone sees it.
        for p in players:
            await p.until(lambda c: c.doc is not None and c.doc["room"]["ratings"] is not None)
        # The ratings are the room's last event: from then on every client holds one version.
        last = max(p.version for p in players)
        for p in players:
            await p.until(lambda c: c.version == last)
        changes = {str(p.doc["room"]["ratings"]) for p in players}  # type: ignore[index]
        assert len(changes) == 1
        for p in players:
            profile = await p.request({"type": "profile"}, "profile")
            # Counted once (new players count for no one but bots: 0 here, docs/ratings.md).
            assert profile["matches"] == p.doc["room"]["ratings"][p.seat]["matches"]  # type: ignore[index]
    finally:
        for p in players:
            await p.close()


async def test_games_survive_the_death_of_a_process(
    redis_url: str, redis_prefix: str, processes: list[ServerProcess]
) -> None:
    # A grace period longer than any reconnect: no bot plays a seat while its player returns.
    a, b = await start_two(redis_url, redis_prefix, processes, grace="30")
    tables = [await table([a.url, b.url], seats=2, target=10) for _ in range(3)]
    players = [p for t in tables for p in t]
    rng = random.Random(4)
    try:
        # Play a little everywhere, then kill one process in the middle of the games.
        for t in tables:
            for _ in range(6):
                mover = next((p for p in t if p.my_turn), None)
                if mover is not None:
                    await mover.act(rng.choice(mover.game["legal"]))  # type: ignore[index]
        hands = {(p.room, p.seat): list(p.game["hand"]) for p in players}  # type: ignore[index]
        await a.kill()
        for p in players:
            await p.until(
                lambda c: c.url == b.url and c.doc is not None and c.close_code is None, 20
            )
        for p in players:
            assert p.game is not None and p.game["hand"] == hands[(p.room, p.seat)]
        for t in tables:
            await play_until_finished(t, rng)
            for p in t:
                await p.until(lambda c: c.game is not None and c.game["phase"] == "finished", 20)
    finally:
        for p in players:
            await p.close()


async def test_bots_keep_playing_after_the_process_driving_them_dies(
    redis_url: str, redis_prefix: str, processes: list[ServerProcess]
) -> None:
    a, b = await start_two(redis_url, redis_prefix, processes)
    host = GameClient(a.url, "Ana")
    watcher = GameClient(b.url, "Wes")
    await host.connect()
    await watcher.connect()
    try:
        code = await host.create(seats=3, target=30, bots=[None, "random", "random"])
        await watcher.join(code, spectate=True)
        await host.start()
        await host.send({"type": "leave"})  # from now on bots play every seat
        await watcher.until(lambda c: c.version > 30, 20)
        # Kill whichever process holds the lease on driving this room's bots.
        client = aioredis.Redis.from_url(redis_url)
        holder = (await client.get(f"{redis_prefix}:{{room:{code}}}:lead") or b"").decode()
        await client.aclose()
        pids = {p.settings_id: p for p in (a, b)}
        driver = pids[holder]
        await driver.kill()
        survivor = b if driver is a else a
        if survivor is a:
            watcher = GameClient(a.url, "Wes")
            await watcher.connect()
            await watcher.join(code, spectate=True)
        before = watcher.version
        await watcher.until(lambda c: c.version > before + 20, 20)
    finally:
        await host.close()
        await watcher.close()


def healthz(port: int) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as reply:
            return int(reply.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


@pytest.fixture
def durable_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    """A private Redis with an append-only file synced on every write: kill -9 loses nothing."""
    server = PrivateRedis(tmp_path, appendonly=True)
    server.start()
    yield server
    server.stop()


async def test_a_redis_restart_is_reported_and_recovered_from(
    durable_redis: PrivateRedis, redis_prefix: str, processes: list[ServerProcess]
) -> None:
    private_redis = durable_redis
    down, up = {"type": "status", "store": "down"}, {"type": "status", "store": "up"}
    a, b = await start_two(private_redis.url, redis_prefix, processes)
    players = await table([a.url, b.url], seats=2, target=6)
    rng = random.Random(2)
    try:
        for kill in (True, False):
            mover = await next_mover(players)
            assert mover is not None
            await mover.act(rng.choice(mover.game["legal"]))  # type: ignore[index]
            # Both processes must know the move before Redis goes (announcements need it);
            # presence changes stored after an outage may follow it.
            for p in players:
                await p.until(lambda c, v=mover.version: c.version >= v, 10)
            if kill:
                private_redis.kill()
            else:
                private_redis.stop()
            # Each process notices the outage by itself (and tells its own clients).
            for p in players:
                await p.until(lambda c: c.frames.count(down) == c.frames.count(up) + 1, 10)
            assert await asyncio.to_thread(healthz, a.port) == 503
            mover = await next_mover(players)
            assert mover is not None
            reply = await mover.act(mover.game["legal"][0])  # type: ignore[index]
            assert reply["type"] == "error" and reply["code"] == "store_unavailable"
            private_redis.start()
            for p in players:
                await p.until(lambda c: c.frames.count(up) == c.frames.count(down), 15)
            assert await asyncio.to_thread(healthz, b.port) == 200
            reply = await mover.act(mover.game["legal"][0])  # type: ignore[index]
            assert reply["type"] == "patch", reply
            version = mover.version
            await players[0].until(lambda c, v=version: c.version >= v, 10)
        await play_until_finished(players, rng)
    finally:
        for p in players:
            await p.close()
