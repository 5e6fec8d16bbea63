"""A bare WebSocket client over a plain asyncio stream, for misbehaving on purpose.

Unlike a real client it never answers pings by itself, reads only when asked, can shrink
its receive buffer so that a stalled reader fills up quickly, and can send frames that a
well-behaved library refuses to produce (bad UTF-8, reserved bits, unmasked frames).
"""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import struct
from dataclasses import dataclass

import orjson

CONTINUATION, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA


class HandshakeRefused(Exception):
    """The server answered the opening handshake with something other than 101."""

    def __init__(self, status: int, head: str) -> None:
        self.status = status
        self.head = head
        super().__init__(f"HTTP {status}")


@dataclass(frozen=True)
class Frame:
    opcode: int
    payload: bytes

    @property
    def close_code(self) -> int | None:
        if self.opcode != CLOSE or len(self.payload) < 2:
            return None
        code: int = struct.unpack("!H", self.payload[:2])[0]
        return code

    def json(self) -> dict[str, object]:
        value: dict[str, object] = orjson.loads(self.payload)
        return value


class RawClient:
    """One TCP connection that speaks just enough WebSocket to be dangerous."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.headers: dict[str, str] = {}

    @classmethod
    async def open(
        cls,
        port: int,
        *,
        origin: str | None = None,
        extensions: str | None = None,
        rcvbuf: int | None = None,
        timeout: float = 5.0,
    ) -> RawClient:
        """Connect to ``127.0.0.1:port`` and complete the opening handshake.

        ``rcvbuf`` sets SO_RCVBUF before connecting, so a client that stops reading
        stalls the server's writes after a few kilobytes instead of megabytes.
        """
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.setblocking(False)
        loop = asyncio.get_running_loop()
        try:
            await asyncio.wait_for(loop.sock_connect(sock, ("127.0.0.1", port)), timeout)
        except BaseException:
            sock.close()
            raise
        reader, writer = await asyncio.open_connection(sock=sock, limit=2**16)
        client = cls(reader, writer)
        try:
            await asyncio.wait_for(client._handshake(port, origin, extensions), timeout)
        except BaseException:
            client.abort()
            raise
        return client

    async def _handshake(self, port: int, origin: str | None, extensions: str | None) -> None:
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [
            "GET / HTTP/1.1",
            f"Host: 127.0.0.1:{port}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13",
        ]
        if origin is not None:
            lines.append(f"Origin: {origin}")
        if extensions is not None:
            lines.append(f"Sec-WebSocket-Extensions: {extensions}")
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1")
        status_line, *header_lines = head.strip().split("\r\n")
        status = int(status_line.split()[1])
        if status != 101:
            raise HandshakeRefused(status, head)
        for line in header_lines:
            name, _, value = line.partition(":")
            self.headers[name.strip().lower()] = value.strip()

    # --- sending ------------------------------------------------------------------------

    def send_frame(
        self, opcode: int, payload: bytes, *, fin: bool = True, rsv: int = 0, mask: bool = True
    ) -> None:
        """Write one frame exactly as asked (clients must mask; ``mask=False`` breaks that)."""
        first = (0x80 if fin else 0) | (rsv & 0x7) << 4 | (opcode & 0xF)
        length = len(payload)
        mask_bit = 0x80 if mask else 0
        if length < 126:
            header = struct.pack("!BB", first, mask_bit | length)
        elif length < 2**16:
            header = struct.pack("!BBH", first, mask_bit | 126, length)
        else:
            header = struct.pack("!BBQ", first, mask_bit | 127, length)
        if mask:
            key = os.urandom(4)
            body = bytes(b ^ key[i % 4] for i, b in enumerate(payload))
            self.writer.write(header + key + body)
        else:
            self.writer.write(header + payload)

    def send_text(self, text: str | bytes) -> None:
        self.send_frame(TEXT, text.encode() if isinstance(text, str) else text)

    def send_json(self, message: dict[str, object]) -> None:
        self.send_frame(TEXT, orjson.dumps(message))

    async def drain(self) -> None:
        await self.writer.drain()

    # --- receiving ----------------------------------------------------------------------

    async def recv(self, timeout: float = 5.0) -> Frame:
        """The next frame (server frames are never masked); EOF raises IncompleteReadError."""
        async with asyncio.timeout(timeout):
            first, second = await self.reader.readexactly(2)
            length = second & 0x7F
            if length == 126:
                (length,) = struct.unpack("!H", await self.reader.readexactly(2))
            elif length == 127:
                (length,) = struct.unpack("!Q", await self.reader.readexactly(8))
            payload = await self.reader.readexactly(length)
            return Frame(first & 0xF, payload)

    async def recv_json(self, timeout: float = 5.0) -> dict[str, object]:
        """The next data frame as JSON, skipping pings (which this client never answers)."""
        while True:
            frame = await self.recv(timeout)
            if frame.opcode in (TEXT, BINARY):
                return frame.json()
            if frame.opcode == CLOSE:
                raise ConnectionError(f"closed with {frame.close_code}")

    async def close_code(self, timeout: float = 5.0) -> int | None:
        """Read and discard frames until the server's close frame; return its code.

        None when the connection ended without a close frame.
        """
        try:
            while True:
                frame = await self.recv(timeout)
                if frame.opcode == CLOSE:
                    return frame.close_code
        except (asyncio.IncompleteReadError, ConnectionError):
            return None

    async def eof(self, timeout: float = 5.0) -> bool:
        """True once the server has closed the TCP connection (whatever is left unread)."""
        try:
            async with asyncio.timeout(timeout):
                while await self.reader.read(2**16):
                    pass
        except ConnectionError:
            pass
        return True

    def abort(self) -> None:
        """Drop the TCP connection without a closing handshake."""
        self.writer.transport.abort()
