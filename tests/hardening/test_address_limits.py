"""An address whose failed-join budget is spent slows guessing down without locking anyone
out: its joins and recoveries wait their turn and are looked up one at a time as the
budget refills, so a right room code or recovery code still gets in within seconds, while
guesses from that address go no faster than the refill rate. Lookups are reserved before
they start, so joins arriving at once cannot overshoot the budget, and the waiting line of
one address is short: past it a request is told when to come back (``rate_limited`` with
``retry_after``) and its connection stays open. A connection that fails too often itself
is still closed with 1008, for ``recover`` as for ``join``.

Everything goes through real WebSocket connections on loopback; the lobby's ``get`` and
the identities' ``redeem`` are wrapped (our own seams) only to count lookups."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import orjson
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from server.app import GameServer

from .helpers import UNIT, clients_of, fast_settings, serving, ws_url

#: Codes of the alphabet that the tests never create (creating picks random ones).
MISSES = ["AAAAAA", "CCCCCC", "DDDDDD", "EEEEEE", "FFFFFF", "GGGGGG", "HHHHHH", "JJJJJJ"]
#: Recovery codes of the right shape that belong to nobody.
WRONG_CODES = [letter * 16 for letter in "ACDEFGHJKMNP"]
#: Every connection without a header is 127.0.0.1; one with a header is the address in it.
PROXIED = {"trusted_proxies": "127.0.0.1", "join_failures": 1000}


def stores(kind: str, redis_url: str, redis_prefix: str) -> dict[str, Any]:
    if kind == "redis":
        return {"redis_url": redis_url, "redis_prefix": redis_prefix}
    return {}


class Peer:
    """A bare WebSocket client: says hello, sends requests, reads the answers."""

    def __init__(self, ws: ClientConnection, welcome: dict[str, Any]) -> None:
        self.ws = ws
        self.welcome = welcome

    async def recv(self) -> dict[str, Any]:
        frame: dict[str, Any] = orjson.loads(await asyncio.wait_for(self.ws.recv(), 50 * UNIT))
        return frame

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send ``message``; the first frame of the answer."""
        await self.ws.send(orjson.dumps(message).decode())
        return await self.recv()

    async def join(self, room: str, **fields: Any) -> dict[str, Any]:
        return await self.request({"type": "join", "room": room, **fields})

    async def recover(self, code: str) -> dict[str, Any]:
        return await self.request({"type": "recover", "code": code})

    async def recovery_code(self) -> str:
        """A new recovery code of this identity (frames before its answer are skipped)."""
        await self.ws.send(orjson.dumps({"type": "recovery_code"}).decode())
        while (frame := await self.recv())["type"] != "recovery_code":
            assert frame["type"] != "error", frame
        code: str = frame["code"]
        return code

    async def miss(self, room: str) -> None:
        reply = await self.join(room)
        assert reply["type"] == "error" and reply["code"] == "room_not_found", reply

    async def still_open(self) -> None:
        assert (await self.request({"type": "list_rooms"}))["type"] == "rooms"


@asynccontextmanager
async def peers(game: GameServer) -> AsyncIterator[Callable[..., Awaitable[Peer]]]:
    made: list[ClientConnection] = []

    async def new(forwarded: str | None = None) -> Peer:
        headers = {"X-Forwarded-For": forwarded} if forwarded is not None else None
        ws = await connect(ws_url(game), additional_headers=headers)
        made.append(ws)
        await ws.send(orjson.dumps({"type": "hello", "version": 1, "name": "Pat"}).decode())
        welcome: dict[str, Any] = orjson.loads(await asyncio.wait_for(ws.recv(), 50 * UNIT))
        assert welcome["type"] == "welcome", welcome
        return Peer(ws, welcome)

    try:
        yield new
    finally:
        for ws in made:
            await ws.close()


def counted(game: GameServer, name: str, **labels: str) -> float:
    value = game.metrics.registry.get_sample_value(name, labels)
    return value or 0.0


class Lookups:
    """Counts the lookups of room codes (the lobby's ``get``, also behind a seat token's
    ``rejoin``) or of recovery codes, when each started and how many ran at once.
    ``delay`` stretches each one, so that requests overlap as much as they can."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.started: list[float] = []
        self.running = 0
        self.most = 0

    def wrap(self, target: Any, name: str) -> None:
        original = getattr(target, name)

        async def counting(*args: Any, **kwargs: Any) -> Any:
            self.started.append(time.monotonic())
            self.running += 1
            self.most = max(self.most, self.running)
            try:
                if self.delay:
                    await asyncio.sleep(self.delay)
                return await original(*args, **kwargs)
            finally:
                self.running -= 1

        setattr(target, name, counting)


STORES = pytest.mark.parametrize("kind", ["memory", "redis"])


@STORES
async def test_a_right_room_code_from_a_spent_address_joins_within_seconds(
    kind: str, redis_url: str, redis_prefix: str
) -> None:
    settings = fast_settings(
        join_address_burst=5,
        join_address_rate=1.0,
        **PROXIED,
        **stores(kind, redis_url, redis_prefix),
    )
    async with serving(settings) as game, clients_of(game) as pool:
        code = await (await pool.new("Host")).create(seats=4)
        async with peers(game) as new:
            # Three people at one address (one home, one school) spend its budget.
            guessers = [await new() for _ in range(3)]
            for i, miss in enumerate(MISSES[:5]):
                await guessers[i % 3].miss(miss)
            started = time.monotonic()
            waiting = asyncio.ensure_future((await new()).join(code))
            # Meanwhile the server serves everyone else at once.
            elsewhere = await new("203.0.113.5")
            assert (await elsewhere.join(code, spectate=True))["type"] == "joined"
            assert not waiting.done(), "the spent address was not slowed down"
            reply = await waiting
            assert reply["type"] == "joined" and reply["role"] == "player", reply
            assert time.monotonic() - started < 3.0
            # The guessers are not closed: they, too, may still join with the right code,
            # and at once (a right code gives back the token it took).
            assert (await guessers[0].join(code))["type"] == "joined"
        assert counted(game, "kc_join_limited_total", limit="queued") == 1
        assert counted(game, "kc_join_limited_total", limit="address") == 0
        assert counted(game, "kc_join_limited_total", limit="connection") == 0


@STORES
async def test_a_right_recovery_code_from_a_spent_address_recovers_within_seconds(
    kind: str, redis_url: str, redis_prefix: str
) -> None:
    settings = fast_settings(
        join_address_burst=5,
        join_address_rate=1.0,
        **PROXIED,
        **stores(kind, redis_url, redis_prefix),
    )
    async with serving(settings) as game, peers(game) as new:
        owner = await new()
        code = await owner.recovery_code()
        guessers = [await new() for _ in range(3)]
        for i, wrong in enumerate(WRONG_CODES[:5]):
            answer = await guessers[i % 3].recover(wrong)
            assert answer["code"] == "bad_recovery_code", answer
        started = time.monotonic()
        device = await new()
        welcome = await device.recover(code)
        assert welcome["type"] == "welcome", welcome
        assert welcome["player_id"] == owner.welcome["player_id"]
        assert time.monotonic() - started < 3.0
        assert counted(game, "kc_failed_joins_total", code="bad_recovery_code") == 5
        assert counted(game, "kc_join_limited_total", limit="queued") == 1


@STORES
async def test_joins_arriving_at_once_cannot_overshoot_the_budget(
    kind: str, redis_url: str, redis_prefix: str
) -> None:
    burst, queue, many = 5, 3, 20
    settings = fast_settings(
        join_address_burst=burst,
        join_address_rate=2.0,
        join_address_queue=queue,
        **PROXIED,
        **stores(kind, redis_url, redis_prefix),
    )
    async with serving(settings) as game, peers(game) as new:
        lookups = Lookups(delay=0.05)  # every lookup is still running when the next arrives
        lookups.wrap(game.lobby, "get")
        guessers = [await new() for _ in range(many)]
        replies = await asyncio.gather(*(g.join(MISSES[i % 8]) for i, g in enumerate(guessers)))
        codes = [r["code"] for r in replies]
        # The budget's lookups at once, the queue's one by one, the rest told to come back.
        assert len(lookups.started) == burst + queue, lookups.started
        assert lookups.most <= burst
        assert codes.count("room_not_found") == burst + queue
        refused = [r for r in replies if r["code"] == "rate_limited"]
        assert len(refused) == many - burst - queue
        assert all(r["params"]["retry_after"] >= 1 for r in refused), refused
        for guesser, reply in zip(guessers, replies, strict=True):
            if reply["code"] == "rate_limited":
                await guesser.still_open()
        assert counted(game, "kc_failed_joins_total", code="room_not_found") == burst + queue
        assert counted(game, "kc_join_limited_total", limit="address") == many - burst - queue
        # Those past the budget waited for the lookups under way (right codes give their
        # token back) and were judged once those failed.
        assert counted(game, "kc_join_limited_total", limit="queued") == many - burst


@STORES
async def test_many_right_codes_at_once_from_one_address_all_get_in(
    kind: str, redis_url: str, redis_prefix: str
) -> None:
    """A school behind one address reconnecting after a restart: four times the budget of
    right codes at once, each lookup slow; every one gets in, none is told to wait."""
    burst, queue, many = 5, 1, 20
    settings = fast_settings(
        join_address_burst=burst,
        join_address_rate=0.001,  # no refill to speak of: only given-back tokens serve
        join_address_queue=queue,
        **PROXIED,
        **stores(kind, redis_url, redis_prefix),
    )
    async with serving(settings) as game, peers(game) as new:
        host = await new()
        created = await host.request({"type": "create", "options": {"seats": 2}})
        assert created["type"] == "joined", created
        lookups = Lookups(delay=0.05)
        lookups.wrap(game.lobby, "get")
        pupils = [await new() for _ in range(many)]
        replies = await asyncio.gather(*(p.join(created["room"], spectate=True) for p in pupils))
        assert [r["type"] for r in replies] == ["joined"] * many, replies
        assert lookups.most <= burst
        assert counted(game, "kc_join_limited_total", limit="address") == 0


@STORES
async def test_guessing_from_one_address_goes_no_faster_than_the_refill(
    kind: str, redis_url: str, redis_prefix: str
) -> None:
    burst, rate = 3, 4.0
    settings = fast_settings(
        join_address_burst=burst,
        join_address_rate=rate,
        join_address_queue=2,
        **PROXIED,
        **stores(kind, redis_url, redis_prefix),
    )
    async with serving(settings) as game, peers(game) as new:
        lookups = Lookups()
        lookups.wrap(game.lobby, "get")
        guessers = [await new() for _ in range(5)]

        async def guess(peer: Peer, offset: int) -> None:
            for n in range(1000):
                reply = await peer.join(MISSES[(offset + n) % 8])
                if reply["code"] == "rate_limited":
                    await asyncio.sleep(0.05)  # told to come back: at once, near enough

        tasks = [asyncio.ensure_future(guess(g, i)) for i, g in enumerate(guessers)]
        await asyncio.sleep(1.5)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        started = lookups.started
        first = started[0]
        # Lookup number k needed k + 1 tokens: the burst, plus what refilled since the first.
        for k, at in enumerate(started):
            assert k + 1 <= burst + rate * (at - first) + 0.1, (k, at - first)
        # ... and it is a pace, not a wall: the guesses went on past the burst.
        assert len(started) >= burst + 3, started


@STORES
async def test_recover_past_the_connection_limit_is_refused_and_closed(
    kind: str, redis_url: str, redis_prefix: str
) -> None:
    settings = fast_settings(
        join_failures=3, join_address_burst=1000, **stores(kind, redis_url, redis_prefix)
    )
    async with serving(settings) as game, peers(game) as new:
        owner = await new()
        code = await owner.recovery_code()
        lookups = Lookups()
        lookups.wrap(game.identities, "redeem")
        guesser = await new()
        for wrong in WRONG_CODES[:3]:
            assert (await guesser.recover(wrong))["code"] == "bad_recovery_code"
        # Past the limit even the right code is refused, nothing is looked up, and it hangs up.
        reply = await guesser.recover(code)
        assert reply["type"] == "error" and reply["code"] == "rate_limited", reply
        assert reply["params"]["reason"] == "failed_joins"
        with pytest.raises(ConnectionClosed) as closed:
            await guesser.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        assert len(lookups.started) == 3
        # Another connection at the same address is not that guesser.
        assert (await (await new()).recover(code))["type"] == "welcome"
        assert counted(game, "kc_join_limited_total", limit="connection") == 1


@STORES
async def test_a_waiting_request_whose_connection_goes_frees_its_place(
    kind: str, redis_url: str, redis_prefix: str
) -> None:
    settings = fast_settings(
        join_address_burst=1,
        join_address_rate=0.5,
        join_address_queue=1,
        **PROXIED,
        **stores(kind, redis_url, redis_prefix),
    )
    async with serving(settings) as game, clients_of(game) as pool:
        code = await (await pool.new("Host")).create(seats=4)
        lookups = Lookups()
        lookups.wrap(game.lobby, "get")
        async with peers(game) as new:
            await (await new()).miss(MISSES[0])  # the budget is spent
            quitter = await new()
            await quitter.ws.send(orjson.dumps({"type": "join", "room": MISSES[1]}).decode())
            await asyncio.sleep(0.2)  # it waits its turn (two seconds)
            # The line of one is full: the next one is told when to come back.
            late = await new()
            reply = await late.join(code)
            assert reply["code"] == "rate_limited" and reply["params"]["retry_after"] >= 1
            await late.still_open()
            await quitter.ws.close()
            await asyncio.sleep(0.1)
            # The one who left holds no place: a right code waits in it, and joins.
            started = time.monotonic()
            reply = await (await new()).join(code)
            assert reply["type"] == "joined", reply
            assert time.monotonic() - started < 3.0
        # The miss and the right code were looked up; the one who left never was.
        assert len(lookups.started) == 2


@STORES
async def test_a_long_wait_holds_up_neither_other_addresses_nor_a_shutdown(
    kind: str, redis_url: str, redis_prefix: str
) -> None:
    settings = fast_settings(
        join_address_burst=1,
        join_address_rate=0.001,  # the next token in a quarter of an hour
        join_address_queue=1,
        **PROXIED,
        **stores(kind, redis_url, redis_prefix),
    )
    async with serving(settings) as game, peers(game) as new:
        await (await new()).miss(MISSES[0])
        waiter = await new()
        await waiter.ws.send(orjson.dumps({"type": "join", "room": MISSES[1]}).decode())
        await asyncio.sleep(0.1)
        started = time.monotonic()
        await (await new("203.0.113.5")).miss(MISSES[1])
        assert time.monotonic() - started < 0.5
        started = time.monotonic()
        await game.shutdown()
        assert time.monotonic() - started < 2.0
        # The waiter is told the server is going and closed; it was never looked up.
        assert (await waiter.recv())["type"] == "closing"
        with pytest.raises(ConnectionClosed) as closed:
            await waiter.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1001
        assert counted(game, "kc_failed_joins_total", code="room_not_found") == 2


@STORES
async def test_right_codes_arriving_at_once_pass_each_other_on_at_once(
    kind: str, redis_url: str, redis_prefix: str
) -> None:
    settings = fast_settings(
        join_address_burst=2,
        join_address_rate=0.001,  # nothing refills: only given-back tokens serve the line
        join_address_queue=10,
        **PROXIED,
        **stores(kind, redis_url, redis_prefix),
    )
    async with serving(settings) as game, clients_of(game) as pool:
        code = await (await pool.new("Host")).create(seats=4)
        lookups = Lookups(delay=0.05)
        lookups.wrap(game.lobby, "get")
        async with peers(game) as new:
            class_of = [await new() for _ in range(6)]
            started = time.monotonic()
            replies = await asyncio.gather(*(p.join(code, spectate=True) for p in class_of))
            assert [r["type"] for r in replies] == ["joined"] * 6, replies
            assert time.monotonic() - started < 2.0
        # Two at a time (the bucket), each handing its token on to the next in line.
        assert lookups.most <= 2 and len(lookups.started) == 6
        assert counted(game, "kc_join_limited_total", limit="queued") == 4
