"""Who follows one room on this process, the document each viewer last got, and telling
them about a change.

A viewer is a seat number, or None for the spectators; all the connections of one viewer
share one document. After events are applied, :meth:`Audience.fan_out` sends each
connection a patch between two of *its own viewer's* documents (one encoding per distinct
payload), or a snapshot when it missed a version. Seats change hands by many events: each
connection follows its token (:meth:`Audience.rebind`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from protocol.diff import Op
from protocol.engine import Match
from protocol.frames import encoder, frame
from protocol.messages import Joined, KickedOut, Left, Patch, Snapshot

from .connection import Connection
from .fanout import after_move, patches
from .room import Room

log = logging.getLogger(__name__)
#: The frames sent on every move, their encoders bound once.
_PATCH = encoder(Patch)
_SNAPSHOT = encoder(Snapshot)
Viewer = int | None
R = TypeVar("R")


class Audience(Generic[R]):
    """The connections following room ``code`` here, by viewer, with their documents.

    ``emptied`` is called whenever the last connection goes.
    """

    def __init__(self, code: str, emptied: Callable[[], None]) -> None:
        self.code = code
        self._emptied = emptied
        self.viewers: dict[Viewer, set[Connection[R]]] = {}
        self._docs: dict[Viewer, dict[str, Any]] = {}

    @property
    def connections(self) -> list[Connection[R]]:
        return [c for conns in self.viewers.values() for c in conns]

    @property
    def spectators(self) -> int:
        return len(self.viewers.get(None, ()))

    def seat_connected(self, seat: int) -> bool:
        return bool(self.viewers.get(seat))

    def add(self, conn: Connection[R], room: Room) -> None:
        """Add ``conn`` as the viewer its ``seat`` says and send it a snapshot."""
        seat = conn.seat
        self.viewers.setdefault(seat, set()).add(conn)
        doc = self._docs.get(seat)
        if doc is None:
            doc = self._docs[seat] = room.doc(seat)
        self.send_snapshot(conn, room, doc)

    def drop(self, conn: Connection[R]) -> None:
        """Forget ``conn`` (and its viewer's document once nobody else shares it)."""
        seat = conn.seat
        conns = self.viewers.get(seat)
        if conns is not None:
            conns.discard(conn)
            if not conns:
                del self.viewers[seat]
                self._docs.pop(seat, None)
        conn.room, conn.seat, conn.seat_hash = None, None, None
        if not self.viewers:
            self._emptied()

    def send_snapshot(
        self, conn: Connection[R], room: Room, doc: dict[str, Any] | None = None
    ) -> None:
        if doc is None:
            doc = self._docs.get(conn.seat) or room.doc(conn.seat)
        conn.version = room.version
        conn.send(_SNAPSHOT(room=self.code, version=conn.version, doc=doc))

    def kick_out(self, seat: int) -> None:
        """Send the connections of a kicked seat out of the room."""
        for conn in list(self.viewers.get(seat, ())):
            conn.send(frame(KickedOut, room=self.code))
            self.drop(conn)

    def resnapshot(self, room: Room) -> None:
        """Send every viewer a snapshot of ``room``; drop one that cannot get one."""
        self._docs = {}
        for viewer, conns in list(self.viewers.items()):
            try:
                doc = self._docs[viewer] = room.doc(viewer)
            except Exception:
                log.exception("room %s: no document for viewer %s", self.code, viewer)
                for conn in list(conns):
                    self.drop(conn)
                    conn.close_after_queue(1011, "internal error")
                continue
            for conn in conns:
                self.send_snapshot(conn, room, doc)

    def rebind(self, room: Room) -> None:
        """Bind every seated connection to the seat its token holds now in ``room``.

        A seat changes hands by many events (leave, moving, a bot taking over, a kick, the
        seat removed, a reload from the store): a connection follows its token to its new
        seat (``joined``, then a snapshot at the next change) or, holding none, leaves the
        room (``left``).
        """
        for seat, conns in list(self.viewers.items()):
            if seat is None:
                continue
            held = room.seats[seat] if seat < len(room.seats) else None
            for conn in list(conns):
                if held is not None and held.token_hash == conn.seat_hash:
                    continue
                now = room.seat_of_hash(conn.seat_hash)
                if now is None:
                    self.drop(conn)
                    conn.send(frame(Left, room=self.code))
                    continue
                conns.discard(conn)
                conn.seat = now
                self.viewers.setdefault(now, set()).add(conn)
                conn.version = -1  # its document was another seat's: it gets a snapshot
                conn.send(frame(Joined, room=self.code, role="player", seat=now, token=None))
            if not conns and self.viewers.get(seat) is conns:
                del self.viewers[seat]
                self._docs.pop(seat, None)

    def fan_out(
        self,
        room: Room,
        old_version: int,
        lines: list[dict[str, Any]],
        actor: Connection[R] | None,
        seq: int | None,
        before: Match | None = None,
    ) -> None:
        """Tell every viewer how ``room`` changed since ``old_version``: the actor's patch
        carries its ``seq``; ``before`` (the match before one action alone) lets the
        documents be built from the old ones."""
        new_version = room.version
        after = room.match
        moved = None
        all_ops: Mapping[Viewer, list[Op] | None]
        if before is not None and after is not None:
            moved = after_move(self._docs, self.viewers, before, after)
        if moved is not None:
            new_docs, all_ops = moved
        else:
            new_docs = room.docs(self.viewers)
            all_ops = patches(self._docs, new_docs)
        self._docs = new_docs
        # One encoding per payload: the viewers whose operations are the same (every seat
        # that neither moved nor got or lost the turn, and the spectators) share one frame.
        encoded: list[tuple[list[Op], bytes]] = []
        for viewer, conns in self.viewers.items():
            new_doc = new_docs[viewer]
            ops = all_ops[viewer]
            # No room code: a connection is in one room at a time, and joined/left frame
            # its patches. No log when nothing happened worth telling.
            fields: dict[str, Any] = {"from_": old_version, "to": new_version, "ops": ops}
            if lines:
                fields["log"] = lines
            shared = None
            if ops is not None:
                shared = next((f for known, f in encoded if known is ops or known == ops), None)
                if shared is None:
                    shared = _PATCH(**fields)
                    encoded.append((ops, shared))
            for conn in conns:
                if ops is None or conn.version != old_version:
                    self.send_snapshot(conn, room, new_doc)
                    continue
                conn.version = new_version
                if conn is actor and seq is not None:
                    conn.send(_PATCH(**fields, seq=seq))
                else:
                    assert shared is not None
                    conn.send(shared)
