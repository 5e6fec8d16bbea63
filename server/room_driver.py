"""What a room does by itself: bots' turns, the next deal, turn timers, seats whose person
went away, and its public listing.

:class:`RoomDriver` reacts to each new state of its room (:meth:`RoomDriver.react`) and
changes the room only through the room's own commit, like any client. It plays while this
process holds the room's lease and someone watches (:meth:`RoomDriver.watched`), or once
no person is left, so that a match nobody follows is finished, recorded and rated.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

from protocol.engine import Action, seat_view
from protocol.errors import ClientError, KingsCornerError

from .records import Person
from .room import Room, hash_token
from .room_context import Decide, RoomContext
from .store.base import Event

log = logging.getLogger(__name__)
#: Seconds a room with no viewer here trusts the store's answer about viewers elsewhere.
WATCH_CHECK = 1.0
#: The share of ``bot_delay`` and ``hand_pause`` a room waits, by its ``pace`` option: fast
#: bots still leave time to follow each move (the web client's motion shortens to match).
PACE = {"normal": 1.0, "fast": 0.25}
#: Maintenance ticks a room goes without reading its log while no announcement can have
#: been missed (the store's ``gaps`` stood still): a safety net, not the way news arrives.
CATCH_UP_EVERY = 30


class DrivenRoom(Protocol):
    """What the driver needs of the room it drives."""

    @property
    def code(self) -> str: ...
    @property
    def room(self) -> Room: ...
    @property
    def context(self) -> RoomContext: ...
    @property
    def spectators(self) -> int: ...
    def followed(self) -> bool: ...
    def seat_connected(self, seat: int) -> bool: ...
    async def commit(self, decide: Decide) -> None: ...
    async def catch_up(self) -> None: ...


class RoomDriver:
    """The bots, timers and presence of one room on this process."""

    def __init__(self, live: DrivenRoom) -> None:
        self.live = live
        self.code = live.code
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
        self._listed: dict[str, Any] | None = None
        self._bots: dict[int, Any] = {}
        #: When the store was last asked whether anyone watches elsewhere, and its answer.
        self._watch_checked = -WATCH_CHECK
        self._watched_elsewhere = False
        #: The store's ``gaps`` when a tick last read the log (None: never), and the ticks
        #: since that read.
        self._heard: int | None = None
        self._unread_ticks = 0

    @property
    def _context(self) -> RoomContext:
        return self.live.context

    def forget_turns(self) -> None:
        """The room was rebuilt from the store: bots and timers start from its new state."""
        self._bots.clear()
        self._timer_turn = None

    def react(self) -> None:
        """Start whatever the new state calls for: a bot turn, a turn timer, the next hand."""
        if self._context.tasks.closing:
            return
        room = self.live.room
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
            self._context.tasks.spawn(self._update_listing())

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
        return not self.live.room.someone_plays() and not await self.watched()

    async def _may_drive(self) -> bool:
        """Bots play and hands are dealt while someone watches, or once nobody is left
        (:meth:`_settling`); while a person is seated but nobody watches (say, within a
        disconnect's grace period) the table waits."""
        return not self.live.room.someone_plays() or await self.watched()

    def _pace(self) -> float:
        """How much of the server's ``bot_delay`` and ``hand_pause`` this room waits: the
        room's ``pace`` option (:data:`PACE`)."""
        return PACE[self.live.room.settings.pace]

    async def _drive_steps(self) -> None:
        settings = self._context.settings
        store = self._context.store
        while True:
            room = self.live.room
            phase = room.phase
            if phase == "hand_over":
                self._pausing = True
                try:
                    pause = settings.hand_pause * self._pace()
                    await asyncio.sleep(0 if await self._settling() else pause)
                finally:
                    self._pausing = False
                if self.live.room.phase != "hand_over":
                    continue
                if not await self._may_drive():
                    return  # paused: the next reaction (a join, a tick) looks again
                if not await store.lead(self.code, settings.process_id, settings.lease):
                    return
                await self.attempt(lambda r: [r.decide_next_hand()])
                continue
            if phase != "playing" or room.match is None:
                return
            seat = room.bot_to_move()
            if seat is None:
                return
            await asyncio.sleep(0 if await self._settling() else settings.bot_delay * self._pace())
            seat = self.live.room.bot_to_move()
            if seat is None:
                continue
            if not await self._may_drive():
                return  # paused, as above
            if not await store.lead(self.code, settings.process_id, settings.lease):
                return
            # A person plays this room and watches it: they wait for this turn, so it is
            # thought at the server's priority; bot-only rooms and settling ones stay idle.
            urgent = self.live.room.someone_plays() and await self.watched()
            match = self.live.room.match
            assert match is not None
            bot, view = self._bot_for(seat), seat_view(match, seat)
            action = await self._context.bots.choose(bot, view, urgent=urgent)
            await self.attempt(_act_decider(seat, action))

    async def watched(self) -> bool:
        """True while a person is connected to or watching the room, on this process or on
        another. Bots, the next deal and turn timers wait while nobody is.

        Viewers here answer at once; without any, the store's presence records are asked at
        most once per :data:`WATCH_CHECK` seconds (an unreachable store counts as nobody).
        """
        if self.live.followed():
            return True
        now = asyncio.get_running_loop().time()
        if now - self._watch_checked >= WATCH_CHECK:
            self._watch_checked = now
            me = self._context.settings.process_id
            try:
                members = await self._context.store.presence(self.code)
            except KingsCornerError:
                members = []
            # Our own records may be a heartbeat old; our viewers are known exactly.
            # (Connection ids are "<process id>-<number>".)
            self._watched_elsewhere = any(
                str(m.get("conn", "")).rpartition("-")[0] != me for m in members
            )
        return self._watched_elsewhere or self.live.followed()

    def _bot_for(self, seat: int) -> Any:
        room = self.live.room
        s = room.seats[seat]
        level = (s.level if s is not None and s.kind == "bot" else None) or "heuristic"
        bot = self._bots.get(seat)
        if bot is None or bot.level != level:
            # The daily deal's bots search without a clock: the same moves get the same
            # answers in everyone's room, on a busy machine too.
            seed, timed = room.bot_seed(seat), room.daily is None
            bot = self._bots[seat] = self._context.bots.make(level, seed, timed)
        return bot

    async def record(
        self, record: dict[str, Any], people: list[Person], daily: dict[str, Any] | None
    ) -> None:
        """Record the match that just finished; show its rating changes in the room."""
        changes = await self._context.record(record, people, daily)
        if changes:
            await self.attempt(lambda r: r.decide_rated(record["id"], changes))

    async def attempt(self, decide: Decide) -> None:
        """Commit a change the room makes by itself; a refusal or an outage is logged."""
        try:
            await self.live.commit(decide)
        except ClientError as exc:
            # The state moved on (another process acted first, or a bot's choice went
            # stale): the next loop iteration looks again.
            log.info("room %s: automatic action refused: %s", self.code, exc.code)
        except KingsCornerError as exc:
            log.warning("room %s: automatic action failed: %s", self.code, exc.code)
            await asyncio.sleep(0.5)

    async def _turn_timer(self, turn_key: tuple[int, int] | None, seconds: float) -> None:
        await asyncio.sleep(seconds)
        settings = self._context.settings
        if turn_key is None or self.live.room.turn_key != turn_key:
            return
        if not await self.watched():
            # Paused: react() arms the timer afresh once someone is back (or at a tick).
            if self._timer_turn == turn_key:
                self._timer_turn = None
            return
        if await self._context.store.lead(self.code, settings.process_id, settings.lease):
            await self.attempt(lambda r: r.decide_timeout(turn_key, settings.idle_turns))

    # --- seats whose person went away ------------------------------------------------

    def start_grace(self, seat: int) -> None:
        """A seat's last connection went: its grace timer starts (any older one is void)."""
        turn = self._grace_turn[seat] = self._grace_turn.get(seat, 0) + 1
        self._grace[seat] = asyncio.create_task(self._seat_left(seat, turn))

    def returned(self, seat: int) -> None:
        """The seat's person is back: a grace timer still running is void."""
        self._grace_turn[seat] = self._grace_turn.get(seat, 0) + 1

    async def _seat_left(self, seat: int, turn: int) -> None:
        """A seat's last connection closed: mark it disconnected, then away after grace,
        unless the person came back meanwhile (``turn`` is no longer the seat's latest).

        A host gone past the grace period hands the role on.
        """
        s = self.live.room.seats[seat]
        if s is None or s.kind != "human":
            return
        await self.attempt(lambda r: _presence(r, seat, False))
        await asyncio.sleep(self._context.settings.grace)
        if self._grace_turn.get(seat) != turn:
            return
        if not self.live.seat_connected(seat) and not await self._present_elsewhere(seat):
            # An operator reads why a bot took over: nobody came back within the grace.
            log.info("room %s: seat %d away after the grace period", self.code, seat)
            await self.attempt(lambda r: _away(r, seat) + r.decide_host(seat))

    async def _present_elsewhere(self, seat: int) -> bool:
        members = await self._context.store.presence(self.code)
        return any(m.get("seat") == seat and m.get("role") == "player" for m in members)

    async def tick(self, trust_presence: bool = True) -> None:
        """One maintenance round: fold in anything missed, restart a driver a dead process
        left behind, and notice seats whose process died (their presence expired).

        The log is read only when announcements may have been missed since the last read
        (the store's ``gaps`` moved), and every :data:`CATCH_UP_EVERY` ticks regardless:
        an idle room on a healthy store costs no read a tick.

        ``trust_presence`` is False while this process's heartbeats have only just resumed
        (after the store was unreachable every presence record may have expired, other
        processes' too): nobody is taken for gone on that evidence.
        """
        live = self.live
        gaps = self._context.store.gaps
        if gaps != self._heard or self._unread_ticks >= CATCH_UP_EVERY:
            await live.catch_up()
            self._heard, self._unread_ticks = gaps, 0
        else:
            # Every announcement since the last read arrived (and was folded in as it did):
            # no read, only what the state calls for (a driver a dead process left behind).
            self._unread_ticks += 1
            self.react()
        for i, s in enumerate(live.room.seats):
            if s is not None and s.kind == "human" and not s.connected and live.seat_connected(i):
                # Marked gone (by us or another process) while its connection is here: the
                # presence records had lapsed, say during a store fail-over.
                await self.seat_returned(i)
        if not trust_presence:
            self._missing.clear()
            return
        settings = self._context.settings
        connected = [
            i
            for i, s in enumerate(live.room.seats)
            if s is not None and s.kind == "human" and (s.connected or not s.away)
        ]
        if all(live.seat_connected(seat) for seat in connected):
            self._missing.clear()
            return  # the common case: every such seat is connected here, no need to ask
        members = await self._context.store.presence(self.code)
        present = {m.get("seat") for m in members if m.get("role") == "player"}
        for seat in connected:
            gone = seat not in present and not live.seat_connected(seat)
            if not gone:
                self._missing.discard(seat)
            elif seat not in self._missing:
                self._missing.add(seat)  # absent twice in a row before we act on it
            elif (
                seat not in self._grace or self._grace[seat].done()
            ) and await self._context.store.lead(self.code, settings.process_id, settings.lease):
                self.start_grace(seat)

    async def seat_returned(self, seat: int) -> None:
        await self.attempt(lambda r: _presence(r, seat, True))

    async def token_returned(self, token: str) -> None:
        """The holder of ``token`` is back: its seat (decided now) is connected."""
        digest = hash_token(token)

        def decide(room: Room) -> list[Event]:
            seat = room.seat_of_hash(digest)
            return [] if seat is None else _presence(room, seat, True)

        await self.attempt(decide)

    async def _update_listing(self) -> None:
        """List a public room while it is not finished and a person still plays in it
        (a table of bots alone, or of people a bot covers while they are away, is not)."""
        room = self.live.room
        if not room.settings.public:
            return
        people = any(s is not None and s.kind == "human" and not s.away for s in room.seats)
        spectators = self.live.spectators
        summary = room.summary(spectators) if room.phase != "finished" and people else None
        if summary != self._listed:
            self._listed = summary
            await self._context.store.set_listing(self.code, summary)

    def busy(self) -> bool:
        """True while a bot turn or deal, or a grace timer, is under way (for tests)."""
        driving = self._driver is not None and not self._driver.done()
        return driving or any(not task.done() for task in self._grace.values())

    def close(self) -> None:
        for task in (self._driver, self._timer, *self._grace.values()):
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
