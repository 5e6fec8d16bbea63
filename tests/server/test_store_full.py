"""Redis full: what a player sees when the store refuses writes, and that nothing is lost.

docker-compose.yml runs Redis with ``--maxmemory`` and ``--maxmemory-policy noeviction``:
at the limit Redis refuses every write rather than evict a room's log. Here a private
redis-server (started on a free port, ended by its pid) is set to the same policy with a
limit just above what it holds, then filled: a move, a join and a new room are refused with
``store_full`` (nothing changed, the connection open, the document as it was), reading goes
on (a spectator joins), the process logs no error, and once there is room again the same
move is accepted and the stored log holds every acknowledged action.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from redis.exceptions import OutOfMemoryError

from clients.net import GameClient, ServerError
from server.app import GameServer, port_of, start_server
from tests.redis_helpers import PrivateRedis, private_redis

from .conftest import make_settings

__all__ = ["private_redis"]


@pytest.fixture
async def full_redis(private_redis: PrivateRedis) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(private_redis.url)
    await client.config_set("maxmemory-policy", "noeviction")
    yield client
    await client.aclose()


async def used_memory(client: aioredis.Redis) -> int:
    return int((await client.info("memory"))["used_memory"])


async def fill(client: aioredis.Redis) -> int:
    """Set the limit a little above what Redis holds and write until it refuses; then pin
    the limit below what it holds (Redis's own bookkeeping frees a few bytes now and then,
    which would let one more write in between two refusals)."""
    await client.config_set("maxmemory", await used_memory(client) + 512 * 1024)
    written = 0
    while True:
        try:
            await client.set(f"filler:{written}", b"x" * 16384)
        except OutOfMemoryError:
            break
        written += 1
    await client.config_set("maxmemory", await used_memory(client) - 64 * 1024)
    return written


async def test_a_full_store_refuses_writes_clearly_and_loses_nothing(
    private_redis: PrivateRedis, full_redis: aioredis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    game: GameServer = await start_server(make_settings(redis_url=private_redis.url, tick=0.2))
    url = f"ws://127.0.0.1:{port_of(game)}/"
    people: list[GameClient] = []

    async def person(name: str) -> GameClient:
        made = await GameClient(url, name).connect()
        people.append(made)
        return made

    try:
        ana, ben = await person("Ana"), await person("Ben")
        code = await ana.create(seats=2)
        await ben.join(code)
        waiting = await (await person("Dee")).create(seats=2)
        await ben.ready()
        await ana.start()
        acked = 0
        for _ in range(4):
            mover = ana if ana.my_turn else ben
            assert mover.game is not None
            assert (await mover.act(mover.game["legal"][-1]))["type"] == "patch"
            acked += 1

        assert await fill(full_redis) > 0
        caplog.clear()
        caplog.set_level(logging.WARNING)
        mover = ana if ana.my_turn else ben
        assert mover.game is not None
        move, version, doc = mover.game["legal"][-1], mover.version, mover.snapshot_copy()
        refused = await mover.act(move)
        assert refused["type"] == "error" and refused["code"] == "store_full", refused
        assert refused["seq"] is not None and refused["params"] == {}
        assert mover.version == version and mover.doc == doc and mover.close_code is None
        rendered = game.metrics.render()
        text = rendered.decode() if isinstance(rendered, bytes) else rendered
        assert 'kc_actions_total{code="store_full",outcome="refused"} 1.0' in text
        # A new seat and a new room are writes too: refused the same way.
        cy = await person("Cy")
        with pytest.raises(ServerError) as joining:
            await cy.join(waiting)
        assert joining.value.code == "store_full"
        with pytest.raises(ServerError) as creating:
            await cy.create(seats=2)
        assert creating.value.code == "store_full"
        # Reading goes on: a spectator sees the table as it stands.
        await cy.join(code, spectate=True)
        assert cy.version == version
        assert len(await game.store.read(code)) == version
        bugs = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert not bugs, [r.getMessage() for r in bugs]

        # Room again (an operator raised the limit or freed memory): the same move is taken.
        await full_redis.config_set("maxmemory", 0)
        accepted = await mover.act(move)
        assert accepted["type"] == "patch" and accepted["from"] == version, accepted
        acked += 1
        stored = await game.store.read(code)
        assert sum(1 for e in stored if e["e"] == "act") >= acked
        await cy.until(lambda c: c.version >= accepted["to"])
        assert cy.doc is not None and cy.doc["room"]["phase"] == "playing"
    finally:
        for made in people:
            await made.close()
        await game.shutdown()
