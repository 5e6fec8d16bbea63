"""Hidden-card audit: replay a room's stored events and check every frame sent against it.

For every snapshot and patch a connection received, the cards it mentions must have been
visible to that viewer at the versions the frame spans: its own hand (a seat), the piles,
and the hands left at the end of a hand. The viewer's document, rebuilt by applying the
frames in order, must also equal the server's document for that viewer at that version.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import jsonpatch
import orjson

from protocol.engine import DECK
from server.room import Room

CARD = re.compile(r"\b(?:10|[2-9AJQK])[CDHS]\b")
#: Random identifiers and secrets: URL-safe base64 may spell "-7H" by chance.
OPAQUE = frozenset(("player", "player_id", "token"))


@dataclass
class Sent:
    conn: str
    room: str | None
    seat: int | None
    frame: dict[str, Any]


@dataclass
class Recorder:
    sent: list[Sent] = field(default_factory=list)

    def record(self, conn: Any, frame: str) -> None:
        room = conn.room.code if conn.room is not None else None
        self.sent.append(Sent(conn.id, room, conn.seat, orjson.loads(frame)))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            if k not in OPAQUE:
                yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def cards_in(value: Any) -> set[str]:
    """Every card code mentioned anywhere in a JSON value, including inside text."""
    found: set[str] = set()
    for text in _strings(value):
        found.update(CARD.findall(text))
    return found


def visible(room: Room, seat: int | None) -> set[str]:
    """The cards viewer ``seat`` may see in ``room`` right now: the table, and the corners
    collected (``scoring: corners``: every card of them was played or moved in public; they
    are the cards in no hand, pile or stock)."""
    if room.match is None:
        return set()
    pos = room.match.position
    cards = {c for pile in pos.piles for c in pile}
    cards.update(set(DECK) - cards - set(pos.stock) - {c for hand in pos.hands for c in hand})
    if seat is not None:
        cards.update(pos.hands[seat])
    for result in room.match.results:
        cards.update(c for hand in result.left for c in hand)
    return cards


def states(events: list[dict[str, Any]]) -> dict[int, Room]:
    """A copy of the room at every version (rebuilt by folding the events)."""
    out: dict[int, Room] = {}
    for v in range(1, len(events) + 1):
        room = Room(events[0])
        for event in events[1:v]:
            room.apply(event)
        out[v] = room
    return out


def audit(recorder: Recorder, logs: dict[str, list[dict[str, Any]]]) -> int:
    """Check every recorded frame of the rooms in ``logs``; return how many were checked."""
    rooms = {code: states(events) for code, events in logs.items()}
    docs: dict[str, dict[str, Any]] = {}
    # A patch is for the room its connection is in: the one its last snapshot named.
    room_of: dict[str, str] = {}
    checked = 0
    for sent in recorder.sent:
        frame = sent.frame
        kind = frame["type"]
        if kind == "snapshot":
            room_of[sent.conn] = frame["room"]
        elif kind == "left":
            room_of.pop(sent.conn, None)
        code = room_of.get(sent.conn) if kind == "patch" else frame.get("room")
        if kind not in ("snapshot", "patch") or code not in rooms:
            if kind not in ("snapshot", "patch"):
                # No other frame may carry a card at all (chat aside, and the chat a room
                # kept: it is people's text).
                assert kind in ("chat", "chat_history") or not cards_in(frame), frame
            continue
        assert code is not None
        history = rooms[code]
        seat = sent.seat
        if (frame["version"] if kind == "snapshot" else frame["to"]) not in history:
            # Sent after the logs were read (a bot moved meanwhile): nothing to judge it by,
            # and every later frame of this connection is later still.
            continue
        if kind == "snapshot":
            version = frame["version"]
            allowed = visible(history[version], seat)
            docs[sent.conn] = frame["doc"]
        else:
            version = frame["to"]
            allowed = visible(history[frame["from"]], seat) | visible(history[version], seat)
            docs[sent.conn] = jsonpatch.apply_patch(docs[sent.conn], frame["ops"])
        leaked = cards_in(frame) - allowed
        assert not leaked, f"{sent.conn} (seat {seat}) was sent {sorted(leaked)} in {kind}"
        assert docs[sent.conn] == history[version].doc(seat), (
            f"{sent.conn} doc differs at v{version}"
        )
        checked += 1
    return checked
