"""Rooms this process serves, and getting people into them: create, join, watch, quick play.

The lobby is the registry of loaded rooms: it loads a room from the store when someone
asks for it, hands every :class:`LiveRoom` the narrow :class:`RoomContext` it works with,
and routes the store's announcements about a room to it.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from typing import Any

from protocol.engine import Options, new_match
from protocol.errors import BadOptions, RoomFull, RoomNotFound, StoreUnavailable
from protocol.frames import frame
from protocol.messages import ChatHistory, ChatLine, Queued, RoomOptions
from protocol.options_table import rule_values
from protocol.wire_types import Level

from .bots import BotRunner
from .config import Settings
from .live_room import LiveRoom, RoomConnection, RoomContext
from .metrics import Metrics
from .records import Change, Person, Records
from .reviews import Reviews
from .room import Room, bot_seat_event, create_event, new_code, new_token
from .store.base import Message, Store
from .tasks import Tasks

log = logging.getLogger(__name__)


class Lobby:
    """The registry of loaded rooms, over the store."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        bots: BotRunner,
        records: Records,
        reviews: Reviews,
        tasks: Tasks,
        metrics: Metrics,
    ) -> None:
        self._settings = settings
        self._store = store
        self._bots = bots
        self._tasks = tasks
        self._metrics = metrics

        async def record(
            finished: dict[str, Any], people: list[Person], daily: dict[str, Any] | None
        ) -> list[Change | None] | None:
            changes = await records.record_finished(finished, people, daily)
            reviews.start(finished)
            return changes

        self._context = RoomContext(
            settings,
            store,
            bots,
            tasks,
            record=record,
            forget=self.drop,
            hand_ended=reviews.hand_ended,
        )
        self.rooms: dict[str, LiveRoom] = {}
        #: Loads in flight, one per code, shared by everyone asking meanwhile; each entry
        #: goes when its load ends, so codes that name no room leave nothing behind.
        self._loading: dict[str, asyncio.Future[LiveRoom]] = {}
        self._waiting: dict[str, RoomConnection] = {}

    async def get(self, code: str) -> LiveRoom:
        """The loaded room ``code``, loading it from the store if needed.

        Concurrent callers share one load; it runs in its own task, so a caller that goes
        away (its connection closed) does not cancel it for the others.
        """
        code = code.upper()
        live = self.rooms.get(code)
        if live is not None:
            return live
        # No local holds the load: its error's traceback holds this frame, and a local
        # would make that a reference cycle for every unknown code.
        return await asyncio.shield(self._loading.get(code) or self._start_load(code))

    def _start_load(self, code: str) -> asyncio.Future[LiveRoom]:
        loading = self._loading[code] = asyncio.ensure_future(self._load(code))
        self._tasks.track(loading)
        loading.add_done_callback(lambda done: self._loaded(code, done))
        return loading

    def _loaded(self, code: str, done: asyncio.Future[LiveRoom]) -> None:
        if self._loading.get(code) is done:
            del self._loading[code]
        if not done.cancelled():
            done.exception()  # retrieved here: every caller may have gone meanwhile

    async def _load(self, code: str) -> LiveRoom:
        live = self.rooms.get(code)
        if live is not None:
            return live
        events = await self._store.read(code)
        room = Room.from_events(events)
        live = LiveRoom(self._context, room)
        self.rooms[code] = live
        await self._store.subscribe(f"room:{code}")
        # Events may have landed between the read and the subscription.
        await live.catch_up()
        return live

    async def create(self, settings: RoomOptions, daily: dict[str, Any] | None = None) -> LiveRoom:
        """Store a new room with a fresh code and its bot seats (``daily``: see create_event)."""
        # Dealing once checks the stacked decks and the dealer with the engine's own rules.
        options = Options(**rule_values(settings))
        new_match(options, seed="check", decks=settings.decks or (), dealer=settings.dealer)
        if len(settings.bots) > settings.seats:
            raise BadOptions("bots lists at most one level per seat.", reason="too_many_bots")
        for _ in range(20):
            code = new_code()
            if await self._store.create_room(code, create_event(code, settings, daily)):
                break
        else:  # pragma: no cover - 25**6 codes
            raise RoomFull("Could not find a free room code.", reason="codes")
        log.info("room created", extra={"room": code, "daily": daily is not None})
        live = await self.get(code)
        bots = [
            bot_seat_event(i, level) for i, level in enumerate(settings.bots) if level is not None
        ]
        if bots:
            await live.commit(lambda r: bots)
        return live

    async def join_seat(self, conn: RoomConnection, live: LiveRoom, seat: int | None) -> str:
        """Seat ``conn`` as a new player; return its secret token.

        A person who sits is shown with a tag from then on: one with none yet (a new
        identity) is given it now, so two new people of one name are told apart at once.
        """
        await self.give_tag(conn)
        token = new_token()
        placed: list[int] = []

        def decide(room: Room) -> list[dict[str, Any]]:
            event = room.decide_sit(seat, conn.name, token, conn.player_id or None, conn.tag)
            placed[:] = [event["seat"]]
            return [event]

        await live.commit(decide)
        async with live.lock:
            if conn.room is live:  # a spectator taking a seat
                live.detach(conn, quiet=True)
            live.attach(conn, token)
        await live.seat_returned(placed[0])
        return token

    async def give_tag(self, conn: RoomConnection) -> None:
        """Give ``conn``'s identity its tag (and keep its name) if it has none yet."""
        if conn.tag is None and conn.player_id:
            conn.name, conn.tag = await self._store.name_and_tag(conn.player_id, conn.name)

    async def rejoin(self, conn: RoomConnection, code: str, token: str) -> None:
        """Take ``conn`` back to the seat ``token`` belongs to, hand intact."""
        live = await self.get(code)
        live.room.seat_of_token(token)  # refuse a bad token before waiting for the lock
        # Connected before the snapshot: your own seat never shows you disconnected.
        await live.token_returned(token)
        async with live.lock:
            live.attach(conn, token)

    async def spectate(self, conn: RoomConnection, live: LiveRoom) -> None:
        """Add ``conn`` to ``live`` as a spectator, within ``max_spectators``."""
        if live.spectators >= self._settings.max_spectators:
            raise RoomFull(
                "This room has as many spectators as it allows.",
                reason="spectators",
                limit=self._settings.max_spectators,
            )
        async with live.lock:
            live.attach(conn)
        live.after_change()  # a room paused for want of viewers plays on (LiveRoom.watched)

    async def tell_chat(self, conn: RoomConnection, live: LiveRoom) -> None:
        """Send ``conn``, just in ``live`` by a ``join``, the chat lines the room kept, if
        any (a room just made has none, and a spectator taking a seat read them). The join
        stands whatever happens here: a store that cannot tell leaves the history out."""
        try:
            lines = await self._store.chat_lines(live.code)
        except StoreUnavailable:
            return
        if lines and conn.room is live:
            conn.send(frame(ChatHistory, room=live.code, lines=lines))

    async def announced(self, code: str, message: Message) -> None:
        """Another process's announcement about room ``code``: new events, or a chat line."""
        live = self.rooms.get(code)
        if live is None:
            return
        kind = message.get("kind")
        if kind == "changed" and message.get("v", 0) > live.room.version:
            await live.catch_up()
        elif kind == "chat":
            said = {k: message[k] for k in ("seat", "name", "text")}
            if "id" in message:  # announced by a release that names its lines
                said["id"] = message["id"]
            line = frame(ChatLine, room=message["room"], **said)
            for conn in live.connections:
                conn.send(line)

    async def drop(self, code: str) -> None:
        """Stop serving room ``code`` here (the store keeps it)."""
        live = self.rooms.pop(code, None)
        if live is not None:
            live.close()
            await self._store.unsubscribe(f"room:{code}")

    # --- quick play ---------------------------------------------------------------------

    async def enqueue(self, conn: RoomConnection, seats: int) -> None:
        await self.give_tag(conn)
        ticket_id = secrets.token_hex(8)
        ticket: dict[str, Any] = {
            "id": ticket_id,
            "name": conn.name,
            "tag": conn.tag,
            "player": conn.player_id,
            "process": self._settings.process_id,
            "at": time.time(),
        }
        conn.ticket = (seats, ticket_id)
        conn.queued_at = time.monotonic()
        self._waiting[ticket_id] = conn
        await self._store.queue_join(seats, ticket)
        conn.send(frame(Queued, seats=seats, wait=self._settings.queue_wait))
        taken = await self._store.queue_take(seats, seats, seats)
        if taken:
            await self._form(seats, taken)
        else:
            self._tasks.spawn(self._fill_later(seats, ticket_id))

    async def cancel(self, conn: RoomConnection) -> None:
        if conn.ticket is None:
            return
        seats, ticket_id = conn.ticket
        conn.ticket = None
        self._waiting.pop(ticket_id, None)
        await self._store.queue_leave(seats, ticket_id)

    async def _fill_later(self, seats: int, ticket_id: str) -> None:
        await asyncio.sleep(self._settings.queue_wait)
        if ticket_id not in self._waiting:
            return
        taken = await self._store.queue_take(seats, 1, seats)
        if taken:
            await self._form(seats, taken)

    async def _form(self, seats: int, tickets: list[dict[str, Any]]) -> None:
        """Create a room for ``tickets`` (bots in the other seats) and tell each player."""
        # The level "play against the computer" starts with (docs/bots.md says why).
        level: Level = "hard" if "hard" in self._bots.levels else "heuristic"
        bots: list[Level | None] = [None] * len(tickets)
        bots += [level] * (seats - len(tickets))
        settings = RoomOptions(seats=seats, bots=bots)
        live = await self.create(settings)
        events = []
        tokens = []
        for i, ticket in enumerate(tickets):
            token = new_token()
            tokens.append(token)
            player = ticket.get("player") or None
            # Quick-play players are ready by asking to play.
            tag = ticket.get("tag") if isinstance(ticket.get("tag"), str) else None
            sit = live.room.decide_sit(i, str(ticket["name"]), token, player, tag)
            events.append({**sit, "ready": True})
        await live.commit(lambda r: events)
        await live.commit(lambda r: r.decide_start(0, None))
        for i, (ticket, token) in enumerate(zip(tickets, tokens, strict=True)):
            message = {
                "kind": "matched",
                "ticket": ticket["id"],
                "room": live.code,
                "seat": i,
                "token": token,
            }
            if ticket["process"] == self._settings.process_id:
                await self.matched(message)
            else:
                await self._store.publish(f"proc:{ticket['process']}", message)

    async def matched(self, message: dict[str, Any]) -> None:
        """A table formed for one of our waiting tickets: take the player to its seat."""
        conn = self._waiting.pop(message["ticket"], None)
        if conn is None or conn.ws.state.name != "OPEN":
            return
        if conn.queued_at is not None:
            self._metrics.queue_wait.observe(time.monotonic() - conn.queued_at)
            conn.queued_at = None
        conn.ticket = None
        conn.rooms_created += 1  # a table given counts like one created (rooms_per_connection)
        await self.rejoin(conn, message["room"], message["token"])

    def waiting_by_size(self) -> dict[int, int]:
        """Quick-play tickets this process holds, by table size."""
        counts: dict[int, int] = {}
        for conn in self._waiting.values():
            if conn.ticket is not None:
                counts[conn.ticket[0]] = counts.get(conn.ticket[0], 0) + 1
        return counts

    async def listings(self) -> list[dict[str, Any]]:
        rooms = await self._store.listings()
        return sorted(rooms, key=lambda r: (r["phase"] != "lobby", r["room"]))[:100]


__all__ = ["Lobby", "RoomNotFound"]
