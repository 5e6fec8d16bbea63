"""The embedded default store: everything in this process's memory."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import secrets
import time
from collections import deque
from collections.abc import Coroutine, Sequence
from typing import TYPE_CHECKING, Any

from protocol.errors import Conflict, KingsCornerError, RoomNotFound

from .. import eager
from .base import (
    CHAT_KEPT,
    CLOSED_KEPT_S,
    HISTORY_LIMIT,
    TAG_ROUNDS,
    AnnouncementStore,
    Event,
    Handler,
    IdentityStore,
    Known,
    MatchmakingStore,
    Message,
    PresenceStore,
    RecordStore,
    RoomStore,
    SecretStore,
    StandingStore,
    Store,
    board_row,
    head_of,
    members_by_room,
    name_key,
    tag_candidates,
)

log = logging.getLogger(__name__)
#: Matches still being played whose judged hands are kept (the most recently judged).
REVIEW_HANDS_KEPT = 4096


class MemoryStore:
    """A :class:`~server.store.base.Store` for one process; nothing survives a restart.

    Its methods come in the order of the roles :class:`~server.store.base.Store` combines.
    """

    inline = True
    #: Nothing published here is ever missed (AnnouncementStore.gaps).
    gaps = 0

    def __init__(self) -> None:
        self._rooms: dict[str, list[Event]] = {}
        self._chat: dict[str, deque[Message]] = {}
        self._listing: dict[str, dict[str, Any]] = {}
        self._subscribed: set[str] = set()
        self._handler: Handler | None = None
        #: process -> (expiry, room code -> that process's members in the room)
        self._members: dict[str, tuple[float, dict[str, list[dict[str, Any]]]]] = {}
        self._queues: dict[int, list[dict[str, Any]]] = {}
        self._leases: dict[str, tuple[str, float]] = {}
        self._closed: dict[str, float] = {}  # room code -> when its closed mark lapses
        self._secrets: dict[str, str] = {}
        self._matches: dict[str, dict[str, Any]] = {}
        self._reviews: dict[str, dict[str, Any]] = {}
        #: Hands judged of matches still being played, the most recently judged last.
        self._review_hands: dict[str, dict[int, dict[str, Any]]] = {}
        self._histories: dict[str, list[str]] = {}
        self._claims: dict[str, set[str]] = {}
        self._daily: dict[str, dict[str, dict[str, Any]]] = {}
        self._stats: dict[str, dict[str, Any]] = {}
        self._names: dict[str, str] = {}
        self._tags: dict[str, tuple[str, str]] = {}  # player -> (tag, name key)
        self._tagged: dict[tuple[str, str], str] = {}  # (tag, name key) -> player
        self._generations: dict[str, int] = {}
        self._recovery: dict[str, str] = {}  # code hash -> player
        self._recovery_of: dict[str, str] = {}  # player -> code hash
        self._ratings: dict[str, dict[str, Any]] = {}
        self._rating_board: dict[str, float] = {}

    # --- RoomStore: event logs and the public listing -------------------------------------

    async def create_room(self, code: str, first: Event) -> bool:
        if code in self._rooms:
            return False
        self._rooms[code] = [first]
        return True

    async def append(
        self,
        code: str,
        expected: int,
        events: Sequence[Event],
        announce: Message | None = None,
        head: str | None = None,
    ) -> int:
        log = self._rooms.get(code)
        if log is None:
            raise RoomNotFound()
        if len(log) != expected or (head is not None and head_of(log) != head):
            raise Conflict()
        log.extend(events)
        if announce is not None:
            await self.publish(f"room:{code}", announce)
        return len(log)

    async def read(self, code: str, after: int = 0) -> list[Event]:
        log = self._rooms.get(code)
        if log is None:
            raise RoomNotFound()
        return log[after:]

    async def delete_room(self, code: str, *, closed: bool = False) -> None:
        self._rooms.pop(code, None)
        self._chat.pop(code, None)
        self._listing.pop(code, None)
        self._leases.pop(code, None)
        now = time.monotonic()
        self._closed = {c: t for c, t in self._closed.items() if t > now}
        if closed:
            self._closed[code] = now + CLOSED_KEPT_S

    async def was_closed(self, code: str) -> bool:
        return self._closed.get(code, 0.0) > time.monotonic()

    async def add_chat(self, code: str, line: Message) -> None:
        if code in self._rooms:  # a room deleted meanwhile keeps nothing
            self._chat.setdefault(code, deque(maxlen=CHAT_KEPT)).append(line)

    async def chat_lines(self, code: str) -> list[Message]:
        return list(self._chat.get(code, ()))

    async def room_codes(self) -> list[str]:
        return list(self._rooms)

    async def set_listing(self, code: str, summary: dict[str, Any] | None) -> None:
        if summary is None:
            self._listing.pop(code, None)
        else:
            self._listing[code] = summary

    async def listings(self) -> list[dict[str, Any]]:
        return list(self._listing.values())

    # --- AnnouncementStore ----------------------------------------------------------------

    def set_handler(self, handler: Handler) -> None:
        self._handler = handler

    async def subscribe(self, channel: str) -> None:
        self._subscribed.add(channel)

    async def unsubscribe(self, channel: str) -> None:
        self._subscribed.discard(channel)

    async def publish(self, channel: str, message: Message) -> None:
        if channel in self._subscribed and self._handler is not None:
            # Delivered later, as a real broker would, never inside the publisher's call.
            asyncio.get_running_loop().call_soon(self._deliver, channel, message)

    def _deliver(self, channel: str, message: Message) -> None:
        if self._handler is None:
            return
        coro = self._handler(channel, message)
        if channel.startswith("room:") and isinstance(coro, Coroutine):
            # Nearly every one is this process's own news of a change it already applied,
            # over at once: handled here without a task (server.eager), a task only if it
            # waits. Other channels' handlers may close connections, which needs a task.
            try:
                task = eager.start(coro, contextvars.copy_context())
            except Exception:
                log.exception("handling an announcement on %s failed", channel)
                return
            if task is None:
                return
        else:
            task = asyncio.ensure_future(coro)
        task.add_done_callback(_log_failure)

    # --- PresenceStore: heartbeats and room leases ----------------------------------------

    async def heartbeat(self, process: str, members: dict[str, dict[str, Any]], ttl: float) -> None:
        by_room = members_by_room(members)
        self._members[process] = (time.monotonic() + ttl, by_room)

    async def presence(self, code: str) -> list[dict[str, Any]]:
        now = time.monotonic()
        return [
            info
            for expires, by_room in self._members.values()
            if expires > now
            for info in by_room.get(code, ())
        ]

    async def lead(self, code: str, owner: str, ttl: float) -> bool:
        now = time.monotonic()
        holder = self._leases.get(code)
        if holder is None or holder[0] == owner or holder[1] <= now:
            self._leases[code] = (owner, now + ttl)
            return True
        return False

    async def resign(self, code: str, owner: str) -> None:
        holder = self._leases.get(code)
        if holder is not None and holder[0] == owner:
            del self._leases[code]

    # --- MatchmakingStore -----------------------------------------------------------------

    async def queue_join(self, seats: int, ticket: dict[str, Any]) -> None:
        queue = self._queues.setdefault(seats, [])
        if all(t["id"] != ticket["id"] for t in queue):
            queue.append(ticket)

    async def queue_leave(self, seats: int, ticket_id: str) -> bool:
        queue = self._queues.get(seats, [])
        kept = [t for t in queue if t["id"] != ticket_id]
        self._queues[seats] = kept
        return len(kept) != len(queue)

    async def queue_take(self, seats: int, least: int, most: int) -> list[dict[str, Any]]:
        queue = self._queues.get(seats, [])
        if len(queue) < least:
            return []
        taken, self._queues[seats] = queue[:most], queue[most:]
        return taken

    async def queue_length(self, seats: int) -> int:
        return len(self._queues.get(seats, []))

    # --- SecretStore ----------------------------------------------------------------------

    async def secret(self, name: str) -> str:
        return self._secrets.setdefault(name, secrets.token_hex(32))

    # --- RecordStore ----------------------------------------------------------------------

    async def save_match(
        self, match_id: str, record: dict[str, Any], players: Sequence[str]
    ) -> None:
        self._matches[match_id] = record
        for player in players:
            history = self._histories.setdefault(player, [])
            history.insert(0, match_id)
            del history[HISTORY_LIMIT:]

    async def get_match(self, match_id: str) -> dict[str, Any] | None:
        return self._matches.get(match_id)

    async def player_matches(self, player: str, limit: int = 50) -> list[str]:
        return self._histories.get(player, [])[:limit]

    async def save_review(self, match_id: str, review: dict[str, Any]) -> None:
        self._reviews[match_id] = review
        self._review_hands.pop(match_id, None)

    async def get_review(self, match_id: str) -> dict[str, Any] | None:
        return self._reviews.get(match_id)

    async def save_review_hand(self, match_id: str, hand: int, turns: dict[str, Any]) -> None:
        hands = self._review_hands.pop(match_id, {})
        hands[hand] = turns
        self._review_hands[match_id] = hands  # the newest last
        while len(self._review_hands) > REVIEW_HANDS_KEPT:
            del self._review_hands[next(iter(self._review_hands))]

    async def get_review_hands(self, match_id: str) -> dict[int, dict[str, Any]]:
        return dict(self._review_hands.get(match_id, {}))

    async def claim_daily(self, day: str, player: str) -> bool:
        claims = self._claims.setdefault(day, set())
        if player in claims:
            return False
        claims.add(player)
        return True

    async def record_daily(self, day: str, entry: dict[str, Any]) -> None:
        self._daily.setdefault(day, {}).setdefault(entry["player"], dict(entry))

    async def daily_board(self, day: str, limit: int = 50) -> list[dict[str, Any]]:
        entries = self._daily.get(day, {}).values()
        return sorted(entries, key=lambda e: (e["penalty"], e["hands"], e["player"]))[:limit]

    async def record_result(
        self, player: str, name: str, won: bool, penalty: int, hands: int
    ) -> None:
        stats = self._stats.setdefault(
            player, {"player": player, "won": 0, "played": 0, "penalty": 0, "hands": 0}
        )
        stats["name"] = name
        stats["won"] += int(won)
        stats["played"] += 1
        stats["penalty"] += penalty
        stats["hands"] += hands

    async def alltime_board(self, limit: int = 50) -> list[dict[str, Any]]:
        rows = sorted(self._stats.values(), key=lambda r: (-r["won"], -r["played"], r["player"]))
        return [board_row(r) for r in rows[:limit]]

    # --- IdentityStore --------------------------------------------------------------------

    async def identity(self, player: str) -> Known:
        tag = self._tags.get(player)
        return Known(
            self._generations.get(player, 0),
            self._names.get(player),
            None if tag is None else tag[0],
        )

    def _tag_for(self, player: str, name: str) -> str:
        """Give ``player`` its tag for ``name`` (see ``Store.set_name``); no await inside,
        so nothing interleaves."""
        key = name_key(name)
        had = self._tags.get(player)
        if had is not None and had[1] == key:
            return had[0]
        tag = None
        if had is not None and (had[0], key) not in self._tagged:
            tag = had[0]
        for _ in range(TAG_ROUNDS):
            if tag is not None:
                break
            tag = next((t for t in tag_candidates() if (t, key) not in self._tagged), None)
        if tag is None:
            raise KingsCornerError("No free tag for that name.")
        if had is not None:
            self._tagged.pop(had, None)
        self._tags[player] = (tag, key)
        self._tagged[(tag, key)] = player
        return tag

    async def set_name(self, player: str, name: str) -> str:
        tag = self._tag_for(player, name)
        self._names[player] = name
        return tag

    async def name_and_tag(self, player: str, name: str) -> tuple[str, str]:
        kept = self._names.setdefault(player, name)
        had = self._tags.get(player)
        return kept, had[0] if had is not None else self._tag_for(player, kept)

    async def names(self, players: Sequence[str]) -> dict[str, str]:
        return {p: self._names[p] for p in players if p in self._names}

    async def tags(self, players: Sequence[str]) -> dict[str, str]:
        return {p: self._tags[p][0] for p in players if p in self._tags}

    async def set_recovery(self, player: str, digest: str, generation: int) -> int | None:
        if self._generations.get(player, 0) != generation:
            return None
        old = self._recovery_of.get(player)
        if old is not None:
            self._recovery.pop(old, None)
        self._recovery_of[player] = digest
        self._recovery[digest] = player
        self._generations[player] = generation + 1
        return generation + 1

    async def recover(self, digest: str) -> str | None:
        return self._recovery.get(digest)

    # --- StandingStore --------------------------------------------------------------------

    async def ratings(self, players: Sequence[str]) -> dict[str, dict[str, Any]]:
        return {p: dict(self._ratings[p]) for p in players if p in self._ratings}

    async def update_ratings(
        self,
        expected: dict[str, int],
        ratings: dict[str, dict[str, Any]],
        board: dict[str, float],
    ) -> bool:
        for player, matches in expected.items():
            if self._ratings.get(player, {}).get("matches", 0) != matches:
                return False
        for player, rating in ratings.items():
            self._ratings[player] = dict(rating)
        self._rating_board.update(board)
        return True

    async def rating_board(self, limit: int = 50) -> list[dict[str, Any]]:
        order = sorted(self._rating_board.items(), key=lambda item: (-item[1], item[0]))
        return [{"player": p, **self._ratings[p]} for p, _ in order[:limit]]

    # --- the store's own life -------------------------------------------------------------

    async def ping(self) -> bool:
        return True

    async def close(self) -> None:
        self._handler = None


def _log_failure(task: asyncio.Future[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("store handler failed", exc_info=task.exception())


if TYPE_CHECKING:
    # Never run: type-checking it proves the memory store is every role (each line names the
    # role it breaks), and so a whole Store.
    _rooms: RoomStore = MemoryStore()
    _announcements: AnnouncementStore = MemoryStore()
    _presence: PresenceStore = MemoryStore()
    _matchmaking: MatchmakingStore = MemoryStore()
    _secrets: SecretStore = MemoryStore()
    _records: RecordStore = MemoryStore()
    _identities: IdentityStore = MemoryStore()
    _standing: StandingStore = MemoryStore()
    _whole: Store = MemoryStore()
