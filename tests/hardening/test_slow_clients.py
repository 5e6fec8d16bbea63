"""Slow and dead clients: a reader that stalls is dropped once its bounded queue fills,
without slowing its room or growing the server's buffers; a client that vanishes is found
by keepalive, and its seat goes not connected, then away."""

from __future__ import annotations

import asyncio
import random
import socket
import statistics
import time
from collections.abc import Callable

from clients.net import GameClient
from server.app import GameServer, port_of
from server.connection import Connection

from .helpers import UNIT, clients_of, fast_settings, next_mover, serving, table
from .rawws import RawClient

SEND_QUEUE = 32


def shows(version: int) -> Callable[[GameClient], bool]:
    return lambda c: c.version >= version


async def timed_moves(players: list[GameClient], rng: random.Random, count: int) -> list[float]:
    """Play ``count`` random moves; for each, the time from sending it until every player's
    document shows it."""
    took: list[float] = []
    for _ in range(count):
        mover = await next_mover(players)
        assert mover is not None and mover.game is not None
        started = time.monotonic()
        reply = await mover.act(rng.choice(mover.game["legal"]))
        assert reply["type"] == "patch", reply
        for p in players:
            await p.until(shows(reply["to"]), timeout=50 * UNIT)
        took.append(time.monotonic() - started)
    return took


def server_side(game: GameServer, name: str) -> Connection:
    return next(c for c in game.connections if c.name == name)


async def test_a_client_that_stops_reading_is_dropped_without_slowing_its_room() -> None:
    settings = fast_settings(send_queue=SEND_QUEUE, rate=1e6, burst=10**6)
    async with serving(settings) as game, clients_of(game) as pool:
        players = await table(pool, 2, seats=2, target=500)
        rng = random.Random(5)
        before = await timed_moves(players, rng, 30)

        # A spectator that reads its snapshot, then never again. Small socket buffers on
        # both ends (as on a congested link) make the stall show within a few hundred kB
        # instead of the megabytes loopback would otherwise absorb.
        for listener in game.ws_server.sockets if game.ws_server else ():
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8192)
        stall = await RawClient.open(port_of(game), rcvbuf=4096)
        try:
            stall.send_json({"type": "hello", "version": 1, "name": "Stall"})
            assert (await stall.recv_json())["type"] == "welcome"
            stall.send_json({"type": "join", "room": players[0].room or "", "spectate": True})
            assert (await stall.recv_json())["type"] == "joined"
            assert (await stall.recv_json())["type"] == "snapshot"
            conn = server_side(game, "Stall")
            transport = conn.ws.transport
            buffered: list[int] = []

            async def ask_for_more() -> None:
                # Snapshots on demand fill its path quicker than the game's patches alone,
                # at a pace a client that reads would easily keep up with.
                while not conn.dropped:
                    for _ in range(4):
                        stall.send_json({"type": "resync"})
                    await stall.drain()
                    buffered.append(transport.get_write_buffer_size())
                    await asyncio.sleep(0.005)

            asker = asyncio.create_task(ask_for_more())
            during: list[float] = []
            deadline = time.monotonic() + 200 * UNIT
            while not conn.dropped or len(during) < 20:
                assert time.monotonic() < deadline, "the stalled client was never dropped"
                during += await timed_moves(players, rng, 5)
            await asker
            # It did stall: the kernel's buffers filled up and frames waited in the process
            # (how much before its queue of SEND_QUEUE frames filled depends on timing).
            assert max(buffered) > 0
            # What the server holds for it is bounded: the queue by its size, the socket's
            # buffer by the library's write limit (32 KiB) and at most a frame or two more.
            at_drop = transport.get_write_buffer_size()
            assert max(buffered, default=0) <= 64 * 1024, max(buffered)
            after = await timed_moves(players, rng, 20)
            for _ in range(50):
                stall.send_json({"type": "resync"})
            await stall.drain()
            await asyncio.sleep(0.1)
            assert transport.get_write_buffer_size() <= at_drop + 1024

            print(
                f"stall: {len(buffered)} rounds of asking, at most {max(buffered)} bytes buffered;"
                f" medians {statistics.median(before):.4f} {statistics.median(during):.4f}"
                f" {statistics.median(after):.4f}"
            )
            # Its room never waited for it.
            normal = statistics.median(before)
            slack = 4 * normal + 0.05
            assert statistics.median(during) <= slack, (normal, statistics.median(during))
            assert statistics.median(after) <= slack, (normal, statistics.median(after))
            # And once it reads again, it learns why it was dropped: 1013, try again later.
            assert await stall.close_code(timeout=100 * UNIT) == 1013
        finally:
            stall.abort()
        # The people at the table were never affected.
        assert all(p.close_code is None and not p.errors for p in players)


async def vanish(c: GameClient) -> None:
    """Stop reading (and so answering pings) without closing anything."""
    assert c.ws is not None
    c.ws.transport.pause_reading()


async def test_a_client_that_vanishes_is_found_by_keepalive_and_its_seat_goes_away() -> None:
    interval = timeout = 3 * UNIT
    grace = 5 * UNIT
    settings = fast_settings(ping_interval=interval, ping_timeout=timeout, grace=grace)
    async with serving(settings) as game, clients_of(game) as pool:
        a, b = await table(pool, 2, seats=2, target=500)
        seat = b.seat
        assert seat is not None
        await vanish(b)
        started = time.monotonic()

        def seat_state(c: GameClient) -> dict[str, bool]:
            assert c.doc is not None
            s: dict[str, bool] = c.doc["room"]["seats"][seat]
            return s

        # websockets then waits up to the close timeout for the vanished peer to close the
        # TCP connection after the failed ping: allow for it.
        await a.until(lambda c: not seat_state(c)["connected"], timeout=interval + timeout + 15)
        gone = time.monotonic() - started
        assert gone >= timeout  # not before keepalive could have noticed
        assert not seat_state(a)["away"]
        await a.until(lambda c: seat_state(c)["away"], timeout=grace + 50 * UNIT)
        assert time.monotonic() - started >= gone + grace / 2  # not before the grace
        # A bot now plays the seat: the game goes on without the vanished player. Ending
        # every turn hands the turn to the bot, and it comes back only once the bot moved.
        version = a.version
        for _ in range(3):
            mover = await next_mover([a])
            assert mover is a and a.game is not None
            legal = a.game["legal"]
            await a.act("end" if "end" in legal else legal[0])
        await next_mover([a])
        assert a.version > version + 3  # three of ours, and the bot's in between
        assert b.ws is not None
        b.ws.transport.abort()


async def test_a_vanished_client_is_let_go_soon_after_the_keepalive_timeout() -> None:
    interval = timeout = close = 3 * UNIT
    settings = fast_settings(ping_interval=interval, ping_timeout=timeout, close_timeout=close)
    async with serving(settings) as game, clients_of(game) as pool:
        a, b = await table(pool, 2, seats=2, target=500)
        seat = b.seat
        assert seat is not None
        await vanish(b)
        try:
            # A ping goes unanswered, then the closing handshake waits out its own timeout.
            await a.until(
                lambda c: c.doc is not None and not c.doc["room"]["seats"][seat]["connected"],
                timeout=interval + timeout + close + 1.0,
            )
        finally:
            assert b.ws is not None
            b.ws.transport.abort()


def _masked_ping(payload: bytes) -> bytes:
    key = b"\x01\x02\x03\x04"
    body = bytes(b ^ key[i % 4] for i, b in enumerate(payload))
    return bytes([0x80 | 0x9, 0x80 | len(payload)]) + key + body


async def test_a_ping_flood_from_a_peer_that_never_reads_is_read_no_more() -> None:
    """Pings whose pongs are never read: once the pongs fill the outgoing buffer the server
    stops reading that peer (its sends then block), so the buffer stays bounded, and the
    room next door plays on."""
    async with serving(fast_settings(rate=1e6, burst=10**6)) as game, clients_of(game) as pool:
        players = await table(pool, 2, seats=2, target=500)
        flood = await RawClient.open(port_of(game), rcvbuf=4096)
        chunk = _masked_ping(b"p" * 125) * 2000  # 262 kB of pings a write
        sent, blocked = 0, False
        while sent < 64 * 2**20:
            flood.writer.write(chunk)
            try:
                await asyncio.wait_for(flood.drain(), 40 * UNIT)
            except TimeoutError:
                blocked = True
                break
            sent += len(chunk)
        assert blocked, f"the server read {sent >> 20} MiB of pings it could not answer"
        assert game.ws_server is not None
        buffered = max(ws.transport.get_write_buffer_size() for ws in game.ws_server.connections)
        assert buffered < 2**20, f"{buffered} bytes of pongs waiting"
        assert len(await timed_moves(players, random.Random(9), 5)) == 5
        flood.abort()
