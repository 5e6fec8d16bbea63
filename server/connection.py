"""One client connection: who it is, where it sits, and its bounded outgoing queue."""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from typing import TYPE_CHECKING, NamedTuple

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

if TYPE_CHECKING:
    from .live_room import LiveRoom
    from .metrics import Metrics

log = logging.getLogger(__name__)
_ids = itertools.count(1)


class _Close(NamedTuple):
    """Queued after the last frame: close the connection once everything before is sent."""

    code: int
    reason: str


#: Close code for a client that fell too far behind (RFC 6455 "try again later").
SLOW_CLIENT = 1013


class Connection:
    """The server's side of one WebSocket: never waits on the client to send.

    Frames go through a bounded queue drained by a writer task; when the queue is full
    the client is too slow and is dropped (it can reconnect with its token).
    """

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
        self.greeted = False
        self.room: LiveRoom | None = None
        self.seat: int | None = None
        self.version = 0
        self.ticket: tuple[int, str] | None = None
        self.queued_at: float | None = None
        self._queue: asyncio.Queue[str | _Close] = asyncio.Queue(queue_size)
        self.closing = False
        self.rooms_created = 0
        self._writer = asyncio.create_task(self._write())
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

    def send(self, frame: str) -> None:
        """Queue a frame; drop the connection if its queue is full."""
        if self.dropped:
            return
        try:
            self._queue.put_nowait(frame)
        except asyncio.QueueFull:
            if self._metrics is not None:
                self._metrics.dropped.inc()
            self.dropped = True
            log.info("dropping slow client %s", self.id)
            self._closer = asyncio.ensure_future(self.ws.close(SLOW_CLIENT, "too slow"))

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
        try:
            while True:
                frame = await self._queue.get()
                if isinstance(frame, _Close):
                    await self.ws.close(frame.code, frame.reason)
                    return
                await self.ws.send(frame)
                if self._metrics is not None:
                    self._metrics.frames_out.inc()
                    self._metrics.bytes_out.inc(len(frame))
        except ConnectionClosed:
            pass

    @property
    def open(self) -> bool:
        """True while frames can still go out."""
        return not self._writer.done() and self.ws.state.name == "OPEN"

    def close_after_queue(self, code: int, reason: str) -> None:
        """Close once the frames already queued are sent; ignore what the client sends."""
        if self.closing:
            return
        self.closing = True
        try:
            self._queue.put_nowait(_Close(code, reason))
        except asyncio.QueueFull:
            self._closer = asyncio.ensure_future(self.ws.close(code, reason))

    async def flush(self, timeout: float = 2.0) -> None:
        """Wait (a little) for queued frames to go out."""
        deadline = time.monotonic() + timeout
        while not self._queue.empty() and not self._writer.done():
            if time.monotonic() >= deadline:
                return
            await asyncio.sleep(0.01)

    def stop(self) -> None:
        self._writer.cancel()
