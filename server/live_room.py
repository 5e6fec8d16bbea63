"""A room as this process serves it: state, connections, fan-out, bots and timers.

Changes go through :meth:`LiveRoom.commit`: decide events from the current state, append
them to the store at the expected version, apply them, then send each viewer a patch
between two of *its own* documents. Another process's changes arrive as an announcement
and are folded in by :meth:`LiveRoom.catch_up`.

A little over our ~600-line guide: committing, catching up, fanning out, re-binding seats
and driving bots all work under the one lock on the one set of viewer documents, and read
best beside each other.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from protocol.diff import Op
from protocol.engine import Action, Match, seat_view
from protocol.errors import (
    ClientError,
    Conflict,
    KingsCornerError,
    RoomNotFound,
    StoreFull,
    StoreUnavailable,
    StoreUnreached,
    UpgradeNeeded,
)
from protocol.frames import encoder, frame
from protocol.messages import Error, Joined, KickedOut, Left, Patch, Rewound, Snapshot

from .bots import BotRunner
from .config import Settings
from .connection import Connection as _Connection
from .fanout import after_move, patches
from .guard import TokenBucket
from .records import Person
from .room import Room, hash_token
from .store.base import Event, Store, link
from .tasks import Tasks

log = logging.getLogger(__name__)
#: The frames sent on every move, their encoders bound once.
_PATCH = encoder(Patch)
_SNAPSHOT = encoder(Snapshot)
Decide = Callable[[Room], list[Event]]
Viewer = int | None
_RETRIES = 8
#: Pauses between looks at the store for an append whose answer was lost; the last one
#: repeats until the store answers (a Redis restarting cleanly is back within the first few).
_LOOK_AGAIN = (0.05, 0.2, 0.5, 1.0)
#: Seconds a room with no viewer here trusts the store's answer about viewers elsewhere.
WATCH_CHECK = 1.0
#: The share of ``bot_delay`` and ``hand_pause`` a room waits, by its ``pace`` option: fast
#: bots still leave time to follow each move (the web client's motion shortens to match).
PACE = {"normal": 1.0, "fast": 0.25}


@dataclass(frozen=True)
class RoomContext:
    """What a loaded room needs of its process, and nothing more."""

    settings: Settings
    store: Store
    bots: BotRunner
    tasks: Tasks
    #: Keep a finished match (history, ratings, leaderboards): ``(record, people, daily)``;
    #: returns each seat's rating change, or None for an unrated match.
    record: Callable[[dict[str, Any], list[Person], dict[str, Any] | None], Awaitable[Any]]
    #: Forget a room this process no longer serves (the lobby's registry).
    forget: Callable[[str], Awaitable[None]]
    #: A hand of a match with people ended (the match goes on): the record so far, for the
    #: coach to review that hand while the next is played.
    hand_ended: Callable[[dict[str, Any]], None] = lambda _record: None


class LiveRoom:
    """One loaded room. All mutation happens under ``lock``, in version order."""

    def __init__(self, context: RoomContext, room: Room) -> None:
        self.context = context
        self.room = room
        self.code = room.code
        self.lock = asyncio.Lock()
        self.viewers: dict[Viewer, set[RoomConnection]] = {}
        self._docs: dict[Viewer, dict[str, Any]] = {}
        self._driver: asyncio.Task[None] | None = None
        self._timer: asyncio.Task[None] | None = None
        self._timer_turn: tuple[int, int] | None = None
        self._grace: dict[int, asyncio.Task[None]] = {}
        #: Per seat, a number that every disconnect and every return moves on: a grace
        #: timer acts only if it is still the seat's latest (one timer per disconnect).
        self._grace_turn: dict[int, int] = {}
        #: True while the driver sleeps through the pause between two hands.
        self._pausing = False
        self._missing: set[int] = set()
        self._expiry: asyncio.Task[None] | None = None
        self._listed: dict[str, Any] | None = None
        self._bots: dict[int, Any] = {}
        #: When the store was last asked whether anyone watches elsewhere, and its answer.
        self._watch_checked = -WATCH_CHECK
        self._watched_elsewhere = False
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
        return [c for conns in self.viewers.values() for c in conns]

    @property
    def spectators(self) -> int:
        return len(self.viewers.get(None, ()))

    def attach(self, conn: RoomConnection, token: str | None = None) -> None:
        """Add ``conn`` as the player whose seat ``token`` opens, or with None as a
        spectator; send ``joined`` then a snapshot (under ``lock``).

        The seat is looked up now, from the token: a seat decided earlier may have changed
        hands since (raises :class:`~protocol.errors.BadToken` then).
        """
        seat: Viewer = None
        if token is not None:
            seat = self.room.seat_of_token(token)
            conn.seat_hash = hash_token(token)
        else:
            conn.seat_hash = None
        conn.room, conn.seat = self, seat
        if seat is not None:
            self._returned(seat)
        self.viewers.setdefault(seat, set()).add(conn)
        role = "spectator" if seat is None else "player"
        conn.send(frame(Joined, room=self.code, role=role, seat=seat, token=token))
        doc = self._docs.get(seat)
        if doc is None:
            doc = self._docs[seat] = self.room.doc(seat)
        self.send_snapshot(conn, doc)
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

    def send_snapshot(self, conn: RoomConnection, doc: dict[str, Any] | None = None) -> None:
        if doc is None:
            doc = self._docs.get(conn.seat) or self.room.doc(conn.seat)
        conn.version = self.room.version
        conn.send(_SNAPSHOT(room=self.code, version=conn.version, doc=doc))

    def detach(self, conn: RoomConnection, quiet: bool = False) -> None:
        """Forget ``conn``; start the away grace (unless ``quiet``) or the room expiry."""
        seat = conn.seat
        conns = self.viewers.get(seat)
        if conns is not None:
            conns.discard(conn)
            if not conns:
                del self.viewers[seat]
                self._docs.pop(seat, None)
        conn.room, conn.seat, conn.seat_hash = None, None, None
        if self.context.tasks.closing:
            return  # a restarted server resumes the room; nothing to schedule here
        if seat is not None and seat not in self.viewers and not quiet:
            self._start_grace(seat)
        if not self.viewers and self._expiry is None:
            self._expiry = asyncio.create_task(self._expire())

    def _start_grace(self, seat: int) -> None:
        """A seat's last connection went: its grace timer starts (any older one is void)."""
        turn = self._grace_turn[seat] = self._grace_turn.get(seat, 0) + 1
        self._grace[seat] = asyncio.create_task(self._seat_left(seat, turn))

    def _returned(self, seat: int) -> None:
        """The seat's person is back (here, or another process says so): no grace timer
        started before now may mark it away."""
        self._grace_turn[seat] = self._grace_turn.get(seat, 0) + 1

    def seat_connected(self, seat: int) -> bool:
        return bool(self.viewers.get(seat))

    def _kick_out(self, seat: int) -> None:
        """Send this process's connections of a kicked seat out of the room."""
        for conn in list(self.viewers.get(seat, ())):
            conn.send(frame(KickedOut, room=self.code))
            self.detach(conn, quiet=True)

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
                    if isinstance(exc, StoreFull | StoreUnreached):
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
                        self._record(room.finished_record(), room.people(), room.daily),
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
        self._bots.clear()
        self.hints.clear()
        self._timer_turn = None
        self._rebind()
        if rewound:
            notice = frame(Rewound, room=self.code, from_=before, to=room.version)
            for conn in self.connections:
                conn.send(notice)
        self._resnapshot()
        asyncio.get_running_loop().call_soon(self.after_change)

    def _resnapshot(self) -> None:
        """Send every viewer a snapshot of the current state; drop one that cannot get one."""
        self._docs = {}
        for viewer, conns in list(self.viewers.items()):
            try:
                doc = self._docs[viewer] = self.room.doc(viewer)
            except Exception:
                log.exception("room %s: no document for viewer %s", self.code, viewer)
                for conn in list(conns):
                    self.detach(conn, quiet=True)
                    conn.close_after_queue(1011, "internal error")
                continue
            for conn in conns:
                self.send_snapshot(conn, doc)

    def _rebind(self) -> None:
        """Bind every seated connection to the seat its token holds now.

        A seat changes hands by many events (leave, moving, a bot taking over, a kick, the
        seat removed, a reload from the store): a connection follows its token to its new
        seat (``joined`` and a snapshot) or, holding none, leaves the room (``left``).
        """
        room = self.room
        for seat, conns in list(self.viewers.items()):
            if seat is None:
                continue
            held = room.seats[seat] if seat < len(room.seats) else None
            for conn in list(conns):
                if held is not None and held.token_hash == conn.seat_hash:
                    continue
                now = room.seat_of_hash(conn.seat_hash)
                if now is None:
                    self.detach(conn, quiet=True)
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

    def _apply(self, events: list[Event], actor: RoomConnection | None, seq: int | None) -> None:
        old_version = self.room.version
        # One action alone changes only the game: its documents can be built from the old.
        before = self.room.match if len(events) == 1 and events[0]["e"] == "act" else None
        lines: list[dict[str, Any]] = []
        for event in events:
            lines.extend(self.room.apply(event))
            if event["e"] == "kick":
                self._kick_out(event["seat"])
            elif event["e"] == "presence" and event["connected"]:
                self._returned(event["seat"])
        if before is None:  # an action alone moves cards, never a seat to another token
            self._rebind()
        try:
            self._fan_out(old_version, lines, actor, seq, before)
        except Exception:
            # The room is applied; what failed is only telling the viewers about it.
            log.exception("room %s: fan-out failed at %d; snapshots", self.code, self.room.version)
            self._resnapshot()

    def _fan_out(
        self,
        old_version: int,
        lines: list[dict[str, Any]],
        actor: RoomConnection | None,
        seq: int | None,
        before: Match | None = None,
    ) -> None:
        new_version = self.room.version
        after = self.room.match
        moved = None
        all_ops: Mapping[Viewer, list[Op] | None]
        if before is not None and after is not None:
            moved = after_move(self._docs, self.viewers, before, after)
        if moved is not None:
            new_docs, all_ops = moved
        else:
            new_docs = self.room.docs(self.viewers)
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
                    self.send_snapshot(conn, new_doc)
                    continue
                conn.version = new_version
                if conn is actor and seq is not None:
                    conn.send(_PATCH(**fields, seq=seq))
                else:
                    assert shared is not None
                    conn.send(shared)

    # --- reacting: bots, timers, next hand, listing -------------------------------------

    def after_change(self) -> None:
        """Start whatever the new state calls for: a bot turn, a turn timer, the next hand."""
        if self.context.tasks.closing:
            return
        room = self.room
        phase = room.phase
        if phase == "playing":
            if room.bot_to_move() is not None:
                if self._pausing and self._driver is not None:
                    # Someone dealt the next hand during the pause: a bot that leads it
                    # plays now, not when the pause would have ended.
                    self._driver.cancel()
                    self._driver = None
                self._drive()
            elif room.settings.turn_timer and self._timer_turn != room.turn_key:
                if self._timer is not None:
                    self._timer.cancel()
                self._timer_turn = room.turn_key
                self._timer = asyncio.create_task(
                    self._turn_timer(room.turn_key, room.settings.turn_timer)
                )
        elif phase == "hand_over":
            self._drive()
        if room.settings.public:
            self.context.tasks.spawn(self._update_listing())

    def _drive(self) -> None:
        if self._driver is None or self._driver.done():
            self._driver = asyncio.create_task(self._drive_loop())

    async def _drive_loop(self) -> None:
        """Play bot turns and deal next hands while this process holds the room's lease."""
        try:
            await self._drive_steps()
        except KingsCornerError as exc:
            # Typically the store is unreachable; the maintenance tick drives again later.
            log.warning("room %s: driving stopped: %s", self.code, exc.code)

    async def _settling(self) -> bool:
        """True when no person plays this match any more and nobody watches it: its bots
        then finish it at once, without pauses, so that it is recorded and rated."""
        return not self.room.someone_plays() and not await self.watched()

    async def _may_drive(self) -> bool:
        """Bots play and hands are dealt while someone watches, or once nobody is left
        (:meth:`_settling`); while a person is seated but nobody watches (say, within a
        disconnect's grace period) the table waits."""
        return not self.room.someone_plays() or await self.watched()

    def _pace(self) -> float:
        """How much of the server's ``bot_delay`` and ``hand_pause`` this room waits: the
        room's ``pace`` option (:data:`PACE`)."""
        return PACE[self.room.settings.pace]

    async def _drive_steps(self) -> None:
        settings = self.context.settings
        store = self.context.store
        while True:
            room = self.room
            phase = room.phase
            if phase == "hand_over":
                self._pausing = True
                try:
                    pause = settings.hand_pause * self._pace()
                    await asyncio.sleep(0 if await self._settling() else pause)
                finally:
                    self._pausing = False
                if self.room.phase != "hand_over":
                    continue
                if not await self._may_drive():
                    return  # paused: the next after_change (a join, a tick) looks again
                if not await store.lead(self.code, settings.process_id, settings.lease):
                    return
                await self._try(lambda r: [r.decide_next_hand()])
                continue
            if phase != "playing" or room.match is None:
                return
            seat = room.bot_to_move()
            if seat is None:
                return
            await asyncio.sleep(0 if await self._settling() else settings.bot_delay * self._pace())
            seat = self.room.bot_to_move()
            if seat is None:
                continue
            if not await self._may_drive():
                return  # paused, as above
            if not await store.lead(self.code, settings.process_id, settings.lease):
                return
            # A person plays this room and watches it: they wait for this turn, so it is
            # thought at the server's priority; bot-only rooms and settling ones stay idle.
            urgent = self.room.someone_plays() and await self.watched()
            match = self.room.match
            assert match is not None
            bot, view = self._bot_for(seat), seat_view(match, seat)
            action = await self.context.bots.choose(bot, view, urgent=urgent)
            await self._try(_act_decider(seat, action))

    async def watched(self) -> bool:
        """True while a person is connected to or watching the room, on this process or on
        another. Bots, the next deal and turn timers wait while nobody is.

        Viewers here answer at once; without any, the store's presence records are asked at
        most once per :data:`WATCH_CHECK` seconds (an unreachable store counts as nobody).
        """
        if self.viewers:
            return True
        now = asyncio.get_running_loop().time()
        if now - self._watch_checked >= WATCH_CHECK:
            self._watch_checked = now
            me = self.context.settings.process_id
            try:
                members = await self.context.store.presence(self.code)
            except KingsCornerError:
                members = []
            # Our own records may be a heartbeat old; our viewers are known exactly.
            # (Connection ids are "<process id>-<number>".)
            self._watched_elsewhere = any(
                str(m.get("conn", "")).rpartition("-")[0] != me for m in members
            )
        return self._watched_elsewhere or bool(self.viewers)

    def _bot_for(self, seat: int) -> Any:
        s = self.room.seats[seat]
        level = (s.level if s is not None and s.kind == "bot" else None) or "heuristic"
        bot = self._bots.get(seat)
        if bot is None or bot.level != level:
            # The daily deal's bots search without a clock: the same moves get the same
            # answers in everyone's room, on a busy machine too.
            seed, timed = self.room.bot_seed(seat), self.room.daily is None
            bot = self._bots[seat] = self.context.bots.make(level, seed, timed)
        return bot

    async def _record(
        self, record: dict[str, Any], people: list[Person], daily: dict[str, Any] | None
    ) -> None:
        """Record the match that just finished; show its rating changes in the room."""
        changes = await self.context.record(record, people, daily)
        if changes:
            await self._try(lambda r: r.decide_rated(record["id"], changes))

    async def _try(self, decide: Decide) -> None:
        try:
            await self.commit(decide)
        except ClientError as exc:
            # The state moved on (another process acted first, or a bot's choice went
            # stale): the next loop iteration looks again.
            log.info("room %s: automatic action refused: %s", self.code, exc.code)
        except KingsCornerError as exc:
            log.warning("room %s: automatic action failed: %s", self.code, exc.code)
            await asyncio.sleep(0.5)

    async def _turn_timer(self, turn_key: tuple[int, int] | None, seconds: float) -> None:
        await asyncio.sleep(seconds)
        settings = self.context.settings
        if turn_key is None or self.room.turn_key != turn_key:
            return
        if not await self.watched():
            # Paused: after_change arms the timer afresh once someone is back (or at a tick).
            if self._timer_turn == turn_key:
                self._timer_turn = None
            return
        if await self.context.store.lead(self.code, settings.process_id, settings.lease):
            await self._try(lambda r: r.decide_timeout(turn_key, settings.idle_turns))

    async def _seat_left(self, seat: int, turn: int) -> None:
        """A seat's last connection closed: mark it disconnected, then away after grace,
        unless the person came back meanwhile (``turn`` is no longer the seat's latest).

        A host gone past the grace period hands the role on.
        """
        s = self.room.seats[seat]
        if s is None or s.kind != "human":
            return
        await self._try(lambda r: _presence(r, seat, False))
        await asyncio.sleep(self.context.settings.grace)
        if self._grace_turn.get(seat) != turn:
            return
        if not self.seat_connected(seat) and not await self._present_elsewhere(seat):
            await self._try(lambda r: _away(r, seat) + r.decide_host(seat))

    async def _present_elsewhere(self, seat: int) -> bool:
        members = await self.context.store.presence(self.code)
        return any(m.get("seat") == seat and m.get("role") == "player" for m in members)

    async def tick(self, trust_presence: bool = True) -> None:
        """One maintenance round: fold in anything missed, restart a driver a dead process
        left behind, and notice seats whose process died (their presence expired).

        ``trust_presence`` is False while this process's heartbeats have only just resumed
        (after the store was unreachable every presence record may have expired, other
        processes' too): nobody is taken for gone on that evidence.
        """
        await self.catch_up()
        for i, s in enumerate(self.room.seats):
            if s is not None and s.kind == "human" and not s.connected and self.seat_connected(i):
                # Marked gone (by us or another process) while its connection is here: the
                # presence records had lapsed, say during a store fail-over.
                await self.seat_returned(i)
        if not trust_presence:
            self._missing.clear()
            return
        settings = self.context.settings
        connected = [
            i
            for i, s in enumerate(self.room.seats)
            if s is not None and s.kind == "human" and (s.connected or not s.away)
        ]
        if all(self.seat_connected(seat) for seat in connected):
            self._missing.clear()
            return  # the common case: every such seat is connected here, no need to ask
        members = await self.context.store.presence(self.code)
        present = {m.get("seat") for m in members if m.get("role") == "player"}
        for seat in connected:
            gone = seat not in present and not self.seat_connected(seat)
            if not gone:
                self._missing.discard(seat)
            elif seat not in self._missing:
                self._missing.add(seat)  # absent twice in a row before we act on it
            elif (
                seat not in self._grace or self._grace[seat].done()
            ) and await self.context.store.lead(self.code, settings.process_id, settings.lease):
                self._start_grace(seat)

    async def seat_returned(self, seat: int) -> None:
        await self._try(lambda r: _presence(r, seat, True))

    async def token_returned(self, token: str) -> None:
        """The holder of ``token`` is back: its seat (decided now) is connected."""
        digest = hash_token(token)

        def decide(room: Room) -> list[Event]:
            seat = room.seat_of_hash(digest)
            return [] if seat is None else _presence(room, seat, True)

        await self._try(decide)

    async def _expire(self) -> None:
        await asyncio.sleep(self.context.settings.room_ttl)
        if not self.viewers and not await self.context.store.presence(self.code):
            await self.context.forget(self.code)
            await self.context.store.delete_room(self.code)

    async def _update_listing(self) -> None:
        """List a public room while it is not finished and a person still plays in it
        (a table of bots alone, or of people a bot covers while they are away, is not)."""
        if not self.room.settings.public:
            return
        room = self.room
        people = any(s is not None and s.kind == "human" and not s.away for s in room.seats)
        summary = room.summary(self.spectators) if room.phase != "finished" and people else None
        if summary != self._listed:
            self._listed = summary
            await self.context.store.set_listing(self.code, summary)

    def close(self) -> None:
        for task in (self._driver, self._timer, self._expiry, *self._grace.values()):
            if task is not None:
                task.cancel()


def _presence(room: Room, seat: int, connected: bool) -> list[Event]:
    s = room.seats[seat]
    if s is None or s.kind != "human" or (s.connected == connected and not (connected and s.away)):
        return []
    return [{"e": "presence", "seat": seat, "connected": connected}]


def _away(room: Room, seat: int) -> list[Event]:
    s = room.seats[seat]
    if s is None or s.kind != "human" or s.away or s.connected:
        return []
    return [{"e": "away", "seat": seat, "away": True}]


def _act_decider(seat: int, action: Action) -> Decide:
    return lambda room: room.decide_act(seat, action, by_bot=True)


#: A connection as the server's rooms bind it.
RoomConnection: TypeAlias = _Connection[LiveRoom]
