"""The store seam: everything the server keeps outside one process's memory.

A room is stored as its list of events; its version is the number of events. Appending
checks the expected version, so concurrent writers (several processes) never lose or
duplicate a change: the loser gets :class:`~protocol.errors.Conflict`, catches up with
:meth:`Store.read` and retries. Changes are announced on a per-room channel.

Each event carries ``h``, a hash chained over every event before it (:func:`link`). A version
number alone cannot tell two histories of the same length apart (a store that lost its last
writes, then took someone else's): appending also checks the chain's head, and a reader checks
that the store still holds the event it last applied.

Implementations: :class:`server.store.memory.MemoryStore` (the embedded default) and
:class:`server.store.redis_store.RedisStore`. One contract test suite runs against both.
"""

from __future__ import annotations

import hashlib
import secrets
import unicodedata
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, NamedTuple, Protocol

import orjson

Event = dict[str, Any]
#: Finished matches kept in each player's history.
HISTORY_LIMIT = 200
#: Seconds a store remembers that an administrator closed a room (:meth:`Store.was_closed`).
CLOSED_KEPT_S = 300
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


class Store(Protocol):
    """Persistence, announcements, listing, matchmaking and leadership for rooms."""

    #: True when no operation leaves the process or needs a task of its own (the memory
    #: store): a client's message may then be served inside the socket's read callback
    #: (server.eager).
    inline: bool

    # --- rooms as event logs ---
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
        ``room:CODE`` in the same step (one round trip on a networked store); when they
        are not, nothing is published. Raises ``Conflict`` when the room moved on,
        ``RoomNotFound`` when it is gone.
        """
        ...

    async def read(self, code: str, after: int = 0) -> list[Event]:
        """Events after version ``after`` (all of them by default); ``RoomNotFound`` if none."""
        ...

    async def delete_room(self, code: str, *, closed: bool = False) -> None:
        """Forget the room. ``closed``: an administrator closed it, and :meth:`was_closed`
        says so for a while (a process that finds the room gone before the announcement
        tells its viewers they were removed, as the announcement would)."""
        ...

    async def was_closed(self, code: str) -> bool:
        """Whether ``code`` was deleted with ``closed`` in the last ``CLOSED_KEPT_S`` s."""
        ...

    async def room_codes(self) -> list[str]:
        """Codes of every stored room (used by a restarted server to find its rooms)."""
        ...

    # --- announcements ---
    def set_handler(self, handler: Handler) -> None:
        """Install the one callback that receives messages of subscribed channels."""
        ...

    async def subscribe(self, channel: str) -> None: ...

    async def unsubscribe(self, channel: str) -> None: ...

    async def publish(self, channel: str, message: Message) -> None: ...

    # --- public room listing ---
    async def set_listing(self, code: str, summary: dict[str, Any] | None) -> None:
        """List (or with None, unlist) a public room for the lobby."""
        ...

    async def listings(self) -> list[dict[str, Any]]: ...

    # --- presence ---
    async def heartbeat(self, process: str, members: dict[str, dict[str, Any]], ttl: float) -> None:
        """Record that ``process`` is alive and holds ``members`` (connection id -> info)."""
        ...

    async def presence(self, code: str) -> list[dict[str, Any]]:
        """Members (from live processes) connected to room ``code``."""
        ...

    # --- quick-play matchmaking ---
    async def queue_join(self, seats: int, ticket: dict[str, Any]) -> None:
        """Add a ticket (with at least ``id`` and ``at``) to the queue for tables of ``seats``."""
        ...

    async def queue_leave(self, seats: int, ticket_id: str) -> bool: ...

    async def queue_take(self, seats: int, least: int, most: int) -> list[dict[str, Any]]:
        """Atomically take the oldest ``most`` tickets if at least ``least`` wait, else none."""
        ...

    async def queue_length(self, seats: int) -> int: ...

    # --- leadership (who drives bots and timers of a room) ---
    async def lead(self, code: str, owner: str, ttl: float) -> bool:
        """Take or renew the lease on driving room ``code``; True if ``owner`` holds it."""
        ...

    async def resign(self, code: str, owner: str) -> None: ...

    # --- players, match history and leaderboards ---
    async def secret(self, name: str) -> str:
        """A random secret shared by every process (created on first use, then kept)."""
        ...

    async def save_match(
        self, match_id: str, record: dict[str, Any], players: Sequence[str]
    ) -> None:
        """Keep a finished match; list it in the history of each of ``players``."""
        ...

    async def get_match(self, match_id: str) -> dict[str, Any] | None: ...

    async def player_matches(self, player: str, limit: int = 50) -> list[str]:
        """Ids of the player's finished matches, newest first."""
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

    # --- identities: names, tags, recovery codes and their generations ---
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

    # --- ratings ---
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

    # --- life ---
    async def ping(self) -> bool:
        """True when the store is reachable."""
        ...

    async def close(self) -> None: ...


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
