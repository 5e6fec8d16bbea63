"""The WebSocket side: serve one connection, frame by frame, until it closes.

Frames are rate limited, decoded into validated messages and handed to
:func:`server.commands.dispatch`. Every refusal becomes an ``error`` answer here, in one
place; anything unexpected closes the connection with 1011 and leaves everyone else be.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, MutableSet

from websockets.exceptions import ConnectionClosed

from protocol.codec import decode_client
from protocol.errors import (
    BadMessage,
    ClientError,
    Conflict,
    KingsCornerError,
    RateLimited,
    StoreUnavailable,
    UpgradeNeeded,
)

from . import logs
from .command_context import POLICY_VIOLATION, Services, refuse
from .commands import dispatch
from .connection import Connection
from .live_room import RoomConnection
from .routing import room_in_url
from .websocket import GameSocket

log = logging.getLogger(__name__)


class Sockets:
    """Serves the WebSocket connections of one process (``handle`` is websockets' handler)."""

    def __init__(self, services: Services, connections: MutableSet[RoomConnection]) -> None:
        self._services = services
        self._connections = connections

    async def handle(self, ws: GameSocket) -> None:
        """Serve one WebSocket connection until it closes."""
        settings = self._services.settings
        conn: RoomConnection = Connection(
            ws,
            settings.send_queue,
            settings.rate,
            settings.burst,
            prefix=settings.process_id,
            metrics=self._services.metrics,
        )
        conn.address = self._services.guard.address_of(ws)
        self._connections.add(conn)
        logs.bind(conn=conn.id)
        # The room the URL names routed this connection here (a load balancer's hint);
        # nothing is decided by it: see server/routing.py.
        kind, url_room = room_in_url(ws.request.path if ws.request is not None else "")
        self._services.metrics.count(self._services.metrics.url_rooms, kind)
        extra = {"address": conn.address}
        if url_room is not None:
            extra["url_room"] = url_room
        log.info("connection opened", extra=extra)
        frames = _Frames(self._services, conn, self._handle_frame)
        try:
            ws.serve_messages(frames.serve, inline=self._services.store.inline)
            await ws.wait_closed()
            # A message read before the close (a leave, say) is served before the cleanup.
            await ws.drained()
        finally:
            self._connections.discard(conn)
            await self._disconnect(conn, moved=_moved(ws))
            conn.stop()
            log.info("connection closed", extra={"close_code": ws.close_code})

    async def _handle_frame(self, conn: RoomConnection, frame: str | bytes) -> None:
        seq: int | None = None
        room = conn.room
        logs.context.set({"conn": conn.id, "room": room and room.code, "seat": conn.seat})
        try:
            if not isinstance(frame, str):
                raise BadMessage(
                    "Send text frames only: binary frames are refused.", reason="binary"
                )
            limit = self._services.settings.max_message
            if len(frame) > limit // 4 and len(frame.encode()) > limit:
                raise BadMessage(
                    f"Frames are at most {limit} bytes.", reason="too_large", limit=limit
                )
            message = decode_client(frame)
            metrics = self._services.metrics
            metrics.count(metrics.messages, message.type)
            seq = getattr(message, "seq", None)
            await dispatch(self._services, conn, message)
        except ClientError as exc:
            log.info("refused %s", exc.code, extra={"code": exc.code})
            refuse(conn, exc, seq)
        except StoreUnavailable as exc:
            log.warning(
                "store %s while serving a request",
                "full" if exc.code == "store_full" else "unavailable",
            )
            refuse(conn, exc, seq)
        except UpgradeNeeded as exc:
            # A room written by a newer version: refused here, served by a newer process.
            log.warning("refused %s", exc.code, extra={"code": exc.code})
            refuse(conn, exc, seq)
        except Conflict as exc:
            # Other writers won every retry: nothing of this request was stored.
            log.warning("request gave up after repeated version conflicts")
            refuse(conn, exc, seq)

    async def _disconnect(self, conn: RoomConnection, moved: bool = False) -> None:
        """Forget a closed connection: its quick-play ticket, its place in a room.

        ``moved``: its client moved to a connection naming the room (closed with 1000 and
        reason ``moved``), so its seat is not taken for gone here; if the client never
        got there, the maintenance ticks notice the seat missing, as after a crash.
        """
        try:
            await self._services.lobby.cancel(conn)
            live = conn.room
            if live is not None:
                async with live.lock:
                    live.detach(conn, quiet=moved)
        except KingsCornerError as exc:
            log.info("cleanup of %s incomplete: %s", conn.id, exc.code)


class _Frames:
    """What one connection's messages go through before :func:`dispatch`: the rate limit,
    then decoding (see :meth:`Sockets._handle_frame`); never raises."""

    __slots__ = ("_conn", "_handle", "_services", "_strikes")

    def __init__(
        self,
        services: Services,
        conn: RoomConnection,
        handle: Callable[[RoomConnection, str | bytes], Awaitable[None]],
    ) -> None:
        self._services = services
        self._conn = conn
        self._handle = handle
        self._strikes = 0

    async def serve(self, frame: str | bytes) -> None:
        conn = self._conn
        if conn.closing:
            return
        settings = self._services.settings
        if conn.allow():
            self._strikes = 0
        else:
            # Refused frames in a row: past a burst's worth, the client is not listening.
            self._strikes += 1
            if self._strikes > settings.burst:
                # After the replies already queued; keep reading (and discarding) so the
                # closing handshake is not stuck behind unread frames.
                conn.close_after_queue(POLICY_VIOLATION, "rate limit exceeded")
            else:
                refuse(conn, RateLimited(reason="messages", rate=int(settings.rate)), None)
            return
        try:
            await self._handle(conn, frame)
        except ConnectionClosed:
            pass
        except Exception:
            log.exception("connection %s failed", conn.id)
            conn.close_now(1011, "internal error")


#: The close reason of a client that moved to a connection naming its room.
MOVED = "moved"


def _moved(ws: GameSocket) -> bool:
    """Whether the client closed ``ws`` with 1000 and reason ``moved``."""
    return ws.close_code == 1000 and ws.close_reason == MOVED
