"""Checks every fault and property test makes of stored rooms: they replay legally, their
hash chain holds, and what each process and client holds equals the stored state."""

from __future__ import annotations

from typing import Any

from server.room import Room
from server.store.base import link


def replay(events: list[dict[str, Any]]) -> Room:
    """Fold a stored log through the room and the rules engine (an illegal move raises)
    and check its hash chain: each event's ``h`` links it to every event before it."""
    assert events, "an empty log"
    head = ""
    for i, event in enumerate(events):
        if "h" in event:
            assert event["h"] == link(head, event), f"chain broken at version {i + 1}"
        head = event.get("h", "")
    room = Room.from_events(events)
    return room
