"""What every client-message handler works with: :class:`Services`, the parts of the process
they act on, and the refusals they share.

:mod:`server.commands` (rooms and play) and :mod:`server.account_commands` (who you are,
your records) both build on it; :mod:`server.sockets` answers every refusal with
:func:`refuse`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from protocol.errors import AlreadyInRoom, KingsCornerError, RateLimited
from protocol.frames import frame
from protocol.messages import Error

from .bots import BotRunner
from .config import Settings
from .guard import JoinGuard
from .identity import Identities
from .live_room import RoomConnection
from .lobby import Lobby
from .metrics import Metrics
from .records import Records
from .store.base import Store

log = logging.getLogger(__name__)
#: Close code after repeated rate-limit violations (and too many failed joins).
POLICY_VIOLATION = 1008


@dataclass(frozen=True)
class Services:
    """The parts of the process that client messages act on."""

    settings: Settings
    store: Store
    metrics: Metrics
    guard: JoinGuard
    lobby: Lobby
    records: Records
    bots: BotRunner
    identities: Identities


def refuse(conn: RoomConnection, exc: KingsCornerError, seq: int | None) -> None:
    """Answer ``conn`` with the ``error`` for ``exc`` (``seq``: the request's, if any)."""
    conn.send(frame(Error, code=exc.code, params=exc.params, message=exc.message, seq=seq))


def not_in_room(conn: RoomConnection) -> None:
    if conn.room is not None:
        raise AlreadyInRoom(reason="in_room")
    if conn.ticket is not None:
        raise AlreadyInRoom("You are waiting for quick play; cancel it first.", reason="queued")


def hung_up_on_guesser(s: Services, conn: RoomConnection, message: str) -> bool:
    """A connection over its own failed-join limit is one guesser: refuse its ``join`` or
    ``recover`` without looking anything up, and close it (1008). True when it was."""
    if not s.guard.closes(conn):
        return False
    s.metrics.count(s.metrics.join_limited, "connection")
    log.info("closing after too many failed joins", extra={"limit": "connection"})
    refuse(conn, RateLimited(message, reason="failed_joins"), None)
    conn.close_after_queue(POLICY_VIOLATION, "too many failed joins")
    return True
