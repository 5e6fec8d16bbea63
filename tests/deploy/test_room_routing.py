"""A room on one process: nginx routes a WebSocket that names its room by the room.

The shipped deploy/nginx.conf, run natively in front of the compose file's server replicas
(:mod:`tests.deploy.topology`): a socket opened at ``/?room=CODE`` goes by a consistent
hash of the code, anything else by least_conn. Which process a connection reached is read
from each process's own /metrics (``kc_url_rooms_total``, counted at each handshake, by
what the URL said), one connection at a time. A URL naming another room, a room that does
not exist or no room code at all is served as any other: routing makes a room cheap, the
store makes it correct.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
import redis
from websockets.asyncio.client import connect

from clients.net import GameClient, room_url
from tests.redis_helpers import UNIT

from .topology import Deployment, wait_until

pytestmark = pytest.mark.topology

#: Rooms whose players connect through nginx: enough that both replicas get some (the
#: chance that a fair hash puts all of them on one of two is 2 in 4,096).
ROOMS = 12


async def counts(deployment: Deployment, kind: str) -> list[float]:
    """``kc_url_rooms_total{kind}`` of each server process, asked directly."""
    return [await s.sample("kc_url_rooms_total", kind=kind) for s in deployment.servers]


async def landed(
    deployment: Deployment, kind: str, opening: Callable[[], Awaitable[object]]
) -> int:
    """Run ``opening`` (one new connection through nginx) and return the index of the
    server process that got it: the one whose count of ``kind`` went up by one."""
    before = await counts(deployment, kind)
    await opening()
    after: list[float] = before

    async def counted() -> bool:
        nonlocal after
        after = await counts(deployment, kind)
        return sum(after) > sum(before)

    await wait_until(counted, 100 * UNIT, f"a {kind} connection to be counted")
    moved = [i for i, (a, b) in enumerate(zip(after, before, strict=True)) if a != b]
    assert len(moved) == 1 and after[moved[0]] == before[moved[0]] + 1, (before, after)
    return moved[0]


def opener(client: GameClient, room: str) -> Callable[[], Awaitable[object]]:
    """Opening ``client``'s connection, naming ``room`` in its URL."""

    async def opening() -> object:
        return await client.connect(room)

    return opening


@contextlib.asynccontextmanager
async def clients() -> AsyncIterator[list[GameClient]]:
    made: list[GameClient] = []
    try:
        yield made
    finally:
        for client in made:
            with contextlib.suppress(Exception):
                await client.close()


async def test_every_player_of_a_room_reaches_the_same_process(deployment: Deployment) -> None:
    url = deployment.nginx.url
    homes: dict[str, int] = {}
    async with clients() as made:
        for n in range(ROOMS):
            host = GameClient(url, f"Host{n}", reconnect=True, move_to_room=True)
            made.append(host)
            # The creator does not know the room yet: least_conn.
            await landed(deployment, "none", host.connect)
            # Its create names the room: it moves to a connection naming it, at once.
            code = ""

            async def creating(host: GameClient = host) -> None:
                nonlocal code
                code = await host.create(seats=4, target=5)

            places = {await landed(deployment, "code", creating)}
            assert host.moves == 1 and host.connected_url == room_url(url, code)
            for seat in range(1, 4):
                guest = GameClient(url, f"Guest{n}-{seat}", reconnect=True)
                made.append(guest)
                places.add(await landed(deployment, "code", opener(guest, code)))
                assert guest.connected_url == room_url(url, code)
                await guest.join(code, seat)
            assert len(places) == 1, f"room {code}'s players reached processes {places}"
            homes[code] = places.pop()
            if n == 0:
                # A reconnection names the room too: back on the room's process, with the
                # seat and its token.
                assert await landed_again(deployment, host, code) == homes[code]
                assert host.connected_url == room_url(url, code) and host.seat == 0
        assert set(homes.values()) == set(range(len(deployment.servers))), homes
        # No creator's seat was taken for gone when it left its first process ("moved"); the
        # first room's was, when its connection was dropped above.
        stored = await asyncio.to_thread(presence_events, deployment, list(homes)[1:])
        assert stored == 0, stored


def presence_events(deployment: Deployment, codes: list[str]) -> int:
    """How many presence changes the rooms ``codes`` stored (read from Redis)."""
    db = redis.Redis.from_url(deployment.redis.url)
    try:
        return sum(
            1
            for code in codes
            for event in db.lrange(f"kc:{{room:{code}}}:events", 0, -1)
            if b'"presence"' in event
        )
    finally:
        db.close()


async def landed_again(deployment: Deployment, client: GameClient, code: str) -> int:
    """Drop ``client``'s connection once more; the process its reconnection reached."""
    reconnects, start = client.reconnects, len(client.frames)
    assert client.ws is not None
    where = await landed(deployment, "code", client.ws.close)

    def back(c: GameClient) -> bool:
        seen = c.frames[start:]
        return c.reconnects == reconnects + 1 and any(f["type"] == "snapshot" for f in seen)

    await client.until(back)
    assert client.room == code
    return where


#: URLs that name no room a player is in: served like any other (the value is the
#: client's and never trusted). nginx hashes the first three, least_conn the rest.
ODD_ROOMS = [
    "XXXXXX",  # a well-formed code of no room
    "AAAAAA",  # another; the join below names another room
    "ZZZZZZ",  # no code (no Z in codes), which nginx hashes all the same
    "k7qmxa",  # lower case: no code (the server writes codes in upper case)
    "%00%0d%0a",  # control characters, percent-encoded
    "../../etc/passwd",
    "x" * 900,  # long, under the server's path limit
    "",
]


def turn_of(*players: GameClient) -> Callable[[], Awaitable[bool]]:
    async def check() -> bool:
        return any(p.my_turn for p in players)

    return check


async def test_a_room_the_url_does_not_name_still_plays(deployment: Deployment) -> None:
    url = deployment.nginx.url
    rng = random.Random(7)
    async with clients() as made:
        host = GameClient(url, "Host")
        made.append(host)
        await host.connect()
        code = await host.create(seats=2, target=5)
        assert code not in ODD_ROOMS
        for n, odd in enumerate(ODD_ROOMS):
            base = url.removesuffix("/ws")
            # Spelled out rather than built by room_url: it would clean the value up.
            raw = f"{base}/ws?room={odd}&x={n}"
            guest = GameClient(raw, f"Odd{n}")
            made.append(guest)
            await guest.connect()
            await guest.join(code, spectate=True)
            assert guest.room == code and guest.doc is not None
        # A player whose URL names another room plays with the host, wherever each of them
        # landed: the move is acknowledged and both copies agree.
        player = GameClient(room_url(url, "XXXXXX"), "Ben")
        made.append(player)
        await player.connect()
        await player.join(code, 1)
        await player.ready()
        await host.start()
        for _ in range(4):
            await wait_until(turn_of(host, player), 100 * UNIT, "someone's turn")
            mover = host if host.my_turn else player
            assert mover.game is not None
            answer = await mover.act(rng.choice(mover.game["legal"]))
            assert answer["type"] == "patch", answer
        version = max(host.version, player.version)
        await host.until(lambda c: c.version >= version)
        await player.until(lambda c: c.version >= version)
        assert host.game is not None and player.game is not None
        assert host.game["piles"] == player.game["piles"]
    invalid = sum(await counts(deployment, "invalid"))
    assert invalid == 6, invalid  # all but the two well-formed codes
    # The server is well: a plain handshake after all that is served.
    async with asyncio.timeout(100 * UNIT):
        async with connect(room_url(url, None)) as ws:
            await ws.send('{"type": "hello", "version": 2}')
            assert "welcome" in str(await ws.recv())
