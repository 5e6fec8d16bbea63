"""The store seam: everything the server keeps outside one process's memory.

A room is stored as its list of events; its version is the number of events. Appending
checks the expected version, so concurrent writers (several processes) never lose or
duplicate a change: the loser gets :class:`~protocol.errors.Conflict`, catches up with
:meth:`Store.read` and retries. Changes are announced on a per-room channel.

Each event carries ``h``, a hash chained over every event before it (:func:`link`). A version
number alone cannot tell two histories of the same length apart (a store that lost its last
writes, then took someone else's): appending also checks the chain's head, and a reader checks
that the store still holds the event it last applied.

The store is declared by role, one small protocol each, matching the parts of the Redis
store: :class:`RoomStore` (event logs and the public listing), :class:`AnnouncementStore`
(channels), :class:`PresenceStore` (heartbeats and room leases), :class:`MatchmakingStore`
(quick-play queues), :class:`SecretStore`, :class:`RecordStore` (finished matches and the
daily and all-time boards), :class:`IdentityStore` (names, tags, recovery codes) and
:class:`StandingStore` (ratings). :class:`Store` is all of them together, with the store's
own life (``inline``, ``ping``, ``close``). A service that needs a few roles types its store
as those (``server.records``, ``server.identity``); the wiring holds a whole ``Store``.

Implementations: :class:`server.store.memory.MemoryStore` (the embedded default) and
:class:`server.store.redis_store.RedisStore`; both are checked against every role when the
server is type-checked. One contract test suite, grouped by role, runs against both.
"""

from __future__ import annotations

import hashlib
import secrets
import unicodedata
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, NamedTuple, Protocol, runtime_checkable

import orjson

Event = dict[str, Any]
#: Finished matches kept in each player's history.
HISTORY_LIMIT = 200
#: Seconds a store remembers that an administrator closed a room (:meth:`Store.was_closed`).
CLOSED_KEPT_S = 300
#: Chat lines a room keeps for who comes later (:meth:`RoomStore.add_chat`).
CHAT_KEPT = 50
#: Seconds a room's kept chat outlives its last line when nothing deletes the room.
CHAT_KEPT_S = 86_400
Message = dict[str, Any]
#: Called with (channel, message) for every message on a subscribed channel.
Handler = Callable[[str, Message], Awaitable[None]]
#: The tag's alphabet: Crockford's base 32 (no I, L, O or U to misread).
TAG_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
#: Symbols of a tag: four (five for a name whose four-symbol tags run short).
TAG_LENGTH = 4
#: Characters that show nothing though Unicode counts them as letters: the Hangul fillers
#: (U+FFA0 is U+3164 once NFKC-normalised) and the blank Braille pattern.
FILLERS = frozenset("\u3164\u115f\u1160\uffa0\u2800")
#: Rounds of :func:`tag_candidates` a store tries before it gives up on finding a free tag.
TAG_ROUNDS = 4


class Known(NamedTuple):
    """What the store keeps of one identity, read in one step (:meth:`Store.identity`)."""

    #: How many recovery codes were made for it (0 before the first).
    generation: int
    #: The display name it goes by, if it has one kept.
    name: str | None
    #: Its tag, if it was given one.
    tag: str | None


class RoomStore(Protocol):
    """Rooms as event logs, and the lobby's listing of public rooms.

    The Redis store's part: :class:`~server.store.redis.rooms.EventLog`.
    """

    async def create_room(self, code: str, first: Event) -> bool:
        """Store a new room whose first event is ``first``; False if the code is taken."""
        ...

    async def append(
        self,
        code: str,
        expected: int,
        events: Sequence[Event],
        announce: Message | None = None,
        head: str | None = None,
    ) -> int:
        """Append ``events`` if the room is at version ``expected`` and its last event's ``h``
        is ``head`` (when given; a log whose events carry no ``h`` has the head ``""``);
        return the new version.

        When the events are appended and ``announce`` is given, it is published on channel
        ``room:CODE`` in the same step (one round trip on a networked store; subscribers
        get it as :class:`AnnouncementStore` delivers every message); when they are not,
        nothing is published. Raises ``Conflict`` when the room moved on, ``RoomNotFound``
        when it is gone.
        """
        ...

    async def read(self, code: str, after: int = 0) -> list[Event]:
        """Events after version ``after`` (all of them by default); ``RoomNotFound`` if none."""
        ...

    async def delete_room(self, code: str, *, closed: bool = False) -> None:
        """Forget the room, its listing and its lease (:meth:`PresenceStore.lead`).
        ``closed``: an administrator closed it, and :meth:`was_closed` says so for a while
        (a process that finds the room gone before the announcement tells its viewers they
        were removed, as the announcement would)."""
        ...

    async def was_closed(self, code: str) -> bool:
        """Whether ``code`` was deleted with ``closed`` in the last ``CLOSED_KEPT_S`` s."""
        ...

    async def add_chat(self, code: str, line: Message) -> None:
        """Keep ``line`` as the newest of room ``code``'s last :data:`CHAT_KEPT` chat lines
        (forgotten with the room, or :data:`CHAT_KEPT_S` after the last line)."""
        ...

    async def chat_lines(self, code: str) -> list[Message]:
        """Room ``code``'s kept chat lines, oldest first (none for an unknown room)."""
        ...

    async def room_codes(self) -> list[str]:
        """Codes of every stored room (used by a restarted server to find its rooms)."""
        ...

    async def set_listing(self, code: str, summary: dict[str, Any] | None) -> None:
        """List (or with None, unlist) a public room for the lobby."""
        ...

    async def listings(self) -> list[dict[str, Any]]:
        """The summaries of every listed room, in no particular order."""
        ...


class AnnouncementStore(Protocol):
    """Announcements: messages published on named channels to every subscribed process.

    Channels are ``room:CODE`` (a room's news), ``proc:ID`` (one process) and ``admin``.
    A message published while a subscriber cannot hear it is lost to that subscriber, which
    catches up from the store itself. The Redis store's part:
    :class:`~server.store.redis.pubsub.Announcements`.
    """

    def set_handler(self, handler: Handler) -> None:
        """Install the one callback that receives messages of subscribed channels."""
        ...

    @property
    def gaps(self) -> int:
        """A count that grows each time announcements may have been missed (a subscriber
        connection opened, lost or replaced; a channel moved to another shard) and stands
        still while every announcement of a subscribed channel is delivered: a reader that
        saw it unchanged since it last read a room missed none of that room's news."""
        ...

    async def subscribe(self, channel: str) -> None:
        """Deliver ``channel``'s messages to the handler from now on."""
        ...

    async def unsubscribe(self, channel: str) -> None:
        """Stop delivering ``channel``'s messages (nothing happens for one not subscribed)."""
        ...

    async def publish(self, channel: str, message: Message) -> None:
        """Send ``message`` to every process subscribed to ``channel`` (this one too), in
        the order one publisher publishes; delivered later, never inside this call."""
        ...


class PresenceStore(Protocol):
    """Who is connected where (heartbeats of live processes), and who drives each room.

    The Redis store's part: :class:`~server.store.redis.presence.Presence`.
    """

    async def heartbeat(self, process: str, members: dict[str, dict[str, Any]], ttl: float) -> None:
        """Record that ``process`` is alive and holds ``members`` (connection id -> info)."""
        ...

    async def presence(self, code: str) -> list[dict[str, Any]]:
        """Members (from live processes) connected to room ``code``."""
        ...

    async def lead(self, code: str, owner: str, ttl: float) -> bool:
        """Take or renew the lease on driving room ``code`` (its bots and timers); True if
        ``owner`` holds it."""
        ...

    async def resign(self, code: str, owner: str) -> None:
        """Give up the lease on ``code`` if ``owner`` holds it."""
        ...


class MatchmakingStore(Protocol):
    """The quick-play queues, one per table size.

    The Redis store's part: :class:`~server.store.redis.matchmaking.Matchmaking`.
    """

    async def queue_join(self, seats: int, ticket: dict[str, Any]) -> None:
        """Add a ticket (with at least ``id`` and ``at``) to the queue for tables of ``seats``
        (a ticket already waiting is left as it is)."""
        ...

    async def queue_leave(self, seats: int, ticket_id: str) -> bool:
        """Take the ticket ``ticket_id`` out of the queue; False if it was not waiting."""
        ...

    async def queue_take(self, seats: int, least: int, most: int) -> list[dict[str, Any]]:
        """Atomically take the oldest ``most`` tickets if at least ``least`` wait, else none."""
        ...

    async def queue_length(self, seats: int) -> int:
        """How many tickets wait for tables of ``seats``."""
        ...


class SecretStore(Protocol):
    """Secrets shared by every process (the key tokens are signed with, the daily seed's).

    The Redis store's part: :class:`~server.store.redis.shared_secrets.SharedSecrets`.
    """

    async def secret(self, name: str) -> str:
        """A random secret shared by every process (created on first use, then kept)."""
        ...


class RecordStore(Protocol):
    """Finished matches, players' histories, the daily deal's board and the all-time board.

    The Redis store's part: :class:`~server.store.redis.records.Records`.
    """

    async def save_match(
        self, match_id: str, record: dict[str, Any], players: Sequence[str]
    ) -> None:
        """Keep a finished match; list it in the history of each of ``players``."""
        ...

    async def get_match(self, match_id: str) -> dict[str, Any] | None:
        """The record of a kept match, if it is kept."""
        ...

    async def player_matches(self, player: str, limit: int = 50) -> list[str]:
        """Ids of the player's finished matches, newest first."""
        ...

    async def save_review(self, match_id: str, review: dict[str, Any]) -> None:
        """Keep the coach's review of a kept match (computed once: the same every time)."""
        ...

    async def get_review(self, match_id: str) -> dict[str, Any] | None:
        """The kept review of a match, if one is kept."""
        ...

    async def save_review_hand(self, match_id: str, hand: int, turns: dict[str, Any]) -> None:
        """Keep the coach's judgement of one hand of a match still being played (reviewed as
        the hand ends), for the review of the whole match; kept a day at most, and dropped
        when the match's review is kept."""
        ...

    async def get_review_hands(self, match_id: str) -> dict[int, dict[str, Any]]:
        """The judgements of the hands of a match kept by :meth:`save_review_hand`."""
        ...

    async def claim_daily(self, day: str, player: str) -> bool:
        """True the first time ``player`` starts the ranked daily of ``day``; False after."""
        ...

    async def record_daily(self, day: str, entry: dict[str, Any]) -> None:
        """Rank a daily result ``{player, name, penalty, hands}``: lowest penalty, then hands."""
        ...

    async def daily_board(self, day: str, limit: int = 50) -> list[dict[str, Any]]:
        """The day's results, best first."""
        ...

    async def record_result(
        self, player: str, name: str, won: bool, penalty: int, hands: int
    ) -> None:
        """Add one finished match to the player's all-time figures."""
        ...

    async def alltime_board(self, limit: int = 50) -> list[dict[str, Any]]:
        """Players by matches won (then matches played), with average penalty per hand."""
        ...


class IdentityStore(Protocol):
    """Identities: display names, tags, recovery codes and their generations.

    The Redis store's part: :class:`~server.store.redis.identities.IdentityRecords`.
    """

    async def identity(self, player: str) -> Known:
        """The player's recovery generation, kept name and tag, in one read (``0, None,
        None`` for a player the store knows nothing of)."""
        ...

    async def set_name(self, player: str, name: str) -> str:
        """Keep ``name`` as the display name ``player`` goes by now (boards and history
        show it) and return its tag, in one step.

        Tags tell people of one name apart: no two players whose names have the same
        :func:`name_key` hold the same tag. The player keeps the tag it has unless another
        player of the new name holds it; then, or when it has none, it gets the first of
        :func:`tag_candidates` free for that name (:data:`TAG_ROUNDS` rounds of them, then
        ``KingsCornerError``). The tag of its former name is free again.
        """
        ...

    async def name_and_tag(self, player: str, name: str) -> tuple[str, str]:
        """The name and tag ``player`` goes by, in one step: its kept name (``name``, kept
        now as :meth:`set_name` keeps it, when it has none) and its tag (given now, for that
        name, when it has none). A kept name is never replaced here."""
        ...

    async def names(self, players: Sequence[str]) -> dict[str, str]:
        """The kept display names of those of ``players`` that have one."""
        ...

    async def tags(self, players: Sequence[str]) -> dict[str, str]:
        """The tags of those of ``players`` that have one (none is given here)."""
        ...

    async def set_recovery(self, player: str, digest: str, generation: int) -> int | None:
        """If ``player`` is still at recovery ``generation``, make ``digest`` (the hash of a
        new recovery code) its only code, so the code it had before stops working, and move
        it to the next generation, returned; else change nothing and return None."""
        ...

    async def recover(self, digest: str) -> str | None:
        """The player whose current recovery code hashes to ``digest``, if any."""
        ...


class StandingStore(Protocol):
    """Ratings and the rating board.

    The Redis store's part: :class:`~server.store.redis.standing.Standing`.
    """

    async def ratings(self, players: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The ratings ``{mu, sigma, matches}`` of those of ``players`` rated so far."""
        ...

    async def update_ratings(
        self,
        expected: dict[str, int],
        ratings: dict[str, dict[str, Any]],
        board: dict[str, float],
    ) -> bool:
        """Store ``ratings`` (player -> ``{mu, sigma, matches}``) in one step, if every
        player of ``expected`` still has that many rated matches (0: never rated); else
        change nothing and return False (another match was rated meanwhile: read again).
        ``board`` puts players on the rating board with that score (higher is better)."""
        ...

    async def rating_board(self, limit: int = 50) -> list[dict[str, Any]]:
        """Players on the rating board, best first: ``{player, mu, sigma, matches}``."""
        ...


@runtime_checkable
class ReviewJobStore(Protocol):
    """Where a shared store sends the coach's reviews as jobs, for review workers on any
    machine to compute (the review tier, docs/coach.md). Not a role every store has: the
    memory store has none (its process reviews its matches itself).

    The Redis store's part: :class:`~server.store.redis.review_jobs.ReviewJobs`.
    """

    async def add_review_job(
        self,
        job: dict[str, Any],
        *,
        once_for: str | None = None,
        ttl: float = 300.0,
        backlog: int = 10_000,
    ) -> bool:
        """Add ``job`` (``{"kind": "hand", "hand": N, "record": ...}`` or ``{"kind":
        "match", "record": ...}``) for a worker; False when ``once_for`` (a match id) had a
        job added in the last ``ttl`` seconds, and then nothing is added. The queue keeps
        about ``backlog`` jobs at most."""
        ...


class Store(
    RoomStore,
    AnnouncementStore,
    PresenceStore,
    MatchmakingStore,
    SecretStore,
    RecordStore,
    IdentityStore,
    StandingStore,
    Protocol,
):
    """The whole store: every role (:data:`ROLES`), and the store's own life.

    Whoever needs all of it (the wiring, the lobby, a loaded room's context) types its
    store as ``Store``; a service that needs only some roles types its dependency as those.
    """

    #: True when no operation leaves the process or needs a task of its own (the memory
    #: store): a client's message may then be served inside the socket's read callback
    #: (server.eager).
    inline: bool

    async def ping(self) -> bool:
        """True when the store is reachable."""
        ...

    async def close(self) -> None:
        """Let go of every connection and stop delivering announcements; the store cannot
        be used afterwards."""
        ...


#: Every role of the store, in the order :class:`Store` combines them.
ROLES: tuple[type, ...] = tuple(base for base in Store.__bases__ if base is not Protocol)


def members_by_room(members: dict[str, dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """A heartbeat's members (connection id -> info) grouped by their ``room`` code."""
    by_room: dict[str, list[dict[str, Any]]] = {}
    for info in members.values():
        room = info.get("room")
        if isinstance(room, str):
            by_room.setdefault(room, []).append(info)
    return by_room


def board_row(stats: dict[str, Any]) -> dict[str, Any]:
    """An all-time leaderboard row from a player's summed figures."""
    hands = stats["hands"]
    return {
        "player": stats["player"],
        "name": stats.get("name", "?"),
        "won": stats["won"],
        "played": stats["played"],
        "avg_penalty": round(stats["penalty"] / hands, 2) if hands else 0.0,
    }


def name_key(name: str) -> str:
    """What names compare by for tags: NFKC, case-folded, without format characters
    (zero-width and the like) and fillers, blanks collapsed. ``Ana``, ``ANA`` and ``Ana``
    with a zero-width space are one name; ``Ana`` and ``Ána`` are two."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    kept = "".join(ch for ch in folded if unicodedata.category(ch) != "Cf" and ch not in FILLERS)
    return " ".join(kept.split())


def tag_candidates() -> list[str]:
    """Random tags (from :mod:`secrets`) to try in turn for a player who needs a new one:
    eight of :data:`TAG_LENGTH` symbols, then eight of one more, for a name so common that
    its shorter tags run short. Nothing a client sends goes into them."""
    return [
        "".join(secrets.choice(TAG_ALPHABET) for _ in range(length))
        for length in [TAG_LENGTH] * 8 + [TAG_LENGTH + 1] * 8
    ]


def link(head: str, event: Event) -> str:
    """The chain hash after ``event``, given the hash ``head`` of every event before it.

    Computed over the event's canonical JSON without its own ``h``; 64 bits tell histories
    apart, which is all it is for (it is no signature).
    """
    body = orjson.dumps({k: v for k, v in event.items() if k != "h"}, option=orjson.OPT_SORT_KEYS)
    return hashlib.blake2b(head.encode() + body, digest_size=8).hexdigest()


def head_of(log: Sequence[Event]) -> str:
    """The chain head of a stored log: its last event's ``h`` (``""`` for events without)."""
    return str(log[-1].get("h", "")) if log else ""
