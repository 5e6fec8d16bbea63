"""A room as this process serves it: its state, and every change to it in version order.

Changes go through :meth:`LiveRoom.commit`: decide events from the current state, append
them to the store at the expected version, apply them, then let its
:class:`~server.audience.Audience` send each viewer a patch between two of *its own*
documents, and its :class:`~server.room_driver.RoomDriver` react (bots, timers, the next
deal). Another process's changes arrive as an announcement and are folded in by
:meth:`LiveRoom.catch_up`; a store that lost or rewrote the log rebuilds the room.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, TypeAlias

from protocol.engine import Action
from protocol.errors import (
    ClientError,
    Conflict,
    KingsCornerError,
    RoomNotFound,
    StoreFull,
    StoreUnavailable,
    UpgradeNeeded,
)
from protocol.frames import frame
from protocol.messages import Error, Joined, KickedOut, Left, Rewound

from .audience import Audience
from .connection import Connection as _Connection
from .guard import TokenBucket
from .room import Room, hash_token
from .room_context import Decide, RoomContext
from .room_driver import RoomDriver
from .store.base import Event, link

__all__ = ["Decide", "LiveRoom", "RoomConnection", "RoomContext"]

log = logging.getLogger(__name__)
_RETRIES = 8
#: Pauses between looks at the store for an append whose answer was lost; the last one
#: repeats until the store answers (a Redis restarting cleanly is back within the first few).
_LOOK_AGAIN = (0.05, 0.2, 0.5, 1.0)


class LiveRoom:
    """One loaded room. All mutation happens under ``lock``, in version order."""

    def __init__(self, context: RoomContext, room: Room) -> None:
        self.context = context
        self.room = room
        self.code = room.code
        self.lock = asyncio.Lock()
        self._expiry: asyncio.Task[None] | None = None
        self.audience: Audience[LiveRoom] = Audience(room.code, self._emptied)
        self.driver = RoomDriver(self)
        #: The last hint per seat, with the room version it was computed at.
        self.hints: dict[int, tuple[int, Action]] = {}
        #: Hints computed per seat in the current turn: (turn key, count).
        self.hints_asked: dict[int, tuple[tuple[int, int] | None, int]] = {}
        #: Set once the room met an event this version cannot read: it is a newer
        #: process's now (see :meth:`_leave_to_newer`).
        self.left_behind = False
        #: An append's answer was lost and the store cannot yet say whether it holds it:
        #: until it can, this room refuses every other change at once (nothing of theirs
        #: is stored), rather than queue them behind the one whose outcome is unknown.
        self.unsure = False
        #: Chat lines this room still accepts from this process's connections.
        settings = context.settings
        self.chat_budget = TokenBucket(settings.room_chat_rate, settings.room_chat_burst)

    # --- connections -----------------------------------------------------------------

    @property
    def connections(self) -> list[RoomConnection]:
        return self.audience.connections

    @property
    def spectators(self) -> int:
        return self.audience.spectators

    def followed(self) -> bool:
        """True while any connection here follows the room."""
        return bool(self.audience.viewers)

    def seat_connected(self, seat: int) -> bool:
        return self.audience.seat_connected(seat)

    def attach(self, conn: RoomConnection, token: str | None = None) -> None:
        """Add ``conn`` as the player whose seat ``token`` opens, or with None as a
        spectator; send ``joined`` then a snapshot (under ``lock``).

        The seat is looked up now, from the token: a seat decided earlier may have changed
        hands since (raises :class:`~protocol.errors.BadToken` then).
        """
        seat: int | None = None
        if token is not None:
            seat = self.room.seat_of_token(token)
            conn.seat_hash = hash_token(token)
        else:
            conn.seat_hash = None
        conn.room, conn.seat = self, seat
        if seat is not None:
            self.driver.returned(seat)
        role = "spectator" if seat is None else "player"
        conn.send(frame(Joined, room=self.code, role=role, seat=seat, token=token))
        self.audience.add(conn, self.room)
        if self._expiry is not None:
            self._expiry.cancel()
            self._expiry = None

    def seat_of(self, conn: RoomConnection) -> int | None:
        """The seat ``conn`` may act for now: the one its token holds, else None.

        Commands decide with this, under ``lock``, never with a seat number read earlier.
        """
        seat = conn.seat
        if seat is None or conn.room is not self or seat >= len(self.room.seats):
            return None
        held = self.room.seats[seat]
        if held is None or held.token_hash is None or held.token_hash != conn.seat_hash:
            return None
        return seat

    def send_snapshot(self, conn: RoomConnection) -> None:
        self.audience.send_snapshot(conn, self.room)

    def detach(self, conn: RoomConnection, quiet: bool = False) -> None:
        """Forget ``conn``; start the away grace (unless ``quiet``) or the room expiry."""
        seat = conn.seat
        self.audience.drop(conn)
        if self.context.tasks.closing:
            return  # a restarted server resumes the room; nothing to schedule here
        if seat is not None and not self.seat_connected(seat) and not quiet:
            self.driver.start_grace(seat)

    def _emptied(self) -> None:
        """The last connection here went: the room is forgotten after ``room_ttl`` unless
        someone follows it again (here or on another process)."""
        if not self.context.tasks.closing and self._expiry is None:
            self._expiry = asyncio.create_task(self._expire())

    # --- changing the room ------------------------------------------------------------

    async def commit(
        self, decide: Decide, actor: RoomConnection | None = None, seq: int | None = None
    ) -> None:
        """Decide events on the current state, store them, apply them and fan out.

        A refusal (:class:`ClientError`) propagates with nothing changed. A version
        conflict with another process is repaired by catching up and deciding again.
        """
        process = self.context.settings.process_id
        if self.unsure:
            raise StoreUnavailable()
        async with self.lock:
            for _ in range(_RETRIES):
                try:
                    events = decide(self.room)
                except ClientError:
                    # Another process may have moved the room on: refuse only on fresh state.
                    if await self._catch_up_locked():
                        continue
                    raise
                if not events:
                    return
                expected, head = self.room.version, self.room.head
                chained = head
                for event in events:
                    event["h"] = chained = link(chained, event)
                announce = {"kind": "changed", "v": expected + len(events), "by": process}
                try:
                    version = await self.context.store.append(
                        self.code, expected, events, announce, head=head
                    )
                except Conflict:
                    # Someone else appended, or the store lost our last writes and holds
                    # another history: catching up folds in the first and reloads the second.
                    await self._catch_up_locked()
                    continue
                except StoreUnavailable as exc:
                    if isinstance(exc, StoreFull) or exc.never_sent:
                        raise  # a clear refusal: nothing was written
                    # The store may have carried out the append and lost only its answer
                    # (it stopped just then). Refusing could deny a stored action, so the
                    # action is answered only once the store can say which it was.
                    found = await self._look_for(expected, events)
                    if found == "absent":
                        continue  # not stored, and the store answers again: try again
                    if found == "other":
                        await self._catch_up_locked()
                        continue
                    if found == "gone":
                        raise
                    version = expected + len(events)
                finishing = self.room.phase != "finished"
                playing = self.room.phase == "playing"
                if not await self._apply_safely(events, actor, seq):
                    break
                if playing and self.room.phase == "hand_over":
                    # Exactly one process wins the append that ends a hand: it says so.
                    self.context.hand_ended(self.room.record_so_far())
                if finishing and self.room.phase == "finished":
                    # Exactly one process wins the append that ends a match: it records it.
                    room = self.room
                    log.info("match finished", extra={"room": self.code})
                    self.context.tasks.spawn(
                        self.driver.record(room.finished_record(), room.people(), room.daily),
                        finish=True,  # shutdown waits for it: the store is closed after
                    )
                if version != self.room.version:
                    log.warning(
                        "room %s at %d after append, store says %d",
                        self.code,
                        self.room.version,
                        version,
                    )
                break
            else:
                raise Conflict()
        self.after_change()

    async def _look_for(self, expected: int, events: list[Event]) -> str:
        """After an append that got no answer: are ``events`` stored right after version
        ``expected`` (``"ours"``), is nothing there (``"absent"``), something else
        (``"other"``), or the room itself gone from the store (``"gone"``)?

        Asks until the store can tell (:data:`_LOOK_AGAIN`, its last pause repeating);
        meanwhile the room is :attr:`unsure`. A process stopping cancels the wait: its
        clients reconnect and read the room as stored.
        """
        self.unsure = True
        try:
            pauses = iter(_LOOK_AGAIN)
            while True:
                try:
                    stored = await self.context.store.read(self.code, after=expected)
                except StoreUnavailable:
                    await asyncio.sleep(next(pauses, _LOOK_AGAIN[-1]))
                    continue
                except RoomNotFound:
                    return "gone"
                if not stored:
                    return "absent"
                last = stored[len(events) - 1] if len(stored) >= len(events) else None
                return "ours" if last is not None and last.get("h") == events[-1]["h"] else "other"
        finally:
            self.unsure = False

    async def catch_up(self) -> None:
        """Fold in events another process stored, then react to them.

        A room the store no longer holds at all is dropped here: its viewers get ``kicked``
        when an administrator closed it, ``left`` when it was lost with the store's data. A
        room that now holds an event this version cannot read is left to a newer process
        (:meth:`_leave_to_newer`).
        """
        try:
            async with self.lock:
                await self._catch_up_locked()
        except UpgradeNeeded:
            return
        except RoomNotFound:
            log.warning("room %s is gone from the store; dropping it", self.code)
            try:
                closed = await self.context.store.was_closed(self.code)
            except KingsCornerError:
                closed = False
            # Closed by an administrator: "kicked", as the announcement (maybe still on its
            # way) says it; lost with the store's data: "left".
            gone = frame(KickedOut if closed else Left, room=self.code)
            for conn in self.connections:
                self.detach(conn, quiet=True)
                conn.send(gone)
            await self.context.forget(self.code)
            return
        self.after_change()

    async def _catch_up_locked(self) -> bool:
        """Apply events stored since our version; True if the room changed.

        The read starts at the last event we applied: if the store no longer holds it (it
        lost its last writes) or holds another one there (and then took someone else's
        history), the room is reloaded from the store and its viewers told. An event this
        version cannot read raises :class:`UpgradeNeeded`, and the room is left to a newer
        process.
        """
        try:
            return await self._fold_news()
        except UpgradeNeeded as exc:
            self._leave_to_newer(exc)
            raise

    def _leave_to_newer(self, exc: UpgradeNeeded) -> None:
        """Stop serving a room that holds an event this version cannot read; once.

        A newer process serves it: its viewers here get the ``upgrade_needed`` error, then
        ``left`` (joining again works on a newer process); this process gives up
        the room's lease, so a newer one drives its bots and timers at once, and forgets
        it. Nothing is written: the store keeps the room as the newer process wrote it.
        """
        if self.left_behind:
            return
        self.left_behind = True
        log.warning(
            "room %s holds a newer event format (%s): left to a newer server",
            self.code,
            exc.params.get("format"),
        )
        notice = frame(Error, code=exc.code, params=exc.params, message=exc.message, seq=None)
        left = frame(Left, room=self.code)
        for conn in self.connections:
            self.detach(conn, quiet=True)
            conn.send(notice)
            conn.send(left)
        self.context.tasks.spawn(self._hand_over())

    async def _hand_over(self) -> None:
        await self.context.forget(self.code)  # cancels this room's timers and drivers
        try:
            await self.context.store.resign(self.code, self.context.settings.process_id)
        except KingsCornerError as exc:
            log.info("room %s: lease not given up (%s); it lapses", self.code, exc.code)

    async def _fold_news(self) -> bool:
        room = self.room
        events = await self.context.store.read(self.code, room.version - 1)
        if not events or events[0].get("h", "") != room.head:
            await self._reload_locked(rewound=True)
            return True
        news = events[1:]
        if news:
            await self._apply_safely(news, None, None)
        return bool(news)

    async def _apply_safely(
        self, events: list[Event], actor: RoomConnection | None, seq: int | None
    ) -> bool:
        """Apply stored events; if that fails, rebuild the room from the store (False).

        The events are stored already: the room must end up where the store is, whatever
        went wrong here.
        """
        try:
            self._apply(events, actor, seq)
        except UpgradeNeeded:
            raise  # nothing to reload: the room is a newer version's
        except Exception:
            log.exception("room %s: applying stored events failed; reloading", self.code)
            await self._reload_locked()
            return False
        return True

    async def _reload_locked(self, rewound: bool = False) -> None:
        """Rebuild the room from the store's log and send everyone a fresh snapshot.

        ``rewound``: the store went backwards (or holds another history than ours), so
        changes our viewers saw are undone; each gets a ``rewound`` notice first.
        """
        events = await self.context.store.read(self.code)
        room = Room.from_events(events)
        before = self.room.version
        log.warning("room %s reloaded at version %d (was %d)", self.code, room.version, before)
        self.room = room
        self.hints.clear()
        self.driver.forget_turns()
        self.audience.rebind(room)
        if rewound:
            notice = frame(Rewound, room=self.code, from_=before, to=room.version)
            for conn in self.connections:
                conn.send(notice)
        self.audience.resnapshot(room)
        asyncio.get_running_loop().call_soon(self.after_change)

    def _apply(self, events: list[Event], actor: RoomConnection | None, seq: int | None) -> None:
        old_version = self.room.version
        # One action alone changes only the game: its documents can be built from the old.
        before = self.room.match if len(events) == 1 and events[0]["e"] == "act" else None
        lines: list[dict[str, Any]] = []
        for event in events:
            lines.extend(self.room.apply(event))
            if event["e"] == "kick":
                self.audience.kick_out(event["seat"])
            elif event["e"] == "presence" and event["connected"]:
                self.driver.returned(event["seat"])
        if before is None:  # an action alone moves cards, never a seat to another token
            self.audience.rebind(self.room)
        try:
            self.audience.fan_out(self.room, old_version, lines, actor, seq, before)
        except Exception:
            # The room is applied; what failed is only telling the viewers about it.
            log.exception("room %s: fan-out failed at %d; snapshots", self.code, self.room.version)
            self.audience.resnapshot(self.room)

    # --- reacting: bots, timers, next hand, listing (the driver) ----------------------

    def after_change(self) -> None:
        """Start whatever the new state calls for: a bot turn, a turn timer, the next hand."""
        self.driver.react()

    async def watched(self) -> bool:
        return await self.driver.watched()

    async def tick(self, trust_presence: bool = True) -> None:
        await self.driver.tick(trust_presence)

    async def seat_returned(self, seat: int) -> None:
        await self.driver.seat_returned(seat)

    async def token_returned(self, token: str) -> None:
        await self.driver.token_returned(token)

    async def _expire(self) -> None:
        await asyncio.sleep(self.context.settings.room_ttl)
        if not self.followed() and not await self.context.store.presence(self.code):
            await self.context.forget(self.code)
            await self.context.store.delete_room(self.code)

    def close(self) -> None:
        self.driver.close()
        if self._expiry is not None:
            self._expiry.cancel()


#: A connection as the server's rooms bind it.
RoomConnection: TypeAlias = _Connection[LiveRoom]
