"""One client connection: who it is, where it sits, and its bounded outgoing queue.

A connection knows nothing of rooms: it holds whichever room object the service that seats
it binds it to (``Connection[LiveRoom]`` in the server).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections import deque
from typing import TYPE_CHECKING, Generic, NamedTuple, TypeVar

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.protocol import OPEN

from .compression import IdleFreeDeflate, frame_header

if TYPE_CHECKING:
    from .metrics import Metrics

log = logging.getLogger(__name__)
_ids = itertools.count(1)
#: The room object a connection is bound to.
R = TypeVar("R")


def text_frame(payload: bytes) -> bytes:
    """A server's unmasked, final WebSocket text frame carrying ``payload`` (RFC 6455 5.2).

    A change's frame goes to many connections in a row: the last payload's frame is kept
    and given again for the same payload object, so it is framed once.
    """
    last = _last_frame
    if last[0] is payload:
        return last[1]
    frame = _frame(payload)
    last[0], last[1] = payload, frame
    return frame


#: The last payload framed and its frame (held, so its identity cannot be reused meanwhile).
_last_frame: list[bytes] = [b"", b"\x81\x00"]


def _frame(payload: bytes) -> bytes:
    return frame_header(0x81, len(payload)) + payload


class _Close(NamedTuple):
    """Queued after the last frame: close the connection once everything before is sent."""

    code: int
    reason: str


#: Close code for a client that fell too far behind (RFC 6455 "try again later").
SLOW_CLIENT = 1013


class Connection(Generic[R]):
    """The server's side of one WebSocket: never waits on the client to send.

    A frame goes straight to the socket when nothing is waiting and the socket takes
    more; otherwise it waits in a bounded queue, drained by a writer task that exists only
    while frames wait, so an idle connection costs no task. When the queue is full the
    client is too slow and is dropped (it can reconnect with its token).
    """

    __slots__ = (
        "_burst",
        "_closer",
        "_finished",
        "_limit",
        "_metrics",
        "_queue",
        "_rate",
        "_stamp",
        "_tokens",
        "_writer",
        "address",
        "closing",
        "dropped",
        "greeted",
        "id",
        "join_failures",
        "name",
        "player_id",
        "player_token",
        "protocol",
        "queued_at",
        "room",
        "rooms_created",
        "seat",
        "seat_hash",
        "tag",
        "ticket",
        "version",
        "ws",
    )

    def __init__(
        self,
        ws: ServerConnection,
        queue_size: int,
        rate: float,
        burst: int,
        *,
        prefix: str = "c",
        metrics: Metrics | None = None,
    ) -> None:
        #: Unique across processes: the process id, then a counter.
        self.id = f"{prefix}-{next(_ids)}"
        self._metrics = metrics
        self.ws = ws
        self.name = "Player"
        #: The person's secret identity token and its public id (set by ``hello``).
        self.player_token = ""
        self.player_id = ""
        #: The identity's tag, once the server keeps the identity (None before).
        self.tag: str | None = None
        self.greeted = False
        #: The protocol version this connection is served in (its hello's; 0 before).
        self.protocol = 0
        self.room: R | None = None
        self.seat: int | None = None
        #: The token hash of the seat this connection is bound to: a seat number alone goes
        #: stale when the seat changes hands.
        self.seat_hash: str | None = None
        self.version = 0
        self.ticket: tuple[int, str] | None = None
        self.queued_at: float | None = None
        self._queue: deque[bytes | _Close] = deque()
        self._limit = queue_size
        self._writer: asyncio.Task[None] | None = None
        #: Set once the writer met a closed connection or sent the closing frame.
        self._finished = False
        self.closing = False
        self.rooms_created = 0
        #: The client's address key (see server.guard) and its recent failed joins' times.
        self.address = ""
        self.join_failures: deque[float] | None = None
        self._rate = rate
        self._burst = float(burst)
        self._tokens = float(burst)
        self._stamp = time.monotonic()
        self.dropped = False
        self._closer: asyncio.Future[None] | None = None

    @property
    def role(self) -> str:
        if self.room is None:
            return "none"
        return "spectator" if self.seat is None else "player"

    def send(self, frame: bytes) -> None:
        """Send a UTF-8 JSON text frame, at once or queued; drop the connection if its queue
        is full."""
        if self.dropped or self._finished:
            return
        if len(self._queue) >= self._limit:
            if self._metrics is not None:
                self._metrics.dropped.inc()
            self.dropped = True
            log.info("dropping slow client %s", self.id)
            self._closer = asyncio.ensure_future(self.ws.close(SLOW_CLIENT, "too slow"))
            return
        if self._writer is None and self._write_now(frame):
            return
        self._enqueue(frame)

    def _write_now(self, frame: bytes) -> bool:
        """Hand ``frame`` to the socket at once when nothing waits and it can take more.

        This is what ``websockets``' own ``send`` does when it need not wait (frame the
        message, write it out), without a task per frame; when the transport pushes back,
        frames queue for the writer task instead, which waits for it to drain. With no
        extension (compression) to encode it and nothing else waiting to go out, the
        frame is written as ``websockets`` would frame it (:func:`text_frame`), without
        building its frame objects: this runs once per connection for every change. The
        same for a connection with compression (:meth:`IdleFreeDeflate.text_frame`).
        """
        ws = self.ws
        protocol = ws.protocol
        if ws.paused or protocol.state is not OPEN or ws.transport.is_closing():
            return False
        extensions = protocol.extensions
        if protocol.writes or protocol.expect_continuation_frame:
            protocol.send_text(frame)
            ws.send_data()
        elif not extensions:
            ws.transport.write(text_frame(frame))
        elif len(extensions) == 1 and type(extensions[0]) is IdleFreeDeflate:
            ws.transport.write(extensions[0].text_frame(frame))
        else:
            protocol.send_text(frame)
            ws.send_data()
        if self._metrics is not None:
            self._metrics.sent(frame)
        return True

    def _enqueue(self, item: bytes | _Close) -> None:
        self._queue.append(item)
        if self._writer is None:
            self._writer = asyncio.create_task(self._write())

    def allow(self) -> bool:
        """Take one token from the rate-limit bucket; False when it is empty."""
        now = time.monotonic()
        self._tokens = min(self._burst, self._tokens + (now - self._stamp) * self._rate)
        self._stamp = now
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        return False

    async def _write(self) -> None:
        queue = self._queue
        try:
            while queue:
                frame = queue.popleft()
                if isinstance(frame, _Close):
                    self._finished = True
                    await self.ws.close(frame.code, frame.reason)
                    return
                await self.ws.send(frame, text=True)
                if self._metrics is not None:
                    self._metrics.sent(frame)
        except ConnectionClosed:
            self._finished = True
        finally:
            self._writer = None
            if self._finished:
                queue.clear()

    @property
    def open(self) -> bool:
        """True while frames can still go out."""
        return not self._finished and self.ws.state.name == "OPEN"

    def close_after_queue(self, code: int, reason: str) -> None:
        """Close once the frames already queued are sent; ignore what the client sends."""
        if self.closing:
            return
        self.closing = True
        if len(self._queue) >= self._limit:
            self._closer = asyncio.ensure_future(self.ws.close(code, reason))
        else:
            self._enqueue(_Close(code, reason))

    def close_now(self, code: int, reason: str) -> None:
        """Close without sending what is queued; ignore what the client sends."""
        self.closing = True
        if self._closer is None:
            self._closer = asyncio.ensure_future(self.ws.close(code, reason))

    async def flush(self, timeout: float = 2.0) -> None:
        """Wait (a little) for queued frames to go out."""
        writer = self._writer
        if writer is not None:
            await asyncio.wait([writer], timeout=timeout)

    def stop(self) -> None:
        """Stop writing (the socket is gone); frames still queued are dropped."""
        self._finished = True
        self._queue.clear()
        if self._writer is not None:
            self._writer.cancel()
