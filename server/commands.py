"""What each client message does: one function per message type, and the table of them.

The messages about rooms and play are here; those about who you are and your records
(``hello``, ``profile``, ``rename``, recovery codes, ``leaderboard``, ``my_matches``) are in
:mod:`server.account_commands`, registered in the same :data:`HANDLERS`. Every function
receives the process's :class:`~server.command_context.Services`, the connection that sent the
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
from typing import Any

from protocol.bots import explain
from protocol.engine import DRAW, END_TURN, Action, move_of, play_of, seat_view
from protocol.errors import (
    BadMessage,
    KingsCornerError,
    NotHello,
    NotInRoom,
    NotSeated,
    NotYourTurn,
    RateLimited,
    TooManyRooms,
)
from protocol.frames import data, frame
from protocol.messages import (
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
    Hello,
    Hint,
    HintReason,
    HintReply,
    Join,
    Kick,
    Leaderboard,
    Leave,
    Left,
    ListRooms,
    Lock,
    MoveAction,
    MyMatches,
    NextHand,
    Patch,
    PlayAction,
    Profile,
    Queued,
    QuickPlay,
    Ready,
    Recover,
    RecoveryCode,
    Rematch,
    RemoveBot,
    Rename,
    Resync,
    Rooms,
    Sit,
    Start,
)

from .account_commands import (
    hello,
    leaderboard,
    my_matches,
    profile,
    recover,
    recovery_code,
    rename,
)
from .command_context import Services, hung_up_on_guesser, not_in_room
from .live_room import LiveRoom, RoomConnection
from .room import Room, check_phase
from .store.base import Event

log = logging.getLogger(__name__)


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
    not_in_room(conn)
    _may_get_room(s, conn)
    live = await s.lobby.create(msg.options)
    conn.rooms_created += 1
    if msg.spectate:
        await s.lobby.spectate(conn, live)
    else:
        await s.lobby.join_seat(conn, live, None)


async def join(s: Services, conn: RoomConnection, msg: Join) -> None:
    """Join ``msg.room``; a missed code or seat token counts as a failed join, and a busy
    address waits its turn for the lookup (see :class:`~server.guard.JoinGuard`)."""
    not_in_room(conn)
    if hung_up_on_guesser(s, conn, "Too many failed joins; wait a minute before trying again."):
        return
    if msg.token is None and not msg.spectate:
        await s.lobby.give_tag(conn)  # outside the guarded lookup: it holds a join slot
    async with s.guard.lookup(conn):
        if msg.token is not None:
            await s.lobby.rejoin(conn, msg.room, msg.token)
        else:
            live = await s.lobby.get(msg.room)
            if msg.spectate:
                await s.lobby.spectate(conn, live)
            else:
                await s.lobby.join_seat(conn, live, msg.seat)
    if conn.room is not None:
        await s.lobby.tell_chat(conn, conn.room)


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
    not_in_room(conn)
    _may_get_room(s, conn)  # the table formed for it counts (Lobby.matched)
    await s.lobby.enqueue(conn, msg.seats)


async def cancel_quick_play(s: Services, conn: RoomConnection, msg: CancelQuickPlay) -> None:
    await s.lobby.cancel(conn)
    # The answer whether or not a ticket was waiting: you are not in the queue now.
    conn.send(frame(Queued, seats=None))


async def list_rooms(s: Services, conn: RoomConnection, msg: ListRooms) -> None:
    conn.send(frame(Rooms, rooms=await s.lobby.listings()))


async def daily(s: Services, conn: RoomConnection, msg: Daily) -> None:
    not_in_room(conn)
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
    # The id lets a client that gets the line twice (live, and in a chat_history sent while
    # the announcement was on its way) show it once.
    kept = {"id": secrets.token_hex(6), "seat": conn.seat, "name": conn.name, "text": text}
    await s.store.add_chat(live.code, kept)  # for who comes later (Lobby.tell_chat)
    await s.store.publish(f"room:{live.code}", {"kind": "chat", "room": live.code, **kept})


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
