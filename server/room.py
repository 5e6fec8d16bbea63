"""One room's logic as a fold over its events: no I/O, no awaits.

A room is rebuilt by applying its stored events in order (:meth:`Room.apply`). A command
from a connection is turned into new events by a ``decide_*`` method, which validates
everything (through the rules engine for game actions) and raises a
:class:`~protocol.errors.ClientError` without changing anything when refused. The server
appends the events to the store at the expected version, then applies them.

Which command is allowed in which phase is one table, :data:`ALLOWED`.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from protocol.engine import (
    Match,
    Options,
    action_from_text,
    legal_actions,
    new_match,
    public_view,
    seat_view,
)
from protocol.engine.actions import Action, EndTurn, Move, Play
from protocol.errors import (
    BadPhase,
    BadToken,
    IllegalAction,
    NotHost,
    NotSeated,
    RoomFull,
    SeatTaken,
)
from protocol.messages import RoomOptions

from .store.base import Event

RoomPhase = Literal["lobby", "playing", "hand_over", "finished"]

#: Commands allowed in each phase of a room (join, chat, resync and leave always are).
ALLOWED: dict[RoomPhase, frozenset[str]] = {
    "lobby": frozenset({"sit", "start"}),
    "playing": frozenset({"act", "hint"}),
    "hand_over": frozenset({"next_hand"}),
    "finished": frozenset(),
}

#: Room codes avoid look-alike characters (no 0/O, 1/I/L, 5/S, 2/Z, 8/B).
CODE_ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
CODE_LENGTH = 6


def new_code() -> str:
    """A fresh random room code, e.g. ``K7QMXA``."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def new_token() -> str:
    """A secret seat token: 128 random bits, URL-safe."""
    return secrets.token_urlsafe(16)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def check_phase(phase: RoomPhase, command: str) -> None:
    """Raise :class:`BadPhase` when ``command`` is not allowed in ``phase``."""
    if command not in ALLOWED[phase]:
        raise BadPhase(f"'{command}' is not possible while the room is {phase.replace('_', ' ')}.")


@dataclass(slots=True)
class Seat:
    """Who holds a seat. A human seat may be ``away``: then a bot plays it."""

    name: str
    kind: Literal["human", "bot"]
    level: str | None = None
    token_hash: str | None = None
    connected: bool = False
    away: bool = False

    def public(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "level": self.level,
            "connected": self.connected if self.kind == "human" else True,
            "away": self.away,
        }

    @property
    def bot_plays(self) -> bool:
        return self.kind == "bot" or self.away


class Room:
    """The state of one room, built by folding its events."""

    def __init__(self, first: Event) -> None:
        if first.get("e") != "create":
            raise ValueError("a room's first event must be 'create'")
        self.code: str = first["code"]
        self.settings = RoomOptions.model_validate(first["options"])
        self.created_at: float = first["at"]
        self.seats: list[Seat | None] = [None] * self.settings.seats
        self.host: int | None = None
        self.match: Match | None = None
        self.version = 1
        self.turns = 0  # turns ended in this room, to tell one turn from the next

    # --- reading ---------------------------------------------------------------------

    @property
    def phase(self) -> RoomPhase:
        return "lobby" if self.match is None else self.match.phase

    @property
    def options(self) -> Options:
        s = self.settings
        return Options(seats=s.seats, target=s.target, draw=s.draw, kings_first=s.kings_first)

    def info(self) -> dict[str, Any]:
        """The public part of every viewer's document (never the seed or decks)."""
        s = self.settings
        return {
            "code": self.code,
            "phase": self.phase,
            "public": s.public,
            "options": {
                "seats": s.seats,
                "target": s.target,
                "draw": s.draw,
                "kings_first": s.kings_first,
                "turn_timer": s.turn_timer,
            },
            "seats": [seat.public() if seat else None for seat in self.seats],
            "host": self.host,
        }

    def doc(self, seat: int | None) -> dict[str, Any]:
        """Everything viewer ``seat`` (None: a spectator) may see."""
        return self.docs([seat])[seat]

    def docs(self, viewers: Iterable[int | None]) -> dict[int | None, dict[str, Any]]:
        """The documents of several viewers of the current state, sharing the public part."""
        info = self.info()
        match = self.match
        public = public_view(match) if match is not None else None
        out: dict[int | None, dict[str, Any]] = {}
        for seat in viewers:
            if match is None or public is None:
                game = None
            elif seat is None:
                game = public
            else:
                game = seat_view(match, seat, public)
            out[seat] = {"room": info, "game": game}
        return out

    def summary(self, spectators: int = 0) -> dict[str, Any]:
        """A line of the public room listing."""
        return {
            "room": self.code,
            "seats": self.settings.seats,
            "taken": sum(1 for s in self.seats if s is not None),
            "bots": sum(1 for s in self.seats if s is not None and s.kind == "bot"),
            "phase": self.phase,
            "spectators": spectators,
            "options": self.info()["options"],
        }

    def seat_of_token(self, token: str) -> int:
        """The seat that ``token`` belongs to (compared in constant time)."""
        digest = hash_token(token)
        found = -1
        for i, seat in enumerate(self.seats):
            known = seat.token_hash if seat is not None else None
            if known is not None and hmac.compare_digest(known, digest):
                found = i
        if found < 0:
            raise BadToken()
        return found

    def free_seats(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s is None]

    def bot_to_move(self) -> int | None:
        """The seat a bot should play now, if any."""
        if self.match is None or self.match.phase != "playing":
            return None
        turn = self.match.position.turn
        seat = self.seats[turn]
        return turn if seat is not None and seat.bot_plays else None

    def seat_to_move(self) -> int | None:
        if self.match is None or self.match.phase != "playing":
            return None
        return self.match.position.turn

    def humans(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s is not None and s.kind == "human"]

    # --- deciding: commands to events (raise, never mutate) ------------------------------

    def decide_sit(self, seat: int | None, name: str, token: str | None = None) -> Event:
        """A human takes ``seat`` (or the first free one); ``token`` is its new secret."""
        check_phase(self.phase, "sit")
        free = self.free_seats()
        if seat is None:
            if not free:
                raise RoomFull()
            seat = free[0]
        if not 0 <= seat < len(self.seats):
            raise SeatTaken(f"This room has seats 0 to {len(self.seats) - 1}.")
        if self.seats[seat] is not None:
            raise SeatTaken()
        event: Event = {"e": "sit", "seat": seat, "name": name, "kind": "human"}
        if token is not None:
            event["token"] = hash_token(token)
        return event

    def decide_move_seat(self, current: int, seat: int) -> Event:
        check_phase(self.phase, "sit")
        if not 0 <= seat < len(self.seats):
            raise SeatTaken(f"This room has seats 0 to {len(self.seats) - 1}.")
        if self.seats[seat] is not None:
            raise SeatTaken()
        return {"e": "move_seat", "from": current, "to": seat}

    def decide_start(
        self, actor: int | None, fill: str | None, seed: str | None = None
    ) -> list[Event]:
        check_phase(self.phase, "start")
        if actor is None:
            raise NotSeated()
        if self.host is not None and actor != self.host:
            raise NotHost()
        events: list[Event] = []
        for i in self.free_seats():
            if fill is None:
                raise BadPhase("Every seat must be taken, or choose a bot level to fill them.")
            events.append(bot_seat_event(i, fill))
        s = self.settings
        chosen = s.seed if s.seed is not None else (seed or secrets.token_hex(8))
        events.append({"e": "start", "seed": chosen})
        # Deal once now so a bad stacked deck is refused here rather than stored.
        new_match(self.options, seed=chosen, decks=s.decks or (), dealer=s.dealer)
        return events

    def decide_act(self, seat: int | None, action: Action) -> Event:
        """Validate ``action`` for ``seat`` with the engine; refused actions raise."""
        check_phase(self.phase, "act")
        if seat is None:
            raise NotSeated()
        assert self.match is not None
        self.match.apply(action, seat)  # raises IllegalAction; the result is recomputed on apply
        return {"e": "act", "seat": seat, "a": action.text()}

    def decide_next_hand(self) -> Event:
        check_phase(self.phase, "next_hand")
        return {"e": "next"}

    def decide_leave(self, seat: int) -> Event:
        if self.phase == "lobby":
            return {"e": "unseat", "seat": seat}
        return {"e": "bot_takes", "seat": seat, "level": "heuristic"}

    # --- applying: events to state (trusted, already validated) --------------------------

    def apply(self, event: Event) -> list[dict[str, Any]]:
        """Apply one stored event; return the table-log lines it produces."""
        self.version += 1
        kind = event["e"]
        handler = getattr(self, f"_on_{kind}", None)
        if handler is None:
            raise ValueError(f"unknown room event {kind!r}")
        lines: list[dict[str, Any]] = handler(event)
        return lines

    def _name(self, seat: int | None) -> str:
        if seat is None:
            return "?"
        s = self.seats[seat]
        return s.name if s is not None else f"Seat {seat + 1}"

    def _on_sit(self, e: Event) -> list[dict[str, Any]]:
        seat = e["seat"]
        self.seats[seat] = Seat(
            name=e["name"], kind=e["kind"], level=e.get("level"), token_hash=e.get("token")
        )
        if self.host is None and e["kind"] == "human":
            self.host = seat
        return [_line("sit", seat, f"{e['name']} sat down.")]

    def _on_move_seat(self, e: Event) -> list[dict[str, Any]]:
        a, b = e["from"], e["to"]
        self.seats[b], self.seats[a] = self.seats[a], None
        if self.host == a:
            self.host = b
        return [_line("sit", b, f"{self._name(b)} moved to seat {b + 1}.")]

    def _on_unseat(self, e: Event) -> list[dict[str, Any]]:
        seat = e["seat"]
        name = self._name(seat)
        self.seats[seat] = None
        if self.host == seat:
            humans = self.humans()
            self.host = humans[0] if humans else None
        return [_line("leave", seat, f"{name} left.")]

    def _on_bot_takes(self, e: Event) -> list[dict[str, Any]]:
        seat = e["seat"]
        old = self.seats[seat]
        name = old.name if old else f"Bot {seat + 1}"
        self.seats[seat] = Seat(name=name, kind="bot", level=e["level"])
        if self.host == seat:
            humans = self.humans()
            self.host = humans[0] if humans else None
        return [_line("leave", seat, f"{name} left; a bot plays the seat.")]

    def _on_presence(self, e: Event) -> list[dict[str, Any]]:
        seat = self.seats[e["seat"]]
        if seat is not None:
            seat.connected = e["connected"]
            if e["connected"]:
                seat.away = False
        return []

    def _on_away(self, e: Event) -> list[dict[str, Any]]:
        seat = self.seats[e["seat"]]
        if seat is None:
            return []
        seat.away = e["away"]
        text = "is away; a bot plays for now." if e["away"] else "is back."
        return [_line("away", e["seat"], f"{seat.name} {text}")]

    def _on_start(self, e: Event) -> list[dict[str, Any]]:
        s = self.settings
        self.match = new_match(self.options, seed=e["seed"], decks=s.decks or (), dealer=s.dealer)
        dealer = self.match.position.dealer
        return [_line("start", dealer, f"The match begins; {self._name(dealer)} deals.")]

    def _on_next(self, e: Event) -> list[dict[str, Any]]:
        assert self.match is not None
        self.match = self.match.next_hand()
        dealer = self.match.position.dealer
        no = self.match.hand_index + 1
        return [_line("deal", dealer, f"Hand {no}: {self._name(dealer)} deals.")]

    def _on_act(self, e: Event) -> list[dict[str, Any]]:
        assert self.match is not None
        seat = e["seat"]
        action = action_from_text(e["a"])
        before = self.match.position
        self.match = self.match.apply(action, seat)
        name = self._name(seat)
        lines = [_describe(name, seat, action, before.stock != self.match.position.stock)]
        if isinstance(action, EndTurn):
            self.turns += 1
        result = self.match.position.result
        if result is not None:
            if result.reason == "emptied":
                text = f"{name} went out and wins the hand."
            else:
                text = "Nobody can or will move: the hand is blocked."
            penalties = ", ".join(f"{self._name(i)} {p}" for i, p in enumerate(result.penalties))
            lines.append(_line("hand_over", result.out, f"{text} Penalties: {penalties}."))
            if self.match.phase == "finished":
                winners = " and ".join(self._name(i) for i in self.match.winners)
                lines.append(_line("match_over", None, f"Match over: {winners} won."))
        return lines

    def legal_for(self, seat: int) -> list[Action]:
        if self.match is None or self.match.position.turn != seat:
            return []
        return legal_actions(self.match.position)


def bot_seat_event(seat: int, level: str) -> Event:
    return {"e": "sit", "seat": seat, "name": f"Bot {seat + 1}", "kind": "bot", "level": level}


def create_event(code: str, settings: RoomOptions) -> Event:
    return {
        "e": "create",
        "code": code,
        "options": settings.model_dump(),
        "at": time.time(),
    }


def _line(kind: str, seat: int | None, text: str) -> dict[str, Any]:
    return {"kind": kind, "seat": seat, "text": text}


def _describe(name: str, seat: int, action: Action, drew: bool) -> dict[str, Any]:
    if isinstance(action, Play):
        return _line("play", seat, f"{name} played {action.card} on {action.pile}.")
    if isinstance(action, Move):
        return _line("move", seat, f"{name} moved pile {action.src} onto {action.dst}.")
    if drew:
        return _line("draw", seat, f"{name} drew a card and ended the turn.")
    return _line("end", seat, f"{name} ended the turn.")


__all__ = [
    "ALLOWED",
    "CODE_ALPHABET",
    "IllegalAction",
    "Room",
    "RoomPhase",
    "Seat",
    "bot_seat_event",
    "create_event",
    "hash_token",
    "new_code",
    "new_token",
]
