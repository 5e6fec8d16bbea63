"""What each client message does: one function per message type, and the table of them.

Every function receives the process's :class:`Services`, the connection that sent the
message and the validated message. A refusal is raised as a
:class:`~protocol.errors.ClientError` (the socket layer answers it, with nothing changed);
a change to a room goes through :meth:`LiveRoom.commit`, which decides it under the room's
lock from the seat the connection holds *then*.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from protocol.bots import explain
from protocol.engine import DRAW, END_TURN, Action, move_of, play_of, seat_view
from protocol.errors import (
    AlreadyInRoom,
    BadMessage,
    BadName,
    BadPhase,
    IdentityRevoked,
    KingsCornerError,
    NotHello,
    NotInRoom,
    NotSeated,
    NotYourTurn,
    RateLimited,
    TooManyRooms,
    UnsupportedVersion,
)
from protocol.frames import data, frame
from protocol.messages import (
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
    DrawAction,
    EndTurnAction,
    Error,
    Hello,
    Hint,
    HintReason,
    HintReply,
    Join,
    Kick,
    Leaderboard,
    LeaderboardReply,
    Leave,
    Left,
    ListRooms,
    Lock,
    Matches,
    MoveAction,
    MyMatches,
    NextHand,
    Patch,
    PlayAction,
    Profile,
    ProfileReply,
    Queued,
    QuickPlay,
    Ready,
    Recover,
    RecoveryCode,
    RecoveryCodeReply,
    Rematch,
    RemoveBot,
    Rename,
    Resync,
    Rooms,
    Sit,
    Start,
    Welcome,
)

from .bots import BotRunner
from .config import Settings
from .guard import JoinGuard
from .identity import Identities, display_name, player_id
from .live_room import LiveRoom, RoomConnection
from .lobby import Lobby
from .metrics import Metrics
from .records import Records
from .room import Room, check_phase
from .store.base import Event, Store

log = logging.getLogger(__name__)
SERVER_NAME = "kings-corner/0.1"
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


async def dispatch(s: Services, conn: RoomConnection, message: ClientMessage) -> None:
    """Carry out ``message`` for ``conn``: ``hello`` first, then anything in the table."""
    if isinstance(message, Hello):
        await hello(s, conn, message)
        return
    if not conn.greeted:
        raise NotHello()
    handler = HANDLERS.get(type(message))
    if handler is None:  # pragma: no cover - every message type has a handler
        raise BadMessage()
    await handler(s, conn, message)


async def hello(s: Services, conn: RoomConnection, message: Hello) -> None:
    """Greet ``conn`` as the identity of ``message.player`` (or its own, or a new one):
    ``bad_name`` for a name that cannot be one, ``identity_revoked`` for a token a newer
    recovery code revoked. An identity with a kept name goes by it.

    A connection is greeted once: a second ``hello`` after its ``welcome`` is refused with
    ``bad_phase`` (``command`` ``hello``, ``reason`` ``greeted``), and the connection keeps
    its identity, name and protocol version. Only a connection whose identity a recovery
    code signed out meanwhile gets ``identity_revoked`` instead, after which it is nobody
    and a hello greets it again (docs/protocol.md, "Identity")."""
    if conn.greeted:
        await _still_signed_in(s, conn)
        raise BadPhase(
            "This connection has said hello already; reconnect to start over.",
            command="hello",
            reason="greeted",
        )
    if message.version not in SUPPORTED_VERSIONS:
        supported = sorted(SUPPORTED_VERSIONS)
        raise UnsupportedVersion(
            f"This server speaks protocol versions {', '.join(map(str, supported))}.",
            supported=supported,
        )
    name = display_name(message.name)
    tag: str | None = None  # given once the identity is shown or kept, not for a hello
    # (A connection signed out is nobody again: its token is "" and a hello greets it.)
    token = message.player or conn.player_token
    if token:
        try:
            player, known = await s.identities.resolve(token)  # the one store read
        except IdentityRevoked:
            if token == conn.player_token:
                # Signed out: this connection is nobody until a hello without a token,
                # which starts a new identity (a seat it holds stays its own).
                conn.player_token, conn.greeted = "", False
            raise
        if known.name is not None:
            if _still_a_name(known.name):
                # The kept name wins over the hello's; only a rename changes it.
                name, tag = known.name, known.tag
                if tag is None:  # kept before tags were
                    name, tag = await s.store.name_and_tag(player, name)
            else:  # kept before the name rules: replaced by this one
                tag = await s.store.set_name(player, name)
    else:
        # A new identity costs the store nothing until it does something.
        token = secrets.token_urlsafe(24)
        player = player_id(token)
    conn.name = name
    conn.player_token, conn.player_id = token, player
    conn.greeted = True
    conn.protocol = message.version
    _welcome(conn, tag)


async def _still_signed_in(s: Services, conn: RoomConnection) -> None:
    """Raise ``identity_revoked`` (and make ``conn`` nobody) when a newer recovery code
    signed its identity out."""
    try:
        await s.identities.resolve(conn.player_token)
    except IdentityRevoked:
        conn.player_token, conn.greeted = "", False
        raise


def _still_a_name(kept: str) -> bool:
    """Whether a kept name passes today's rules unchanged."""
    try:
        return display_name(kept) == kept
    except BadName:
        return False


def _welcome(conn: RoomConnection, tag: str | None) -> None:
    conn.tag = tag
    welcome = frame(
        Welcome,
        version=conn.protocol,
        server=SERVER_NAME,
        player=conn.player_token,
        player_id=conn.player_id,
        tag=tag,
        name=conn.name,
    )
    conn.send(welcome)


# --- getting into rooms ---------------------------------------------------------------


def _may_get_room(s: Services, conn: RoomConnection) -> None:
    """Refuse a new room to a connection that was given ``rooms_per_connection``
    already: created, daily deals and quick-play tables all count."""
    limit = s.settings.rooms_per_connection
    if conn.rooms_created >= limit:
        raise TooManyRooms(
            f"A connection may create {limit} rooms (daily deals and quick play count too).",
            limit=limit,
        )


def _not_in_room(conn: RoomConnection) -> None:
    if conn.room is not None:
        raise AlreadyInRoom(reason="in_room")
    if conn.ticket is not None:
        raise AlreadyInRoom("You are waiting for quick play; cancel it first.", reason="queued")


def _room(conn: RoomConnection) -> LiveRoom:
    if conn.room is None:
        raise NotInRoom()
    return conn.room


def _seated(live: LiveRoom, conn: RoomConnection) -> int:
    """The seat ``conn`` holds now in ``live`` (see :meth:`LiveRoom.seat_of`), or refuse."""
    seat = live.seat_of(conn)
    if seat is None:
        raise NotSeated()
    return seat


async def create(s: Services, conn: RoomConnection, msg: Create) -> None:
    _not_in_room(conn)
    _may_get_room(s, conn)
    live = await s.lobby.create(msg.options)
    conn.rooms_created += 1
    if msg.spectate:
        await s.lobby.spectate(conn, live)
    else:
        await s.lobby.join_seat(conn, live, None)


def _hung_up_on_guesser(s: Services, conn: RoomConnection, message: str) -> bool:
    """A connection over its own failed-join limit is one guesser: refuse its ``join`` or
    ``recover`` without looking anything up, and close it (1008). True when it was."""
    if not s.guard.closes(conn):
        return False
    s.metrics.count(s.metrics.join_limited, "connection")
    log.info("closing after too many failed joins", extra={"limit": "connection"})
    refuse(conn, RateLimited(message, reason="failed_joins"), None)
    conn.close_after_queue(POLICY_VIOLATION, "too many failed joins")
    return True


async def join(s: Services, conn: RoomConnection, msg: Join) -> None:
    """Join ``msg.room``; a missed code or seat token counts as a failed join, and a busy
    address waits its turn for the lookup (see :class:`~server.guard.JoinGuard`)."""
    _not_in_room(conn)
    if _hung_up_on_guesser(s, conn, "Too many failed joins; wait a minute before trying again."):
        return
    async with s.guard.lookup(conn):
        if msg.token is not None:
            await s.lobby.rejoin(conn, msg.room, msg.token)
            return
        live = await s.lobby.get(msg.room)
        if msg.spectate:
            await s.lobby.spectate(conn, live)
            return
        await s.lobby.join_seat(conn, live, msg.seat)


async def sit(s: Services, conn: RoomConnection, msg: Sit) -> None:
    live = _room(conn)
    if conn.seat is None:
        # join_seat moves the spectator only once the seat is really theirs.
        await s.lobby.join_seat(conn, live, msg.seat)
        return
    # Every connection of the seat follows it there (LiveRoom rebinds them).
    await live.commit(lambda r: [r.decide_move_seat(_seated(live, conn), msg.seat)])


async def leave(s: Services, conn: RoomConnection, msg: Leave) -> None:
    live = _room(conn)
    code, digest = live.code, conn.seat_hash
    async with live.lock:
        live.detach(conn, quiet=True)

    def decide(room: Room) -> list[Event]:
        # The seat this person holds when the leave is decided, not when it was asked.
        seat = room.seat_of_hash(digest)
        return [] if seat is None else [room.decide_leave(seat)]

    if digest is not None:
        await live.commit(decide)
    conn.send(frame(Left, room=code))


async def quick_play(s: Services, conn: RoomConnection, msg: QuickPlay) -> None:
    _not_in_room(conn)
    _may_get_room(s, conn)  # the table formed for it counts (Lobby.matched)
    await s.lobby.enqueue(conn, msg.seats)


async def cancel_quick_play(s: Services, conn: RoomConnection, msg: CancelQuickPlay) -> None:
    await s.lobby.cancel(conn)
    # The answer whether or not a ticket was waiting: you are not in the queue now.
    conn.send(frame(Queued, seats=None))


async def list_rooms(s: Services, conn: RoomConnection, msg: ListRooms) -> None:
    conn.send(frame(Rooms, rooms=await s.lobby.listings()))


async def daily(s: Services, conn: RoomConnection, msg: Daily) -> None:
    _not_in_room(conn)
    _may_get_room(s, conn)  # before claiming: a refused daily keeps the ranked try
    options, deal = await s.records.daily_deal(conn.player_id)
    live = await s.lobby.create(options, deal)
    conn.rooms_created += 1
    await s.lobby.join_seat(conn, live, 0)
    await live.commit(lambda r: r.decide_start(0, None))


# --- playing --------------------------------------------------------------------------


async def start(s: Services, conn: RoomConnection, msg: Start) -> None:
    live = _room(conn)
    await live.commit(lambda r: r.decide_start(live.seat_of(conn), msg.fill))


def _engine_action(model: PlayAction | MoveAction | DrawAction | EndTurnAction) -> Action:
    """The engine's action for an ``act`` message's ``action`` (the shape is checked)."""
    if isinstance(model, PlayAction):
        return play_of(model.card, model.pile)
    if isinstance(model, MoveAction):
        return move_of(model.from_, model.to)
    if isinstance(model, DrawAction):
        return DRAW
    return END_TURN


async def act(s: Services, conn: RoomConnection, msg: Act) -> None:
    started = time.perf_counter()
    live = _room(conn)
    metrics = s.metrics
    try:
        action = _engine_action(msg.action)
        await live.commit(
            lambda r: r.decide_act(live.seat_of(conn), action), actor=conn, seq=msg.seq
        )
    except KingsCornerError as exc:  # the client's fault or the store's (store_full, ...)
        metrics.count(metrics.actions, "refused", exc.code)
        raise
    metrics.count(metrics.actions, "accepted", "")
    metrics.act_latency.observe(time.perf_counter() - started)
    if log.isEnabledFor(logging.DEBUG):
        # The action is public once accepted (the card is on the table now).
        log.debug("accepted %s", action.text(), extra={"action": action.text()})


async def next_hand(s: Services, conn: RoomConnection, msg: NextHand) -> None:
    live = _room(conn)

    def decide(room: Room) -> list[Event]:
        _seated(live, conn)
        return [room.decide_next_hand()]

    await live.commit(decide)


async def resync(s: Services, conn: RoomConnection, msg: Resync) -> None:
    live = _room(conn)
    async with live.lock:
        live.send_snapshot(conn)


async def hint(s: Services, conn: RoomConnection, msg: Hint) -> None:
    live = _room(conn)
    if live.seat_of(conn) is None:
        raise NotSeated()
    check_phase(live.room.phase, "hint")
    room = live.room
    assert room.match is not None
    seat = conn.seat
    if room.match.position.turn != seat:
        raise NotYourTurn("Hints are for your own turn.", reason="hint")
    view = seat_view(room.match, seat)
    cached = live.hints.get(seat)
    if cached is not None and cached[0] == room.version:
        action = cached[1]
    else:
        asked = live.hints_asked.get(seat)
        count = asked[1] + 1 if asked is not None and asked[0] == room.turn_key else 1
        if count > s.settings.hints_per_turn:
            limit = s.settings.hints_per_turn
            raise RateLimited(f"At most {limit} hints per turn.", reason="hints", limit=limit)
        live.hints_asked[seat] = (room.turn_key, count)
        action = await s.bots.hint(view)
        live.hints[seat] = (room.version, action)
    if live.seat_of(conn) != seat:
        raise NotSeated()  # the seat changed hands while the hint was computed
    # Why, in the view the suggestion came from.
    code, params = explain(view, action, room.match.options.draw)
    reason = data(HintReason, code=code, params=params)
    conn.send(frame(HintReply, action=action.wire(), text=action.text(), reason=reason))


async def chat(s: Services, conn: RoomConnection, msg: Chat) -> None:
    live = _room(conn)
    text = clean(msg.text)
    if not text:
        raise BadMessage("Chat text is empty.", reason="empty_chat")
    if not live.chat_budget.take():
        raise RateLimited("This room's chat is busy; wait a moment.", reason="room_chat")
    line = {"kind": "chat", "room": live.code, "seat": conn.seat, "name": conn.name, "text": text}
    await s.store.publish(f"room:{live.code}", line)


# --- the waiting room and the host ----------------------------------------------------


async def _answered(
    conn: RoomConnection, live: LiveRoom, decide: Callable[[Room], list[Event]]
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
        conn.send(frame(Patch, from_=version, to=version, ops=[]))


async def ready(s: Services, conn: RoomConnection, msg: Ready) -> None:
    live = _room(conn)
    await _answered(conn, live, lambda r: r.decide_ready(live.seat_of(conn), msg.ready))


async def configure(s: Services, conn: RoomConnection, msg: Configure) -> None:
    live = _room(conn)
    await live.commit(lambda r: r.decide_configure(live.seat_of(conn), msg.options))


async def add_bot(s: Services, conn: RoomConnection, msg: AddBot) -> None:
    live = _room(conn)
    await live.commit(lambda r: [r.decide_add_bot(live.seat_of(conn), msg.seat, msg.level)])


async def remove_bot(s: Services, conn: RoomConnection, msg: RemoveBot) -> None:
    live = _room(conn)
    await live.commit(lambda r: [r.decide_remove_bot(live.seat_of(conn), msg.seat)])


async def kick(s: Services, conn: RoomConnection, msg: Kick) -> None:
    live = _room(conn)
    await live.commit(lambda r: [r.decide_kick(live.seat_of(conn), msg.seat)])


async def lock(s: Services, conn: RoomConnection, msg: Lock) -> None:
    live = _room(conn)
    await _answered(conn, live, lambda r: r.decide_lock(live.seat_of(conn), msg.locked))


async def rematch(s: Services, conn: RoomConnection, msg: Rematch) -> None:
    live = _room(conn)
    await _answered(conn, live, lambda r: r.decide_rematch(live.seat_of(conn), msg.force))


async def back(s: Services, conn: RoomConnection, msg: Back) -> None:
    live = _room(conn)
    await _answered(conn, live, lambda r: r.decide_back(live.seat_of(conn)))


# --- records --------------------------------------------------------------------------


async def leaderboard(s: Services, conn: RoomConnection, msg: Leaderboard) -> None:
    entries, day = await s.records.leaderboard(msg.board, msg.day)
    conn.send(frame(LeaderboardReply, board=msg.board, day=day, entries=entries))


async def my_matches(s: Services, conn: RoomConnection, msg: MyMatches) -> None:
    matches = await s.records.match_summaries(conn.player_id)
    conn.send(frame(Matches, matches=matches))


# --- identity ---------------------------------------------------------------------------


async def profile(s: Services, conn: RoomConnection, msg: Profile) -> None:
    """How ``conn``'s identity stands; its name and tag are kept from now on, and the
    connection goes by the kept name (another device may have renamed it)."""
    reply = await s.records.profile(conn.player_id, conn.name)
    conn.name, conn.tag = reply["name"], reply.get("tag")
    conn.send(frame(ProfileReply, **reply))


async def rename(s: Services, conn: RoomConnection, msg: Rename) -> None:
    """Go by ``msg.name``: kept, with a new tag when another player of that name holds
    this one's; a device signed out by a newer recovery code renames nobody."""
    name = display_name(msg.name)
    await s.identities.resolve(conn.player_token)
    await s.store.set_name(conn.player_id, name)
    conn.name = name
    await profile(s, conn, Profile(type="profile"))


async def recovery_code(s: Services, conn: RoomConnection, msg: RecoveryCode) -> None:
    """A new recovery code: every other device of the identity is signed out, and this
    one gets a new token, in the one answer with the code."""
    await s.identities.resolve(conn.player_token)  # a device signed out keeps nothing
    # Kept before the code is made: a failure after it would leave this device signed out.
    conn.name, _ = await s.store.name_and_tag(conn.player_id, conn.name)
    code, token = await s.identities.new_code(conn.player_token)
    conn.player_token = token
    conn.send(frame(RecoveryCodeReply, code=code, player=token))


async def recover(s: Services, conn: RoomConnection, msg: Recover) -> None:
    """Become the player ``msg.code`` belongs to; a wrong code counts as a failed join."""
    _not_in_room(conn)
    if _hung_up_on_guesser(s, conn, "Too many wrong codes; wait a minute before trying again."):
        return
    async with s.guard.lookup(conn):
        player, token = await s.identities.redeem(msg.code)
    conn.player_token, conn.player_id = token, player
    # The recovered identity's kept name (this connection's when it has none yet).
    conn.name, tag = await s.store.name_and_tag(player, conn.name)
    log.info("identity recovered")  # never the code or the token
    _welcome(conn, tag)


def clean(text: str) -> str:
    """Drop control characters and surrounding blanks from chat (names have their own
    rules: :func:`~server.identity.display_name`)."""
    return "".join(ch for ch in text if ch.isprintable()).strip()


Handler = Callable[[Services, RoomConnection, Any], Awaitable[None]]
#: Every client message after ``hello``, by type.
HANDLERS: dict[type, Handler] = {
    Create: create,
    Join: join,
    Sit: sit,
    Start: start,
    Act: act,
    NextHand: next_hand,
    Resync: resync,
    Leave: leave,
    Chat: chat,
    QuickPlay: quick_play,
    CancelQuickPlay: cancel_quick_play,
    ListRooms: list_rooms,
    Hint: hint,
    Ready: ready,
    Configure: configure,
    AddBot: add_bot,
    RemoveBot: remove_bot,
    Kick: kick,
    Lock: lock,
    Rematch: rematch,
    Back: back,
    Daily: daily,
    Leaderboard: leaderboard,
    MyMatches: my_matches,
    Profile: profile,
    Rename: rename,
    RecoveryCode: recovery_code,
    Recover: recover,
}
