"""Small holes, closed: a hint off your turn, HTTP requests that used to answer 500 with a
traceback, and binary frames."""

from __future__ import annotations

import asyncio
import logging

import orjson
import pytest
from websockets.asyncio.client import connect

from server.app import GameServer, port_of

from .helpers import UNIT, clients_of, fast_settings, next_mover, serving, ws_url
from .rawws import BINARY, RawClient


async def test_a_hint_off_your_turn_is_refused_not_a_crash() -> None:
    async with serving(fast_settings()) as game, clients_of(game) as pool:
        ana = await pool.new("Ana")
        code = await ana.create(seats=2)
        ben = await pool.new("Ben")
        await ben.join(code)
        await ben.ready()
        await ana.start()
        mover = await next_mover([ana, ben])
        assert mover is not None
        waiting = ben if mover is ana else ana
        await waiting.send({"type": "hint"})
        error = await waiting.wait_for(lambda f: f["type"] == "error")
        assert error["code"] == "not_your_turn"
        # The connection is fine, and the player whose turn it is gets a hint.
        assert (await waiting.request({"type": "resync"}, "snapshot"))["room"] == code
        hint = await mover.request({"type": "hint"}, "hint")
        assert hint["text"]


# --- HTTP ---------------------------------------------------------------------------------


async def http(game: GameServer, request: bytes) -> tuple[int, bytes]:
    """Send raw bytes as an HTTP request; the status and body of the answer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port_of(game))
    try:
        writer.write(request)
        answer = await asyncio.wait_for(reader.read(), 50 * UNIT)
    finally:
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


def get(path: bytes, *headers: bytes) -> bytes:
    lines = [b"GET " + path + b" HTTP/1.1", b"Host: 127.0.0.1", *headers]
    return b"\r\n".join(lines) + b"\r\n\r\n"


BAD_REQUESTS = [
    ("a 3,000-character path", get(b"/" + b"a" * 3000), 404),
    ("a file name longer than the file system allows", get(b"/" + b"a" * 300), 404),
    ("a NUL in the path", get(b"/index.html\x00.js"), 400),
    ("a NUL in an API path", get(b"/api/matches/ABC\x00"), 400),
    ("a tab in the path", get(b"/a\tb"), 400),
    (
        "two Authorization headers",
        get(b"/admin/rooms", b"Authorization: Bearer secret", b"Authorization: Bearer other"),
        400,
    ),
    ("two Upgrade headers", get(b"/", b"Upgrade: websocket", b"Upgrade: websocket"), 400),
]


@pytest.mark.parametrize(
    ("what", "request_", "status"), BAD_REQUESTS, ids=[b[0] for b in BAD_REQUESTS]
)
async def test_a_bad_http_request_gets_a_client_error_and_an_info_line(
    what: str, request_: bytes, status: int, caplog: pytest.LogCaptureFixture
) -> None:
    async with serving(fast_settings(admin_token="secret")) as game:
        with caplog.at_level(logging.INFO):
            caplog.clear()
            assert (await http(game, request_))[0] == status, what
            # Still serving, and the admin token still works with one header.
            ok, _ = await http(game, get(b"/admin/rooms", b"Authorization: Bearer secret"))
            assert ok == 200
        serious = [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert not serious, [r.getMessage() for r in serious]
        assert any(
            r.levelno == logging.INFO and r.name.startswith("server.") for r in caplog.records
        )


async def test_pipelined_requests_get_the_first_answered_then_the_close(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Two requests in one packet: the first is answered, the connection closes, nothing is
    logged as an error (websockets used to read the second as frames, answer nothing and,
    now and then, log an AssertionError)."""
    pair = get(b"/healthz") + get(b"/healthz")
    async with serving(fast_settings()) as game:
        with caplog.at_level(logging.INFO):
            for _ in range(10):
                reader, writer = await asyncio.open_connection("127.0.0.1", port_of(game))
                writer.write(pair)
                answer = await asyncio.wait_for(reader.read(), 50 * UNIT)  # read to EOF
                writer.close()
                assert answer.startswith(b"HTTP/1.1 200 "), answer[:80]
                assert answer.count(b"HTTP/1.1 ") == 1
            # A head split over two packets, with a request behind it, too.
            reader, writer = await asyncio.open_connection("127.0.0.1", port_of(game))
            writer.write(pair[:30])
            await asyncio.sleep(5 * UNIT)
            writer.write(pair[30:])
            answer = await asyncio.wait_for(reader.read(), 50 * UNIT)
            writer.close()
            assert answer.startswith(b"HTTP/1.1 200 ") and answer.count(b"HTTP/1.1 ") == 1
        serious = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert not serious, [r.getMessage() for r in serious]


async def test_a_first_frame_sent_with_the_upgrade_request_is_served() -> None:
    """A client that sends its hello without waiting for the 101 is still greeted."""
    async with serving(fast_settings()) as game:
        hello = orjson.dumps({"type": "hello", "version": 1, "name": "Ana"})
        key = b"\x01\x02\x03\x04"
        frame = bytes([0x81, 0x80 | len(hello)]) + key
        frame += bytes(b ^ key[i % 4] for i, b in enumerate(hello))
        upgrade = get(
            b"/",
            b"Upgrade: websocket",
            b"Connection: Upgrade",
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
            b"Sec-WebSocket-Version: 13",
        )
        reader, writer = await asyncio.open_connection("127.0.0.1", port_of(game))
        try:
            writer.write(upgrade + frame)
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 50 * UNIT)
            assert head.startswith(b"HTTP/1.1 101 ")
            first, second = await asyncio.wait_for(reader.readexactly(2), 50 * UNIT)
            length = second & 0x7F
            if length == 126:
                length = int.from_bytes(await reader.readexactly(2), "big")
            payload = await asyncio.wait_for(reader.readexactly(length), 50 * UNIT)
            assert first & 0x0F == 0x1 and orjson.loads(payload)["type"] == "welcome"
        finally:
            writer.close()


# --- binary frames ------------------------------------------------------------------------


async def test_binary_frames_are_refused() -> None:
    async with serving(fast_settings()) as game:
        async with connect(ws_url(game)) as ws:
            hello = orjson.dumps({"type": "hello", "version": 1, "name": "Ana"})
            await ws.send(hello)  # bytes: a binary frame
            reply = orjson.loads(await asyncio.wait_for(ws.recv(), 50 * UNIT))
            assert reply["type"] == "error" and reply["code"] == "bad_message"
            assert "text frames only" in reply["message"]
            # It was not processed: no hello happened.
            await ws.send('{"type": "list_rooms"}')
            reply = orjson.loads(await asyncio.wait_for(ws.recv(), 50 * UNIT))
            assert reply["code"] == "hello_first"
            await ws.send(hello.decode())
            assert orjson.loads(await ws.recv())["type"] == "welcome"
        # The same with a frame built by hand.
        raw = await RawClient.open(port_of(game))
        try:
            raw.send_frame(BINARY, b'{"type": "list_rooms"}')
            reply = await raw.recv_json()
            assert reply["code"] == "bad_message"
        finally:
            raw.abort()
