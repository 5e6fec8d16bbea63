"""The I/O shell: WebSocket connections, HTTP routes, and dispatching client messages.

Rules live in the engine, room logic in :mod:`server.room`; this module only moves bytes,
turns every :class:`~protocol.errors.ClientError` into an ``error`` message in one place,
and closes the connection with 1011 on anything unexpected.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import gc
import hashlib
import hmac
import logging
import mimetypes
import secrets
import signal
import time
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from pathlib import Path
from typing import Any, ClassVar, cast

from prometheus_client import CONTENT_TYPE_LATEST
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.protocol import State

from protocol.codec import decode_client, dumps
from protocol.engine import Action, action_from_wire, seat_view
from protocol.errors import (
    AlreadyInRoom,
    BadMessage,
    BadToken,
    ClientError,
    Conflict,
    KingsCornerError,
    NotHello,
    NotInRoom,
    NotSeated,
    NotYourTurn,
    RateLimited,
    RoomFull,
    RoomNotFound,
    StoreUnavailable,
    TooManyRooms,
    UnsupportedVersion,
)
from protocol.messages import (
    PROTOCOL_VERSION,
    SUPPORTED_VERSIONS,
    Act,
    AddBot,
    Back,
    CancelQuickPlay,
    Chat,
    ClientMessage,
    Configure,
    Create,
    Daily,
    Hello,
    Hint,
    Join,
    Kick,
    Leaderboard,
    Leave,
    ListRooms,
    Lock,
    MyMatches,
    NextHand,
    QuickPlay,
    Ready,
    Rematch,
    RemoveBot,
    Resync,
    RoomOptions,
    Sit,
    Start,
)

from . import admin, api, logs
from .bot_pool import BotPool, BotSeat
from .config import Settings
from .connection import Connection
from .guard import JoinGuard
from .lobby import Lobby
from .metrics import MeteredStore, Metrics
from .room import Room, check_phase
from .store.base import Event, Message, Store

log = logging.getLogger(__name__)
#: Rooms ticked together in one slice of the maintenance round.
_TICK_SLICE = 25
WEB_ROOT = Path(__file__).resolve().parent.parent / "clients" / "web"
SERVER_NAME = "kings-corner/0.1"
#: Close code after repeated rate-limit violations.
POLICY_VIOLATION = 1008
#: Seconds connection handlers get for their cleanup once shutdown closed every connection.
_CLEANUP_WAIT = 1.0


class GameServer:
    """Everything one server process holds. Build with :func:`start_server`."""

    def __init__(self, settings: Settings, store: Store) -> None:
        self.settings = settings
        self.metrics = Metrics()
        # Every store operation is timed; the wrapper keeps the Store interface.
        self.store = cast(Store, MeteredStore(store, self.metrics))
        self.lobby = Lobby(self)
        self.guard = JoinGuard(settings, self.metrics)
        self.connections: set[Connection] = set()
        self.tasks: set[asyncio.Task[Any]] = set()
        self.ws_server: Server | None = None
        self._bot_pool = BotPool(settings.bot_workers)
        #: True once shutdown began: nothing new is scheduled after that.
        self.closing = False
        self.store_up = True
        self._maintenance: asyncio.Task[None] | None = None
        store.set_handler(self._on_store_message)
        self.metrics.watch(self)

    # --- bots ---------------------------------------------------------------------------

    @property
    def bot_levels(self) -> tuple[str, ...]:
        from protocol import bots

        return tuple(getattr(bots, "LEVELS", ()))

    def make_bot(self, level: str, seed: str, timed: bool = True) -> BotSeat:
        """A new bot for a seat: it thinks in the bot workers (see :meth:`choose`).

        ``timed=False`` takes the clock away: each search does its whole work, so the bot
        answers the same position the same way however busy the machine is (daily deals).
        """
        return BotSeat(level, seed) if timed else BotSeat(level, seed, budget_ms=None)

    async def choose(self, bot: BotSeat, view: dict[str, Any]) -> Action:
        """``bot``'s action for ``view``, decided in a bot worker (never on the event loop),
        timed from the request to the answer (waiting for a worker included)."""
        if self.closing:
            raise asyncio.CancelledError()  # the bot workers are gone; the driver stops
        start = time.perf_counter()
        action = await self._bot_pool.choose(bot, view)
        self.metrics.bot_decision.labels(bot.level).observe(time.perf_counter() - start)
        return action

    def spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # --- maintenance ---------------------------------------------------------------------

    def members(self) -> dict[str, dict[str, Any]]:
        """This process's connections in rooms, for the shared presence records."""
        return {
            c.id: {"conn": c.id, "room": c.room.code, "seat": c.seat, "role": c.role}
            for c in self.connections
            if c.room is not None
        }

    async def maintain(self) -> None:
        """Every ``tick``: heartbeat, notice store outages and recoveries, tick each room."""
        settings = self.settings
        while True:
            up = await self.store.ping()
            if up != self.store_up:
                self.store_up = up
                log.warning("store %s", "reachable again" if up else "unreachable")
                frame = dumps({"type": "status", "store": "up" if up else "down"})
                for conn in list(self.connections):
                    conn.send(frame)
            if up:
                try:
                    await self.store.heartbeat(
                        settings.process_id, self.members(), settings.tick * 3
                    )
                    await self._tick_rooms()
                except StoreUnavailable:
                    pass
                except Exception:
                    # Maintenance must outlive any one bad round; the bug is logged.
                    log.exception("maintenance round failed")
            await asyncio.sleep(settings.tick)

    async def _tick_rooms(self) -> None:
        """Tick every room, a slice at a time, so moves arriving meanwhile are not held up.

        The rooms of a slice tick concurrently: on Redis their reads share round trips.
        """
        rooms = list(self.lobby.rooms.values())
        for start in range(0, len(rooms), _TICK_SLICE):
            chunk = rooms[start : start + _TICK_SLICE]
            results = await asyncio.gather(*(live.tick() for live in chunk), return_exceptions=True)
            for live, result in zip(chunk, results, strict=True):
                if isinstance(result, StoreUnavailable):
                    raise result
                if isinstance(result, BaseException):
                    log.error("room %s: tick failed", live.code, exc_info=result)
            await asyncio.sleep(0)

    # --- store announcements ------------------------------------------------------------

    async def _on_store_message(self, channel: str, message: Message) -> None:
        kind = message.get("kind")
        if channel.startswith("room:"):
            live = self.lobby.rooms.get(channel[5:])
            if live is None:
                return
            if kind == "changed" and message.get("v", 0) > live.room.version:
                await live.catch_up()
            elif kind == "chat":
                frame = dumps(
                    {"type": "chat", **{k: message[k] for k in ("room", "seat", "name", "text")}}
                )
                for conn in live.connections:
                    conn.send(frame)
        elif channel.startswith("proc:") and kind == "matched":
            await self.lobby.matched(message)
        elif channel == "admin":
            await admin.on_message(self, message)

    async def drop_room(self, code: str, delete: bool) -> None:
        await self.lobby.drop(code)
        if delete:
            await self.store.delete_room(code)

    # --- connections --------------------------------------------------------------------

    async def handle(self, ws: ServerConnection) -> None:
        """Serve one WebSocket connection until it closes."""
        conn = Connection(
            ws,
            self.settings.send_queue,
            self.settings.rate,
            self.settings.burst,
            prefix=self.settings.process_id,
            metrics=self.metrics,
        )
        conn.address = self.guard.address_of(ws)
        self.connections.add(conn)
        logs.bind(conn=conn.id)
        log.info("connection opened", extra={"address": conn.address})
        strikes = 0
        try:
            async for frame in ws:
                if conn.closing:
                    continue
                if conn.allow():
                    strikes = 0
                else:
                    # Refused frames in a row: past a burst's worth, the client is not listening.
                    strikes += 1
                    if strikes > self.settings.burst:
                        # After the replies already queued; keep reading (and discarding)
                        # so the closing handshake is not stuck behind unread frames.
                        conn.close_after_queue(POLICY_VIOLATION, "rate limit exceeded")
                        continue
                    self._refuse(conn, RateLimited(), None)
                    continue
                await self._handle_frame(conn, frame)
        except ConnectionClosed:
            pass
        except Exception:
            log.exception("connection %s failed", conn.id)
            await ws.close(1011, "internal error")
        finally:
            self.connections.discard(conn)
            await self._disconnect(conn)
            conn.stop()
            log.info("connection closed", extra={"close_code": ws.close_code})

    async def _handle_frame(self, conn: Connection, frame: str | bytes) -> None:
        seq: int | None = None
        room = conn.room
        logs.context.set({"conn": conn.id, "room": room and room.code, "seat": conn.seat})
        try:
            if not isinstance(frame, str):
                raise BadMessage("Send text frames only: binary frames are refused.")
            message = decode_client(frame)
            self.metrics.count(self.metrics.messages, message.type)
            seq = getattr(message, "seq", None)
            await self._dispatch(conn, message)
        except ClientError as exc:
            log.info("refused %s", exc.code, extra={"code": exc.code})
            self._refuse(conn, exc, seq)
        except StoreUnavailable as exc:
            log.warning("store unavailable while serving a request")
            self._refuse(conn, exc, seq)
        except Conflict as exc:
            # Other writers won every retry: nothing of this request was stored.
            log.warning("request gave up after repeated version conflicts")
            self._refuse(conn, exc, seq)

    def _refuse(self, conn: Connection, exc: KingsCornerError, seq: int | None) -> None:
        conn.send(dumps({"type": "error", "code": exc.code, "message": exc.message, "seq": seq}))

    async def _dispatch(self, conn: Connection, message: ClientMessage) -> None:
        if isinstance(message, Hello):
            if message.version not in SUPPORTED_VERSIONS:
                raise UnsupportedVersion(f"This server speaks protocol version {PROTOCOL_VERSION}.")
            name = _clean(message.name)
            if not name:
                raise BadMessage("A name needs at least one visible character.")
            conn.name = name
            # A second hello without a token keeps the identity this connection has.
            conn.player_token = message.player or conn.player_token or secrets.token_urlsafe(24)
            conn.player_id = player_id(conn.player_token)
            conn.greeted = True
            welcome = {
                "type": "welcome",
                "version": PROTOCOL_VERSION,
                "server": SERVER_NAME,
                "player": conn.player_token,
                "player_id": conn.player_id,
            }
            conn.send(dumps(welcome))
            return
        if not conn.greeted:
            raise NotHello()
        handler = self._handlers.get(type(message))
        if handler is None:  # pragma: no cover - every message type has a handler
            raise BadMessage()
        await handler(self, conn, message)

    def _may_get_room(self, conn: Connection) -> None:
        """Refuse a new room to a connection that was given ``rooms_per_connection``
        already: created, daily deals and quick-play tables all count."""
        limit = self.settings.rooms_per_connection
        if conn.rooms_created >= limit:
            raise TooManyRooms(
                f"A connection may create {limit} rooms (daily deals and quick play count too)."
            )

    async def _create(self, conn: Connection, msg: Create) -> None:
        self._not_in_room(conn)
        self._may_get_room(conn)
        live = await self.lobby.create(msg.options)
        conn.rooms_created += 1
        if msg.spectate:
            await self._spectate(conn, live)
        else:
            await self.lobby.join_seat(conn, live, None)

    async def _join(self, conn: Connection, msg: Join) -> None:
        self._not_in_room(conn)
        limit = self.guard.refused(conn)
        if limit is not None:
            # Guessing codes: refuse without looking anything up, and hang up.
            self.metrics.count(self.metrics.join_limited, limit)
            log.info("closing after too many failed joins (%s)", limit, extra={"limit": limit})
            message = "Too many failed joins; wait a minute before trying again."
            self._refuse(conn, RateLimited(message), None)
            conn.close_after_queue(POLICY_VIOLATION, "too many failed joins")
            return
        try:
            if msg.token is not None:
                await self.rejoin(conn, msg.room, msg.token)
                return
            live = await self.lobby.get(msg.room)
            if msg.spectate:
                await self._spectate(conn, live)
                return
            await self.lobby.join_seat(conn, live, msg.seat)
        except (RoomNotFound, BadToken) as exc:
            self.guard.failed(conn, exc.code)
            raise

    async def rejoin(self, conn: Connection, code: str, token: str) -> None:
        """Take ``conn`` back to the seat ``token`` belongs to, hand intact."""
        live = await self.lobby.get(code)
        live.room.seat_of_token(token)  # refuse a bad token before waiting for the lock
        async with live.lock:
            live.attach(conn, token)
            seat = conn.seat
        if seat is not None:
            await live.seat_returned(seat)

    async def _spectate(self, conn: Connection, live: Any) -> None:
        if live.spectators >= self.settings.max_spectators:
            raise RoomFull("This room has as many spectators as it allows.")
        async with live.lock:
            live.attach(conn)
        live.after_change()  # a room paused for want of viewers plays on (LiveRoom.watched)

    def _not_in_room(self, conn: Connection) -> None:
        if conn.room is not None:
            raise AlreadyInRoom()
        if conn.ticket is not None:
            raise AlreadyInRoom("You are waiting for quick play; cancel it first.")

    def _room(self, conn: Connection) -> Any:
        if conn.room is None:
            raise NotInRoom()
        return conn.room

    async def _sit(self, conn: Connection, msg: Sit) -> None:
        live = self._room(conn)
        if conn.seat is None:
            await self._take_seat_as_spectator(conn, live, msg.seat)
            return
        # Every connection of the seat follows it there (LiveRoom rebinds them).
        await live.commit(lambda r: [r.decide_move_seat(_seated(live, conn), msg.seat)])

    async def _take_seat_as_spectator(self, conn: Connection, live: Any, seat: int) -> str:
        # join_seat moves the spectator only once the seat is really theirs.
        return await self.lobby.join_seat(conn, live, seat)

    async def _start(self, conn: Connection, msg: Start) -> None:
        live = self._room(conn)
        await live.commit(lambda r: r.decide_start(live.seat_of(conn), msg.fill))

    async def _act(self, conn: Connection, msg: Act) -> None:
        start = time.perf_counter()
        live = self._room(conn)
        try:
            action = action_from_wire(msg.action.model_dump(by_alias=True))
            await live.commit(
                lambda r: r.decide_act(live.seat_of(conn), action), actor=conn, seq=msg.seq
            )
        except ClientError as exc:
            self.metrics.count(self.metrics.actions, "refused", exc.code)
            raise
        self.metrics.count(self.metrics.actions, "accepted", "")
        self.metrics.act_latency.observe(time.perf_counter() - start)
        if log.isEnabledFor(logging.DEBUG):
            # The action is public once accepted (the card is on the table now).
            log.debug("accepted %s", action.text(), extra={"action": action.text()})

    async def _next_hand(self, conn: Connection, msg: NextHand) -> None:
        live = self._room(conn)

        def decide(room: Any) -> list[dict[str, Any]]:
            _seated(live, conn)
            return [room.decide_next_hand()]

        await live.commit(decide)

    async def _resync(self, conn: Connection, msg: Resync) -> None:
        live = self._room(conn)
        async with live.lock:
            live.send_snapshot(conn)

    async def _leave(self, conn: Connection, msg: Leave) -> None:
        live = self._room(conn)
        code, digest = live.code, conn.seat_hash
        async with live.lock:
            live.detach(conn, quiet=True)

        def decide(room: Any) -> list[dict[str, Any]]:
            # The seat this person holds when the leave is decided, not when it was asked.
            seat = room.seat_of_hash(digest)
            return [] if seat is None else [room.decide_leave(seat)]

        if digest is not None:
            await live.commit(decide)
        conn.send(dumps({"type": "left", "room": code}))

    async def _chat(self, conn: Connection, msg: Chat) -> None:
        live = self._room(conn)
        text = _clean(msg.text)
        if not text:
            raise BadMessage("Chat text is empty.")
        if not live.chat_budget.take():
            raise RateLimited("This room's chat is busy; wait a moment.")
        message = {
            "kind": "chat",
            "room": live.code,
            "seat": conn.seat,
            "name": conn.name,
            "text": text,
        }
        await self.store.publish(f"room:{live.code}", message)

    async def _quick_play(self, conn: Connection, msg: QuickPlay) -> None:
        self._not_in_room(conn)
        self._may_get_room(conn)  # the table formed for it counts (Lobby.matched)
        await self.lobby.enqueue(conn, msg.seats)

    async def _cancel_quick_play(self, conn: Connection, msg: CancelQuickPlay) -> None:
        await self.lobby.cancel(conn)
        # The answer whether or not a ticket was waiting: you are not in the queue now.
        conn.send(dumps({"type": "queued", "seats": None}))

    async def _list_rooms(self, conn: Connection, msg: ListRooms) -> None:
        conn.send(dumps({"type": "rooms", "rooms": await self.lobby.listings()}))

    async def _hint(self, conn: Connection, msg: Hint) -> None:
        live = self._room(conn)
        if conn.seat is None:
            raise NotSeated()
        check_phase(live.room.phase, "hint")
        room = live.room
        assert room.match is not None
        seat = conn.seat
        if room.match.position.turn != seat:
            raise NotYourTurn("Hints are for your own turn.")
        cached = live.hints.get(seat)
        if cached is not None and cached[0] == room.version:
            action = cached[1]
        else:
            asked = live.hints_asked.get(seat)
            count = asked[1] + 1 if asked is not None and asked[0] == room.turn_key else 1
            if count > self.settings.hints_per_turn:
                raise RateLimited(f"At most {self.settings.hints_per_turn} hints per turn.")
            live.hints_asked[seat] = (room.turn_key, count)
            view = seat_view(room.match, seat)
            action = await self._bot_pool.hint(view)
            live.hints[seat] = (room.version, action)
        if live.seat_of(conn) != seat:
            raise NotSeated()  # the seat changed hands while the hint was computed
        conn.send(dumps({"type": "hint", "action": action.wire(), "text": action.text()}))

    async def _answered(
        self, conn: Connection, live: Any, decide: Callable[[Room], list[Event]]
    ) -> None:
        """Commit what ``decide`` decides for ``conn``'s request. A request that changes
        nothing (``ready`` as you are, ``back`` when not away...) still gets its one answer:
        an empty patch at the connection's version."""
        changed = False

        def deciding(room: Room) -> list[Event]:
            nonlocal changed
            events = decide(room)
            changed = bool(events)  # commit may decide again: the last decision counts
            return events

        await live.commit(deciding)
        if not changed:
            version = conn.version
            empty = {"type": "patch", "room": live.code, "from": version, "to": version}
            conn.send(dumps({**empty, "ops": [], "log": []}))

    async def _ready(self, conn: Connection, msg: Ready) -> None:
        live = self._room(conn)
        await self._answered(conn, live, lambda r: r.decide_ready(live.seat_of(conn), msg.ready))

    async def _configure(self, conn: Connection, msg: Configure) -> None:
        live = self._room(conn)
        await live.commit(lambda r: r.decide_configure(live.seat_of(conn), msg.options))

    async def _add_bot(self, conn: Connection, msg: AddBot) -> None:
        live = self._room(conn)
        await live.commit(lambda r: [r.decide_add_bot(live.seat_of(conn), msg.seat, msg.level)])

    async def _remove_bot(self, conn: Connection, msg: RemoveBot) -> None:
        live = self._room(conn)
        await live.commit(lambda r: [r.decide_remove_bot(live.seat_of(conn), msg.seat)])

    async def _kick(self, conn: Connection, msg: Kick) -> None:
        live = self._room(conn)
        await live.commit(lambda r: [r.decide_kick(live.seat_of(conn), msg.seat)])

    async def _lock(self, conn: Connection, msg: Lock) -> None:
        live = self._room(conn)
        await self._answered(conn, live, lambda r: r.decide_lock(live.seat_of(conn), msg.locked))

    async def _rematch(self, conn: Connection, msg: Rematch) -> None:
        live = self._room(conn)
        await self._answered(conn, live, lambda r: r.decide_rematch(live.seat_of(conn), msg.force))

    async def _back(self, conn: Connection, msg: Back) -> None:
        live = self._room(conn)
        await self._answered(conn, live, lambda r: r.decide_back(live.seat_of(conn)))

    async def _daily(self, conn: Connection, msg: Daily) -> None:
        self._not_in_room(conn)
        self._may_get_room(conn)  # before claiming: a refused daily keeps the ranked try
        day = today()
        ranked = await self.store.claim_daily(day, conn.player_id)
        secret = await self.store.secret("daily")
        seed = hmac.new(secret.encode(), day.encode(), hashlib.sha256).hexdigest()[:32]
        level = self.settings.daily_level
        settings = RoomOptions.model_validate(
            {
                "seats": 4,
                "target": self.settings.daily_target,
                "bots": [None, level, level, level],
                "seed": seed,
            }
        )
        live = await self.lobby.create(settings, {"day": day, "ranked": ranked, "seed": seed})
        conn.rooms_created += 1
        await self.lobby.join_seat(conn, live, 0)
        await live.commit(lambda r: r.decide_start(0, None))

    async def record_finished(
        self,
        record: dict[str, Any],
        people: list[tuple[str, str, int]],
        daily: dict[str, Any] | None,
    ) -> None:
        """Keep a finished match in history and count it on the leaderboards."""
        hands = len(record["results"])
        try:
            await self.store.save_match(record["id"], record, [p for p, _, _ in people])
            for player, name, seat in people:
                won = seat in record["winners"]
                await self.store.record_result(player, name, won, record["totals"][seat], hands)
            if daily is not None and daily["ranked"] and people:
                player, name, seat = people[0]
                entry = {
                    "player": player,
                    "name": name,
                    "penalty": record["totals"][seat],
                    "hands": hands,
                    "match": record["id"],
                }
                await self.store.record_daily(daily["day"], entry)
        except KingsCornerError as exc:
            log.warning("could not record match %s: %s", record["id"], exc.code)

    async def _leaderboard(self, conn: Connection, msg: Leaderboard) -> None:
        entries, day = await self.leaderboard(msg.board, msg.day)
        conn.send(
            dumps({"type": "leaderboard", "board": msg.board, "day": day, "entries": entries})
        )

    async def leaderboard(
        self, board: str, day: str | None
    ) -> tuple[list[dict[str, Any]], str | None]:
        if board == "alltime":
            return await self.store.alltime_board(), None
        day = day or today()
        return await self.store.daily_board(day), day

    async def _my_matches(self, conn: Connection, msg: MyMatches) -> None:
        conn.send(dumps({"type": "matches", "matches": await self.match_summaries(conn.player_id)}))

    async def match_summaries(self, player: str) -> list[dict[str, Any]]:
        """The player's finished matches, newest first, with the seat they played."""
        summaries = []
        for match_id in await self.store.player_matches(player):
            record = await self.store.get_match(match_id)
            if record is not None:
                keys = ("id", "room", "finished_at", "seats", "totals", "winners", "daily")
                summary = {k: record.get(k) for k in keys}
                players = record.get("players") or []
                summary["seat"] = players.index(player) if player in players else None
                summaries.append(summary)
        return summaries

    _handlers: ClassVar[dict[type, Callable[..., Awaitable[None]]]] = {
        Create: _create,
        Join: _join,
        Sit: _sit,
        Start: _start,
        Act: _act,
        NextHand: _next_hand,
        Resync: _resync,
        Leave: _leave,
        Chat: _chat,
        QuickPlay: _quick_play,
        CancelQuickPlay: _cancel_quick_play,
        ListRooms: _list_rooms,
        Hint: _hint,
        Ready: _ready,
        Configure: _configure,
        AddBot: _add_bot,
        RemoveBot: _remove_bot,
        Kick: _kick,
        Lock: _lock,
        Rematch: _rematch,
        Back: _back,
        Daily: _daily,
        Leaderboard: _leaderboard,
        MyMatches: _my_matches,
    }

    async def _disconnect(self, conn: Connection) -> None:
        try:
            await self.lobby.cancel(conn)
            live = conn.room
            if live is not None:
                async with live.lock:
                    live.detach(conn)
        except KingsCornerError as exc:
            log.info("cleanup of %s incomplete: %s", conn.id, exc.code)

    # --- HTTP ---------------------------------------------------------------------------

    async def process_request(self, ws: ServerConnection, request: Request) -> Response | None:
        """Plain HTTP on the same port: health and the web client.

        A request that cannot name anything here is answered 400 or 404 and logged at INFO:
        what this raises, websockets answers with 500 and logs as a server error.
        """
        problem = _malformed(request)
        if problem is not None:
            log.info("bad HTTP request: %s", problem)
            return _response(HTTPStatus.BAD_REQUEST, f"bad request: {problem}\n", "text/plain")
        if len(request.path) > _MAX_PATH:
            log.info("HTTP request path too long: %d characters", len(request.path))
            return _response(HTTPStatus.NOT_FOUND, "not found\n", "text/plain")
        if request.headers.get("Upgrade", "").lower() == "websocket":
            if not self.store_up:
                # Let a load balancer send this player to a replica that can reach the store.
                return _response(
                    HTTPStatus.SERVICE_UNAVAILABLE, "store unavailable\n", "text/plain"
                )
            return None
        path = request.path.split("?", 1)[0]
        if path == "/healthz":
            ok = await self.store.ping()
            body = dumps({"status": "ok" if ok else "degraded", "store": "up" if ok else "down"})
            return _response(
                HTTPStatus.OK if ok else HTTPStatus.SERVICE_UNAVAILABLE, body, "application/json"
            )
        if path == "/readyz":
            ok = await self.store.ping()
            ready = ok and not self.closing
            body = dumps({"ready": ready, "store": "up" if ok else "down", "closing": self.closing})
            status = HTTPStatus.OK if ready else HTTPStatus.SERVICE_UNAVAILABLE
            return _response(status, body, "application/json")
        if path == "/metrics":
            return _response(HTTPStatus.OK, self.metrics.render(), CONTENT_TYPE_LATEST)
        if path.startswith("/api/"):
            status, payload = await api.handle(self, request)
            return _response(status, dumps(payload), "application/json")
        if path.startswith("/admin/"):
            status, payload = await admin.handle(self, request)
            return _response(status, dumps(payload), "application/json")
        if path == "/":
            path = "/index.html"
        try:
            target = (WEB_ROOT / path.lstrip("/")).resolve()
            if WEB_ROOT in target.parents and target.is_file():
                kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
                return _response(HTTPStatus.OK, target.read_bytes(), kind)
        except (OSError, ValueError) as exc:  # e.g. a name longer than the file system takes
            log.info("HTTP path not served: %s", type(exc).__name__)
        return _response(HTTPStatus.NOT_FOUND, "not found\n", "text/plain")

    # --- life ---------------------------------------------------------------------------

    async def shutdown(self) -> None:
        """Stop accepting, tell every client, and close (the store keeps the rooms).

        Every connection closes at the same time, all within ``shutdown_timeout`` seconds:
        the TCP connections of peers that have not completed the closing handshake by then
        are dropped. Connection handlers then get a moment to finish their cleanup.
        """
        if self.closing:
            return
        self.closing = True
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settings.shutdown_timeout
        if self._maintenance is not None:
            self._maintenance.cancel()
        if self.ws_server is not None:
            self.ws_server.close(close_connections=False)
        frame = dumps({"type": "closing", "reason": "The server is restarting; reconnect shortly."})
        conns = list(self.connections)
        for conn in conns:
            if conn.open:
                conn.send(frame)
        closes = [asyncio.ensure_future(_close_for_shutdown(conn)) for conn in conns]
        if closes:
            await asyncio.wait(closes, timeout=max(0.0, deadline - loop.time()))
        for task in closes:
            task.cancel()
        dropped = 0
        for conn in conns:
            if conn.ws.state is not State.CLOSED:
                conn.ws.transport.abort()
                dropped += 1
        if dropped:
            log.warning("shutdown: dropped %d connections that did not close in time", dropped)
        if self.ws_server is not None:
            # Every handler finishes its cleanup (after an abort that is at once); a
            # handshake still in progress is not waited for past the deadline.
            wait = max(deadline - loop.time(), _CLEANUP_WAIT)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self.ws_server.wait_closed()), wait)
        for live in list(self.lobby.rooms.values()):
            live.close()
        for task in list(self.tasks):
            task.cancel()
        self._bot_pool.shutdown(wait=False, cancel_futures=True)
        await self.store.close()


#: Longest request path (with its query) served; longer ones get 404 without a look.
_MAX_PATH = 1024
#: Request headers read here that must come at most once (admin checks its own).
_SINGLE_HEADERS = ("Upgrade",)


def _malformed(request: Request) -> str | None:
    """What makes ``request`` unanswerable, if anything: a control or non-ASCII character
    in its path, or a header given twice that must come once."""
    if any(not 0x20 < ord(ch) < 0x7F for ch in request.path):
        return "control or non-ASCII character in the path"
    for name in _SINGLE_HEADERS:
        if len(request.headers.get_all(name)) > 1:
            return f"more than one {name} header"
    return None


async def _close_for_shutdown(conn: Connection) -> None:
    """Send what is queued for ``conn`` (the ``closing`` notice), then close it (1001)."""
    await conn.flush(1.0)
    await conn.ws.close(1001, "server shutting down")


def _response(status: HTTPStatus, body: str | bytes, kind: str) -> Response:
    data = body.encode() if isinstance(body, str) else body
    textual = kind.startswith("text/") or kind.endswith(("json", "javascript"))
    if textual and "charset=" not in kind:
        kind += "; charset=utf-8"  # once: Prometheus's content type names its own
    headers = Headers(
        [
            ("Content-Type", kind),
            ("Content-Length", str(len(data))),
            ("Cache-Control", "no-cache"),
            ("X-Content-Type-Options", "nosniff"),
        ]
    )
    return Response(status.value, status.phrase, headers, data)


def player_id(token: str) -> str:
    """The public id of a secret player token."""
    return hashlib.sha256(b"player:" + token.encode()).hexdigest()[:16]


def today() -> str:
    """Today's date in UTC, as the daily deal counts days."""
    return datetime.datetime.now(datetime.UTC).date().isoformat()


def _seated(live: Any, conn: Connection) -> int:
    """The seat ``conn`` holds now in ``live`` (see :meth:`LiveRoom.seat_of`), or refuse."""
    seat: int | None = live.seat_of(conn)
    if seat is None:
        raise NotSeated()
    return seat


def _clean(text: str) -> str:
    """Drop control characters and surrounding blanks from names and chat."""
    return "".join(ch for ch in text if ch.isprintable()).strip()


async def make_store(settings: Settings) -> Store:
    """The store the settings ask for: Redis when a URL is given, memory otherwise."""
    if settings.redis_url:
        import importlib

        redis_store = importlib.import_module("server.store.redis_store")
        try:
            store: Store = redis_store.RedisStore(settings.redis_url, settings.redis_prefix)
        except ValueError as exc:
            raise SystemExit(f"kings-corner: bad --redis-url: {exc}") from None
        return store
    from .store.memory import MemoryStore

    return MemoryStore()


async def start_server(settings: Settings, store: Store | None = None) -> GameServer:
    """Start serving; ``settings.port`` 0 picks a free port (read it from ``server.port``)."""
    if store is None:
        store = await make_store(settings)
    game = GameServer(settings, store)
    try:
        await store.subscribe(f"proc:{settings.process_id}")
        await store.subscribe("admin")
    except StoreUnavailable:
        log.warning("store unreachable at start; serving anyway and retrying")
    game._maintenance = asyncio.create_task(game.maintain())
    game.ws_server = await serve(
        game.handle,
        settings.host,
        settings.port,
        process_request=game.process_request,
        origins=settings.origin_list,  # type: ignore[arg-type]
        compression="deflate" if settings.compression else None,
        max_size=settings.max_message,
        ping_interval=settings.ping_interval,
        ping_timeout=settings.ping_timeout,
        close_timeout=settings.close_timeout,
        server_header=SERVER_NAME,
        backlog=settings.backlog,
    )
    return game


def port_of(game: GameServer) -> int:
    assert game.ws_server is not None
    sock = next(iter(game.ws_server.sockets))
    port: int = sock.getsockname()[1]
    return port


#: Allocations between two collections of the youngest generation (Python's default: 700).
GC_YOUNG = 50_000


def tune_gc() -> None:
    """Collect less often: nearly everything a move allocates (views, patches, frames)
    is freed by reference counting within the move, so frequent collections find little,
    yet each older collection walks every room's documents. At 1,000 rooms the default
    thresholds cost about a fifth of the server's CPU (docs/performance.md). What is
    alive at start-up is frozen out of collections for good."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG, middle, old)


async def run(settings: Settings) -> None:
    """Serve until SIGINT or SIGTERM, then shut down gracefully."""
    game = await start_server(settings)
    tune_gc()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    log.info("serving on http://%s:%d/", settings.host, port_of(game))
    print(f"kings-corner serving on http://{settings.host}:{port_of(game)}/", flush=True)
    await stop.wait()
    await game.shutdown()
