"""The store seam: everything the server keeps outside one process's memory.

A room is stored as its list of events; its version is the number of events. Appending
checks the expected version, so concurrent writers (several processes) never lose or
duplicate a change: the loser gets :class:`~protocol.errors.Conflict`, catches up with
:meth:`Store.read` and retries. Changes are announced on a per-room channel.

Implementations: :class:`server.store.memory.MemoryStore` (the embedded default) and
:class:`server.store.redis_store.RedisStore`. One contract test suite runs against both.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

Event = dict[str, Any]
Message = dict[str, Any]
#: Called with (channel, message) for every message on a subscribed channel.
Handler = Callable[[str, Message], Awaitable[None]]


class Store(Protocol):
    """Persistence, announcements, listing, matchmaking and leadership for rooms."""

    # --- rooms as event logs ---
    async def create_room(self, code: str, first: Event) -> bool:
        """Store a new room whose first event is ``first``; False if the code is taken."""
        ...

    async def append(self, code: str, expected: int, events: Sequence[Event]) -> int:
        """Append ``events`` if the room is at version ``expected``; return the new version.

        Raises ``Conflict`` when the room moved on, ``RoomNotFound`` when it is gone.
        """
        ...

    async def read(self, code: str, after: int = 0) -> list[Event]:
        """Events after version ``after`` (all of them by default); ``RoomNotFound`` if none."""
        ...

    async def delete_room(self, code: str) -> None: ...

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

    # --- life ---
    async def ping(self) -> bool:
        """True when the store is reachable."""
        ...

    async def close(self) -> None: ...
