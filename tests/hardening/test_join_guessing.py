"""Guessing room codes is slow: failed joins are limited per connection and per client
address. A connection that keeps failing is told (``rate_limited``) and closed with 1008;
an address whose budget is spent waits its turn, and past its small queue is told to come
back (``rate_limited`` with ``retry_after``) with the connection left open. A person who
mistypes a code a few times never notices. ``X-Forwarded-For`` names the client only when
a trusted proxy sent it. (tests/hardening/test_address_limits.py: a right code from a
limited address, concurrency, the pace of guessing.)"""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import orjson
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from server.app import GameServer
from server.config import Settings, load, parse_networks
from server.guard import address_key, client_address

from .helpers import UNIT, clients_of, default_settings, fast_settings, serving, ws_url

#: Codes of the alphabet that the tests never create (creating picks random ones).
MISSES = ["AAAAAA", "CCCCCC", "DDDDDD", "EEEEEE", "FFFFFF", "GGGGGG", "HHHHHH", "JJJJJJ"]


class Prober:
    """A bare WebSocket client that says hello, joins, and reads the answers."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws

    async def recv(self) -> dict[str, Any]:
        frame: dict[str, Any] = orjson.loads(await asyncio.wait_for(self.ws.recv(), 50 * UNIT))
        return frame

    async def join(self, room: str, **fields: Any) -> dict[str, Any]:
        """Send a join; the first frame of the answer (``joined`` or an ``error``)."""
        await self.ws.send(orjson.dumps({"type": "join", "room": room, **fields}).decode())
        return await self.recv()

    async def miss(self, room: str) -> None:
        reply = await self.join(room)
        assert reply["type"] == "error" and reply["code"] == "room_not_found", reply

    async def refused_and_closed(self, room: str) -> None:
        """A join answered by ``rate_limited``, then a close with 1008."""
        reply = await self.join(room)
        assert reply["type"] == "error" and reply["code"] == "rate_limited", reply
        assert "failed joins" in reply["message"]
        try:
            extra = await self.recv()
        except ConnectionClosed as exc:
            assert exc.rcvd is not None and exc.rcvd.code == 1008
            return
        raise AssertionError(f"still open after the refusal: {extra}")

    async def address_limited(self, room: str) -> None:
        """A join answered by ``rate_limited`` with ``retry_after``; the connection stays open."""
        reply = await self.join(room)
        assert reply["type"] == "error" and reply["code"] == "rate_limited", reply
        assert reply["params"]["reason"] == "failed_joins", reply
        assert reply["params"]["retry_after"] >= 1, reply
        await self.ws.send(orjson.dumps({"type": "list_rooms"}).decode())
        assert (await self.recv())["type"] == "rooms"


@asynccontextmanager
async def probers(game: GameServer) -> AsyncIterator[Any]:
    made: list[ClientConnection] = []

    async def new(forwarded: str | None = None) -> Prober:
        headers = {"X-Forwarded-For": forwarded} if forwarded is not None else None
        ws = await connect(ws_url(game), additional_headers=headers)
        made.append(ws)
        await ws.send(orjson.dumps({"type": "hello", "version": 1, "name": "Pat"}).decode())
        prober = Prober(ws)
        assert (await prober.recv())["type"] == "welcome"
        return prober

    try:
        yield new
    finally:
        for ws in made:
            await ws.close()


def counted(game: GameServer, name: str, **labels: str) -> float:
    value = game.metrics.registry.get_sample_value(name, labels)
    return value or 0.0


def test_the_shipped_defaults() -> None:
    s = Settings()
    assert (s.join_failures, s.join_failure_window) == (10, 60.0)
    assert (s.join_address_burst, s.join_address_rate) == (30, 0.2)
    assert s.join_address_queue == 4
    assert s.join_address_table == 50000
    assert s.trusted_proxies == ""


async def test_a_few_mistyped_codes_are_never_noticed() -> None:
    async with serving(default_settings()) as game, clients_of(game) as pool:
        host = await pool.new("Host")
        code = await host.create(seats=4)
        async with probers(game) as new:
            # Two people on one address each mistype a code five times, then get it right.
            for name in ("first", "second"):
                person = await new()
                for miss in MISSES[:5]:
                    await person.miss(miss)
                assert (await person.join(code))["type"] == "joined", name
        assert counted(game, "kc_failed_joins_total", code="room_not_found") == 10
        assert counted(game, "kc_join_limited_total", limit="connection") == 0
        assert counted(game, "kc_join_limited_total", limit="address") == 0


async def test_a_connection_that_keeps_failing_is_refused_and_closed() -> None:
    settings = fast_settings(join_failures=3, join_address_burst=1000)
    async with serving(settings) as game, clients_of(game) as pool:
        host = await pool.new("Host")
        code = await host.create(seats=4)
        async with probers(game) as new:
            guesser = await new()
            await guesser.miss(MISSES[0])
            reply = await guesser.join(code, token="not-a-seat-token")
            assert reply["code"] == "bad_token"
            await guesser.miss(MISSES[1])
            # Past the limit even a right code is refused, and nothing is looked up.
            await guesser.refused_and_closed(code)
            assert [s is not None for s in game.lobby.rooms[code].room.seats] == [
                True,
                False,
                False,
                False,
            ]
            # Another connection from the same address is not this connection.
            other = await new()
            assert (await other.join(code))["type"] == "joined"
        assert counted(game, "kc_failed_joins_total", code="room_not_found") == 2
        assert counted(game, "kc_failed_joins_total", code="bad_token") == 1
        assert counted(game, "kc_join_limited_total", limit="connection") == 1


#: An address budget that hardly refills, and no waiting: past it, joins are told to retry.
NO_QUEUE = {"join_address_rate": 0.001, "join_address_queue": 0}


async def test_failures_from_one_address_add_up_across_connections() -> None:
    settings = fast_settings(join_failures=100, join_address_burst=5, **NO_QUEUE)
    async with serving(settings) as game, clients_of(game) as pool:
        host = await pool.new("Host")
        code = await host.create(seats=4)
        async with probers(game) as new:
            a, b, c = await new(), await new(), await new()
            for prober, misses in ((a, MISSES[:2]), (b, MISSES[2:4]), (c, MISSES[4:5])):
                for miss in misses:
                    await prober.miss(miss)
            # Not a close: the connection is not the guesser, its address is busy.
            await c.address_limited(code)
            fresh = await new()
            await fresh.address_limited(code)
        assert counted(game, "kc_join_limited_total", limit="address") == 2
        assert counted(game, "kc_join_limited_total", limit="connection") == 0


async def test_the_address_budget_refills() -> None:
    settings = fast_settings(join_failures=100, join_address_burst=2, join_address_rate=20.0)
    async with serving(settings) as game, clients_of(game) as pool:
        host = await pool.new("Host")
        code = await host.create(seats=4)
        async with probers(game) as new:
            first = await new()
            await first.miss(MISSES[0])
            await first.miss(MISSES[1])
            # Twenty a second: after a fifth of a second there is room for more again.
            await asyncio.sleep(0.2)
            second = await new()
            assert (await second.join(code))["type"] == "joined"


async def test_x_forwarded_for_names_the_client_only_from_a_trusted_proxy() -> None:
    limits = {"join_failures": 100, "join_address_burst": 2, **NO_QUEUE}
    behind = fast_settings(trusted_proxies="127.0.0.1", **limits)
    async with serving(behind) as game, probers(game) as new:
        one = await new("203.0.113.5")
        await one.miss(MISSES[0])
        await one.miss(MISSES[1])
        # The proxy's last hop names the client; whatever the client wrote before it, too.
        await (await new("203.0.113.5")).address_limited(MISSES[2])
        await (await new("198.51.100.9, 203.0.113.5")).address_limited(MISSES[2])
        # Another client behind the same proxy has its own budget, even with a forged hop.
        await (await new("203.0.113.5, 203.0.113.6")).miss(MISSES[2])
        await (await new("203.0.113.7")).miss(MISSES[2])
        assert set(game.guard.addresses) == {"203.0.113.5", "203.0.113.6", "203.0.113.7"}
    direct = fast_settings(**limits)
    async with serving(direct) as game, probers(game) as new:
        one = await new("203.0.113.5")
        await one.miss(MISSES[0])
        await one.miss(MISSES[1])
        # Not from a trusted proxy: the header is the client's own claim, and ignored.
        await (await new("203.0.113.6")).address_limited(MISSES[2])
        assert set(game.guard.addresses) == {"127.0.0.1"}


async def test_a_chain_of_trusted_proxies_is_skipped() -> None:
    settings = fast_settings(
        trusted_proxies="127.0.0.1, 10.0.0.0/8",
        join_failures=100,
        join_address_burst=1,
        **NO_QUEUE,
    )
    async with serving(settings) as game, probers(game) as new:
        await (await new("203.0.113.9, 10.1.2.3")).miss(MISSES[0])
        await (await new("203.0.113.9")).address_limited(MISSES[1])
        # Nothing but trusted hops: the nearest of them is the client.
        await (await new("10.9.9.9")).miss(MISSES[1])
        assert set(game.guard.addresses) == {"203.0.113.9", "10.9.9.9"}


async def test_the_address_table_is_bounded() -> None:
    settings = fast_settings(
        trusted_proxies="127.0.0.1",
        join_address_table=3,
        join_address_burst=5,
        join_address_rate=0.001,
    )
    async with serving(settings) as game, probers(game) as new:
        for i in range(10):
            await (await new(f"198.51.100.{i}")).miss(MISSES[0])
            assert len(game.guard.addresses) <= 3
        # The least recently used went first.
        assert list(game.guard.addresses) == ["198.51.100.7", "198.51.100.8", "198.51.100.9"]


async def test_buckets_that_filled_up_again_are_forgotten() -> None:
    # A token in 0.25 s: long beside one lookup, even on a busy machine (at 1,000 a second
    # the last address's bucket filled again before its failure was counted, and went too).
    settings = fast_settings(
        trusted_proxies="127.0.0.1", join_address_burst=2, join_address_rate=4.0
    )
    async with serving(settings) as game, probers(game) as new:
        for i in range(5):
            await (await new(f"198.51.100.{i}")).miss(MISSES[0])
            await asyncio.sleep(0.4)  # the bucket is full again
        assert list(game.guard.addresses) == ["198.51.100.4"]


def test_client_addresses() -> None:
    proxies = parse_networks("127.0.0.1, 10.0.0.0/8, ::1")
    ip = ipaddress.ip_address
    assert client_address("192.0.2.1", ["203.0.113.5"], proxies) == ip("192.0.2.1")
    assert client_address("127.0.0.1", [], proxies) == ip("127.0.0.1")
    assert client_address("127.0.0.1", ["203.0.113.5"], proxies) == ip("203.0.113.5")
    # Several headers count as one list, in order; ports and brackets are dropped.
    assert client_address("::1", ["198.51.100.1", "[2001:db8::7]:443"], proxies) == ip(
        "2001:db8::7"
    )
    assert client_address("10.0.0.2", ["203.0.113.5:5555, 10.0.0.3"], proxies) == ip("203.0.113.5")
    # Garbage where the client should be: the hop that wrote it is the client.
    assert client_address("10.0.0.2", ["203.0.113.5, junk, 10.0.0.3"], proxies) == ip("10.0.0.3")
    assert client_address("::ffff:192.0.2.9", [], proxies) == ip("192.0.2.9")
    assert address_key(ip("2001:db8:1:2:3:4:5:6")) == "2001:db8:1:2::/64"
    assert address_key(ip("192.0.2.9")) == "192.0.2.9"


def test_a_bad_trusted_proxies_setting_stops_the_server_at_start() -> None:
    assert load(["--trusted-proxies", "10.0.0.0/8,::1"]).trusted_proxies == "10.0.0.0/8,::1"
    with pytest.raises(SystemExit):
        load(["--trusted-proxies", "10.0.0.0/8,proxy.internal"])
