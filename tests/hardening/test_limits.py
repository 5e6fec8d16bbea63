"""Limits that are on by default: frame size, rate, names and chat, spectators,
compression and keepalive. Each runs against a server with the shipped defaults unless
the test is about the shape of a policy rather than its default value."""

from __future__ import annotations

import asyncio
import contextlib
import random
import struct
import time

import orjson
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from clients.net import GameClient, ServerError
from server.app import GameServer, port_of
from server.compression import IdleFreeDeflate
from server.config import Settings

from .helpers import (
    UNIT,
    Clients,
    clients_of,
    default_settings,
    eventually,
    fast_settings,
    play_moves,
    serving,
    settle,
    table,
    ws_url,
)
from .rawws import CLOSE, PING, TEXT, RawClient

HELLO = orjson.dumps({"type": "hello", "version": 1, "name": "Ana"}).decode()


async def hello(ws: ClientConnection) -> None:
    await ws.send(HELLO)
    reply = orjson.loads(await asyncio.wait_for(ws.recv(), 50 * UNIT))
    assert reply["type"] == "welcome", reply


async def replies_until_close(ws: ClientConnection) -> tuple[list[dict[str, object]], int | None]:
    """Every frame the server sends until it closes, and its close code."""
    frames: list[dict[str, object]] = []
    try:
        while True:
            frames.append(orjson.loads(await asyncio.wait_for(ws.recv(), 50 * UNIT)))
    except ConnectionClosed as exc:
        return frames, exc.rcvd.code if exc.rcvd else None


def test_the_shipped_defaults_are_limits() -> None:
    s = Settings()
    assert s.max_message == 16384
    assert s.send_queue == 512
    assert (s.rate, s.burst) == (20.0, 40)
    assert s.max_spectators == 100
    assert s.ping_interval and s.ping_timeout
    assert s.compression is False


# --- frame size ---------------------------------------------------------------------------


async def test_a_frame_over_the_size_limit_is_answered_and_four_times_it_closes() -> None:
    async with serving(default_settings()) as game:
        limit = game.settings.max_message
        async with connect(ws_url(game), max_size=None) as ws:
            await hello(ws)
            # Exactly the limit is fine (JSON allows the padding).
            at_limit = '{"type": "list_rooms"}'.ljust(limit)
            await ws.send(at_limit)
            reply = orjson.loads(await asyncio.wait_for(ws.recv(), 50 * UNIT))
            assert reply["type"] == "rooms"
            # One byte more: refused, with the limit, and the connection stays open.
            await ws.send(at_limit + " ")
            reply = orjson.loads(await asyncio.wait_for(ws.recv(), 50 * UNIT))
            assert reply["code"] == "bad_message"
            assert reply["params"] == {"reason": "too_large", "limit": limit}
            await ws.send(at_limit)
            reply = orjson.loads(await asyncio.wait_for(ws.recv(), 50 * UNIT))
            assert reply["type"] == "rooms"
            # Past four times the limit the server stops reading and closes.
            await ws.send(at_limit * 4 + " ")
            frames, code = await replies_until_close(ws)
        assert frames == [] and code == 1009


async def test_a_fragmented_message_over_four_times_the_limit_closes_with_1009() -> None:
    async with serving(default_settings()) as game:
        async with connect(ws_url(game)) as ws:
            await hello(ws)
            # The limit is on the message, not on each fragment.
            await ws.send(iter(["x" * 40_000, "y" * 40_000]))
            frames, code = await replies_until_close(ws)
        assert frames == [] and code == 1009


# --- rate -----------------------------------------------------------------------------------


async def flood(game: GameServer, count: int) -> tuple[list[dict[str, object]], int | None]:
    """Say hello, send ``count`` list_rooms at once, and read until the server's close frame.

    A raw client sees the close frame as soon as it arrives (a library client would wait
    for the closing handshake). Returns the data frames read and the close code.
    """
    raw = await RawClient.open(port_of(game))
    try:
        raw.send_json({"type": "hello", "version": 1, "name": "Ana"})
        assert (await raw.recv_json())["type"] == "welcome"
        for _ in range(count):
            raw.send_text('{"type": "list_rooms"}')
        await raw.drain()
        frames: list[dict[str, object]] = []
        while True:
            frame = await raw.recv(timeout=50 * UNIT)
            if frame.opcode == CLOSE:
                return frames, frame.close_code
            if frame.opcode == TEXT:
                frames.append(frame.json())
    finally:
        raw.abort()


def release(game: GameServer) -> None:
    """Drop the server's side of every connection, so a teardown does not wait for the
    closing handshake of a connection the server has already given up on."""
    for conn in list(game.connections):
        conn.ws.transport.abort()


def kinds_of(frames: list[dict[str, object]]) -> list[object]:
    return [f["code"] if f["type"] == "error" else f["type"] for f in frames]


async def test_over_the_rate_a_client_gets_clear_rate_limited_errors() -> None:
    async with serving(default_settings()) as game, connect(ws_url(game)) as ws:
        await hello(ws)
        # 60 at once: the burst (40, one spent on hello) is served, the rest refused.
        for _ in range(60):
            await ws.send('{"type": "list_rooms"}')
        frames = [orjson.loads(await asyncio.wait_for(ws.recv(), 50 * UNIT)) for _ in range(60)]
        kinds = kinds_of(frames)
        first = kinds.index("rate_limited")
        assert first >= 35 and set(kinds[:first]) == {"rooms"}
        limited = [f for f in frames if f.get("code") == "rate_limited"]
        assert len(limited) >= 10
        assert all(f["message"] and f["seq"] is None for f in limited)
        # Refused frames are only refused: the connection stays open.
        await asyncio.sleep(0.2)
        await ws.send('{"type": "list_rooms"}')
        reply = orjson.loads(await asyncio.wait_for(ws.recv(), 50 * UNIT))
        assert reply["type"] == "rooms"


async def test_a_client_that_keeps_flooding_is_closed_with_1008() -> None:
    async with serving(default_settings()) as game:
        try:
            _frames, code = await flood(game, 200)
            assert code == 1008
        finally:
            release(game)


async def test_a_flooding_client_is_told_rate_limited_before_the_1008_close() -> None:
    async with serving(default_settings()) as game:
        try:
            frames, code = await flood(game, 200)
            assert code == 1008
            assert "rate_limited" in kinds_of(frames), kinds_of(frames)
        finally:
            release(game)


async def test_a_connection_closed_for_flooding_is_released_promptly() -> None:
    async with serving(default_settings()) as game:
        try:
            raw = await RawClient.open(port_of(game))
            raw.send_json({"type": "hello", "version": 1, "name": "Ana"})
            for _ in range(400):
                raw.send_text('{"type": "list_rooms"}')
            assert await raw.close_code(timeout=50 * UNIT) == 1008
            # A polite client answers the close frame and waits for the server to hang up.
            raw.send_frame(CLOSE, struct.pack("!H", 1008))
            await eventually(lambda: not game.connections, within=30 * UNIT)
        finally:
            release(game)


async def test_a_client_within_the_rate_is_never_limited() -> None:
    async with serving(default_settings()) as game, clients_of(game) as pool:
        c = await pool.new("Ana")
        # Use most of the burst at once, let the bucket refill a little, use it again.
        for _ in range(35):
            await c.send({"type": "list_rooms"})
        await c.until(lambda cl: len([f for f in cl.frames if f["type"] == "rooms"]) == 35)
        await asyncio.sleep(0.5)
        for _ in range(9):
            await c.send({"type": "list_rooms"})
        await c.until(lambda cl: len([f for f in cl.frames if f["type"] == "rooms"]) == 44)
        assert c.errors == [] and c.close_code is None


async def test_short_bursts_far_apart_do_not_add_up_to_a_close() -> None:
    # rate 100/s, burst 10: each round overshoots by 6 and then behaves for 0.2 s,
    # enough to refill the bucket completely.
    async with serving(default_settings(rate=100.0, burst=10)) as game:
        raw = await RawClient.open(port_of(game))
        try:
            raw.send_json({"type": "hello", "version": 1, "name": "Ana"})
            assert (await raw.recv_json())["type"] == "welcome"
            kinds: list[object] = []
            for _ in range(3):
                for _ in range(16):
                    raw.send_text('{"type": "list_rooms"}')
                await asyncio.sleep(0.2)
            raw.send_text('{"type": "list_rooms"}')
            with contextlib.suppress(TimeoutError):
                while True:
                    frame = await raw.recv(timeout=5 * UNIT)
                    assert frame.opcode != CLOSE, f"closed with {frame.close_code}"
                    kinds.extend(kinds_of([frame.json()]))
            assert kinds.count("rate_limited") >= 12 and kinds[-1] == "rooms"
        finally:
            raw.abort()
            release(game)


# --- names and chat -------------------------------------------------------------------------


async def greet(pool: Clients, name: str) -> GameClient:
    c = GameClient(pool.url, name)
    pool.made.append(c)
    await c.connect()
    return c


async def test_names_are_bounded() -> None:
    async with serving(default_settings()) as game, clients_of(game) as pool:
        with pytest.raises(ServerError) as info:
            await greet(pool, "N" * 25)
        assert info.value.code == "bad_message"
        c = await greet(pool, "Ñ" * 24)
        await c.create(seats=2)
        assert c.doc is not None and c.doc["room"]["seats"][0]["name"] == "Ñ" * 24


async def test_chat_is_bounded() -> None:
    async with serving(default_settings()) as game, clients_of(game) as pool:
        a = await pool.new("Ana")
        await a.create(seats=2)
        await a.send({"type": "chat", "text": "x" * 501})
        error = await a.wait_for(lambda f: f["type"] == "error")
        assert error["code"] == "bad_message"
        await a.send({"type": "chat", "text": "x" * 500})
        line = await a.wait_for(lambda f: f["type"] == "chat")
        assert line["text"] == "x" * 500
        # Text that is nothing but control characters is empty once cleaned: refused.
        await a.send({"type": "chat", "text": "\x07\u200b\n"})
        error = await a.wait_for(lambda f: f["type"] == "error")
        assert error["code"] == "bad_message"


async def test_control_characters_are_refused_in_names_and_stripped_from_chat() -> None:
    async with serving(default_settings()) as game, clients_of(game) as pool:
        refused = GameClient(pool.url, "\x1bA\x00n\u200ba\u202e\n")
        pool.made.append(refused)
        with pytest.raises(ServerError) as exc:
            await refused.connect()
        assert exc.value.code == "bad_name" and exc.value.params["reason"] == "control"
        a = await greet(pool, "Ana")
        code = await a.create(seats=2)
        b = await pool.new("Ben")
        await b.join(code)
        assert b.doc is not None and b.doc["room"]["seats"][0]["name"] == "Ana"
        await a.send({"type": "chat", "text": "hi\x08\r\nthere\u2028\x7f!"})
        line = await b.wait_for(lambda f: f["type"] == "chat")
        assert line["name"] == "Ana" and line["text"] == "hithere!"


async def test_a_name_that_is_empty_once_cleaned_is_not_used() -> None:
    async with serving(default_settings()) as game, clients_of(game) as pool:
        c = GameClient(pool.url, "\u200b\x07 ")
        pool.made.append(c)
        try:
            await c.connect()
        except ServerError as exc:  # refusing the name is a fine answer too
            assert exc.code == "bad_name" and exc.params["reason"] in ("invisible", "control")
            return
        await c.create(seats=2)
        assert c.doc is not None
        name = c.doc["room"]["seats"][0]["name"]
        assert name.strip() and name.isprintable(), repr(name)


# --- spectators -----------------------------------------------------------------------------


async def test_spectators_per_room_are_bounded() -> None:
    settings = default_settings()
    async with serving(settings) as game, clients_of(game) as pool:
        host = await pool.new("Ana")
        code = await host.create(seats=2)
        watchers = await asyncio.gather(
            *(pool.new(f"W{i}") for i in range(settings.max_spectators))
        )
        await asyncio.gather(*(w.join(code, spectate=True) for w in watchers))
        assert game.lobby.rooms[code].spectators == settings.max_spectators
        late = await pool.new("Late")
        with pytest.raises(ServerError) as info:
            await late.join(code, spectate=True)
        assert info.value.code == "room_full"
        # A spectator leaving frees a place.
        await watchers[0].request({"type": "leave"}, "left")
        await late.join(code, spectate=True)
        assert late.role == "spectator"


# --- compression ----------------------------------------------------------------------------


async def test_compression_is_off_unless_enabled() -> None:
    # The client offers permessage-deflate (websockets does by default) ...
    async with (
        serving(default_settings()) as game,
        connect(ws_url(game), compression="deflate") as ws,
    ):
        assert ws.request is not None and ws.response is not None
        assert "permessage-deflate" in ws.request.headers["Sec-WebSocket-Extensions"]
        # ... and by default the server declines it.
        assert "Sec-WebSocket-Extensions" not in ws.response.headers
        assert ws.protocol.extensions == []
    async with (
        serving(default_settings(compression=True)) as game,
        connect(ws_url(game), compression="deflate") as ws,
    ):
        assert ws.response is not None
        answer = ws.response.headers["Sec-WebSocket-Extensions"]
        assert "permessage-deflate" in answer
        # The server's window is small, and clients compress each frame on its own.
        assert "server_max_window_bits=13" in answer
        assert "client_no_context_takeover" in answer
        assert [e.name for e in ws.protocol.extensions] == ["permessage-deflate"]
        await hello(ws)


def server_side_deflate(game: GameServer) -> IdleFreeDeflate:
    (conn,) = game.connections
    (extension,) = conn.ws.protocol.extensions
    assert isinstance(extension, IdleFreeDeflate)
    return extension


async def test_an_idle_connection_keeps_no_compressor_and_still_decodes_after() -> None:
    idle = 4 * UNIT
    settings = default_settings(compression=True, compression_idle=idle)
    async with serving(settings) as game, connect(ws_url(game), compression="deflate") as ws:
        await hello(ws)
        deflate = server_side_deflate(game)
        assert deflate.holding  # the welcome went out compressed
        await ws.send(orjson.dumps({"type": "list_rooms"}).decode())
        assert orjson.loads(await asyncio.wait_for(ws.recv(), 50 * UNIT))["type"] == "rooms"
        await eventually(lambda: not deflate.holding)
        # A new compressor starts with the next frame; the client's decompressor, which
        # kept its context, reads it all the same.
        for _ in range(3):
            await ws.send(orjson.dumps({"type": "list_rooms"}).decode())
            assert orjson.loads(await asyncio.wait_for(ws.recv(), 50 * UNIT))["type"] == "rooms"
        assert deflate.holding
        assert ws.protocol.extensions[0].name == "permessage-deflate"


# --- keepalive ------------------------------------------------------------------------------


async def test_a_client_that_stops_answering_pings_is_closed() -> None:
    interval, timeout = 3 * UNIT, 3 * UNIT
    settings = default_settings(ping_interval=interval, ping_timeout=timeout)
    async with serving(settings) as game, clients_of(game) as pool:
        good = await pool.new("Ana")  # websockets answers pings by itself
        mute = await RawClient.open(port_of(game))  # this one never will
        try:
            mute.send_json({"type": "hello", "version": 1, "name": "Mute"})
            assert (await mute.recv_json())["type"] == "welcome"
            started = time.monotonic()
            kinds, code = [], None
            while code is None:
                frame = await mute.recv(timeout=interval + timeout + 2.0)
                kinds.append(frame.opcode)
                code = frame.close_code
            elapsed = time.monotonic() - started
            # Pings it ignored, then 1011 once the timeout ran out, then the server hangs up.
            assert PING in kinds and kinds[-1] == CLOSE and code == 1011
            assert interval <= elapsed <= interval + timeout + 2.0
            assert await mute.eof(timeout=1.0)
        finally:
            mute.abort()
        # The client that answers pings is still served after all those intervals.
        reply = await good.request({"type": "list_rooms"}, "rooms")
        assert reply["rooms"] == [] and good.close_code is None


async def test_compressed_patches_build_every_clients_document_exactly() -> None:
    # Every viewer's frames go through its own compressor (written by the server itself,
    # see test_text_frame.py); a copy built from them equals a fresh snapshot.
    async with serving(fast_settings(compression=True)) as game, clients_of(game) as pool:
        players = await table(pool, 4, seats=4)
        watcher = await pool.new("W")
        await watcher.join(players[0].room, spectate=True)  # type: ignore[arg-type]
        played = await play_moves(players, random.Random(5), 60)
        assert played > 20
        viewers = [*players, watcher]
        await settle(viewers, max(c.version for c in viewers))
        assert all(c.ws is not None and c.ws.protocol.extensions for c in viewers)
        for c in viewers:
            built = orjson.loads(orjson.dumps(c.doc))
            snapshot = await c.request({"type": "resync"}, "snapshot")
            assert snapshot["doc"] == built
