"""The maintenance round of one process: the store's health, presence, and room ticks."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection
from typing import Any

from protocol.errors import StoreUnavailable
from protocol.frames import frame
from protocol.messages import Status

from .config import Settings
from .live_room import RoomConnection
from .lobby import Lobby
from .store.base import Store

log = logging.getLogger(__name__)
#: Rooms ticked together in one slice of the maintenance round.
_TICK_SLICE = 25
#: Failed store checks in a row (a tick apart) before the store counts as unreachable.
MISSES_FOR_DOWN = 2


class Maintenance:
    """Every ``tick``: notice store outages and recoveries (telling every client), renew
    this process's presence records, and tick each loaded room."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        lobby: Lobby,
        connections: Collection[RoomConnection],
    ) -> None:
        self._settings = settings
        self._store = store
        self._lobby = lobby
        self._connections = connections
        #: False from the second failed check in a row until the store answers again.
        self.store_up = True
        self._misses = 0
        #: When the last heartbeat was stored, and when heartbeats resumed after a gap.
        self._last_beat = float("-inf")
        self._resumed = float("-inf")

    def members(self) -> dict[str, dict[str, Any]]:
        """This process's connections in rooms, for the shared presence records."""
        return {
            c.id: {"conn": c.id, "room": c.room.code, "seat": c.seat, "role": c.role}
            for c in self._connections
            if c.room is not None
        }

    async def run(self) -> None:
        """Run rounds until cancelled; a failed round is logged and the next one comes."""
        settings = self._settings
        while True:
            answered = await self._store.ping()
            self._misses = 0 if answered else self._misses + 1
            # One late answer on a busy host is not an outage: turning players away (503)
            # and showing them a banner waits for a second miss, a tick later.
            up = answered or (self.store_up and self._misses < MISSES_FOR_DOWN)
            if up != self.store_up:
                self.store_up = up
                log.warning("store %s", "reachable again" if up else "unreachable")
                status = frame(Status, store="up" if up else "down")
                for conn in list(self._connections):
                    conn.send(status)
            if answered:
                try:
                    await self._store.heartbeat(
                        settings.process_id, self.members(), settings.tick * 3
                    )
                    now = asyncio.get_running_loop().time()
                    if now - self._last_beat > settings.tick * 3:
                        self._resumed = now  # every presence record may have lapsed meanwhile
                    self._last_beat = now
                    await self._tick_rooms(now - self._resumed >= settings.tick * 3)
                except StoreUnavailable:
                    pass
                except Exception:
                    # Maintenance must outlive any one bad round; the bug is logged.
                    log.exception("maintenance round failed")
            await asyncio.sleep(settings.tick)

    async def _tick_rooms(self, trust_presence: bool = True) -> None:
        """Tick every room, a slice at a time, so moves arriving meanwhile are not held up.

        The rooms of a slice tick concurrently: on Redis their reads share round trips.
        ``trust_presence``: see :meth:`LiveRoom.tick`.
        """
        rooms = list(self._lobby.rooms.values())
        for start in range(0, len(rooms), _TICK_SLICE):
            chunk = rooms[start : start + _TICK_SLICE]
            results = await asyncio.gather(
                *(live.tick(trust_presence) for live in chunk), return_exceptions=True
            )
            for live, result in zip(chunk, results, strict=True):
                if isinstance(result, StoreUnavailable):
                    raise result
                if isinstance(result, BaseException):
                    log.error("room %s: tick failed", live.code, exc_info=result)
            await asyncio.sleep(0)
