"""A store that goes backwards: Redis restarted from an older append-only file.

Two server processes serve rooms whose players are spread over both. Mid-match, Redis is
killed and started again from a copy of its append-only file taken some moves earlier, as a
host crash under ``appendfsync everysec`` or a fail-over to a lagging replica leaves it. The
processes must notice, reload the stored history, tell their clients (``rewound`` and a
fresh snapshot), and never store a move decided on the lost history: every stored log
replays legally, and every client ends on the stored state.
"""

from __future__ import annotations

import asyncio
import random
import shutil
from pathlib import Path

from clients.net import GameClient
from server.store.redis_store import RedisStore
from tests.invariants import replay
from tests.redis_helpers import PrivateRedis

from .conftest import ServerProcess
from .test_two_processes import durable_redis, start_two

__all__ = ["durable_redis"]

ROOMS = 6


async def tables(urls: list[str]) -> list[list[GameClient]]:
    """Two-seat rooms, player 0 on the first process and player 1 on the second."""
    out = []
    for i in range(ROOMS):
        a = await GameClient(urls[0], f"A{i}", reconnect=True).connect()
        b = await GameClient(urls[1], f"B{i}", reconnect=True).connect()
        code = await a.create(seats=2, target=8)
        await b.join(code)
        await b.ready()
        await a.start()
        await b.until(lambda c: c.game is not None)
        out.append([a, b])
    return out


async def play(players: list[GameClient], rng: random.Random, moves: int | None) -> None:
    """Play ``moves`` accepted actions (None: to the end of the match), riding out refusals
    of actions a rewind or an outage made stale."""
    done = 0
    for _ in range(4000):
        if moves is not None and done >= moves:
            return
        for p in players:
            await p.until(lambda c: c.game is not None, 20)
        if any(p.game is not None and p.game["phase"] == "finished" for p in players):
            return
        mover = next((p for p in players if p.my_turn), None)
        if mover is None:
            await asyncio.sleep(0.02)
            continue
        reply = await mover.act(rng.choice(mover.game["legal"]))  # type: ignore[index]
        if reply["type"] == "patch":
            done += 1
        else:
            await asyncio.sleep(0.05)
            await mover.request({"type": "resync"}, "snapshot", 20)
    raise AssertionError("the match did not move on")


async def test_an_older_append_only_file_is_detected_and_survived(
    durable_redis: PrivateRedis,
    redis_prefix: str,
    processes: list[ServerProcess],
    tmp_path: Path,
) -> None:
    redis = durable_redis
    a, b = await start_two(redis.url, redis_prefix, processes)
    rooms = await tables([a.url, b.url])
    rng = random.Random(5)
    everyone = [p for pair in rooms for p in pair]
    try:
        for pair in rooms:
            await play(pair, rng, 4)
        aof = redis.directory / "appendonlydir"
        older = tmp_path / "older-aof"
        shutil.copytree(aof, older)  # every write so far is on disk (appendfsync always)
        for pair in rooms:
            await play(pair, rng, 6)
        seen = {pair[0].room: pair[0].version for pair in rooms}
        redis.kill()
        shutil.rmtree(aof)
        shutil.copytree(older, aof)
        redis.start()
        await asyncio.gather(*(play(pair, rng, None) for pair in rooms))
        rewound = [f for p in everyone for f in p.frames if f["type"] == "rewound"]
        # Every room lost moves, and the clients of both processes were told.
        assert {f["room"] for f in rewound} == set(seen)
        assert {f["room"] for p in rooms[0] for f in p.frames if f["type"] == "rewound"}
        store = RedisStore(redis.url, redis_prefix)
        try:
            for pair in rooms:
                code = pair[0].room
                assert code is not None
                room = replay(await store.read(code))
                assert room.phase == "finished"
                for p in pair:
                    await p.until(lambda c, r=room, s=p.seat: c.doc == r.doc(s), 10)
                    assert p.version == room.version
        finally:
            await store.close()
    finally:
        for p in everyone:
            await p.close()
