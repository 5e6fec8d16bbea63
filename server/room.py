"""One room's logic as a fold over its events: no I/O, no awaits.

A room is rebuilt by applying its stored events in order (:meth:`Room.apply`). A command
from a connection is turned into new events by a ``decide_*`` method, which validates
everything (through the rules engine for game actions) and raises a
:class:`~protocol.errors.ClientError` without changing anything when refused. The server
appends the events to the store at the expected version, then applies them.

Which command is allowed in which phase is one table, :data:`ALLOWED`; which ``_on_*``
handler applies each kind of stored event is another, :data:`EVENT_HANDLERS`, and the kinds
this code reads (:data:`EVENT_KINDS`) are those of that table.

Longer than our ~600-line guide on purpose: the ``decide_*`` methods and the ``_on_*``
handlers of the events they make are one state machine over one set of fields, read
against each other and against :data:`ALLOWED`; split into mixins, each half would need the
other's fields declared again and the invariants would live in two files.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from protocol.bots.levels import LEVELS
from protocol.engine import (
    Effects,
    Match,
    Options,
    Position,
    action_from_text,
    effects,
    new_match,
    public_view,
    seat_view,
)
from protocol.engine.actions import Action, Draw, EndTurn, Move, Play
from protocol.errors import (
    BadOptions,
    BadPhase,
    BadToken,
    ClientError,
    HandInProgress,
    HandOver,
    Kicked,
    MatchOver,
    NotHost,
    NotReady,
    NotSeated,
    RoomFull,
    RoomLocked,
    SeatTaken,
    UpgradeNeeded,
)
from protocol.frames import data
from protocol.log_events import (
    Away,
    BotTook,
    Collected,
    Configured,
    Dealt,
    Drew,
    Ended,
    HandOverEvent,
    HostIs,
    KickedSeat,
    LeftSeat,
    LockedRoom,
    MatchOverEvent,
    Moved,
    MovedSeat,
    Played,
    RematchVote,
    Sat,
    Started,
    TimedOut,
    Took,
)
from protocol.messages import RoomOptions
from protocol.options_table import OPTIONS, room_values, rule_values

from .store.base import Event, link

RoomPhase = Literal["lobby", "playing", "hand_over", "finished"]
Line = dict[str, Any]

#: Commands allowed in each phase (join, leave, chat and resync always are).
ALLOWED: dict[RoomPhase, frozenset[str]] = {
    "lobby": frozenset(
        {"sit", "start", "ready", "configure", "add_bot", "remove_bot", "lock", "kick"}
    ),
    "playing": frozenset({"act", "hint", "kick", "back"}),
    "hand_over": frozenset({"next_hand", "kick", "back"}),
    "finished": frozenset({"rematch", "kick"}),
}

#: Turns a person must end themselves before leaving, being kicked or going away leaves
#: the match rated: stopping sooner makes it unrated for everyone (docs/ratings.md).
MIN_OWN_TURNS = 3
#: A person a bot played more than this share of turns for has abandoned the match.
COVERED_SHARE = 1 / 3

#: The newest stored-event format this code folds (docs/deploy.md, "Upgrading"). An event
#: carries ``v`` only when it needs a reader of a newer format than 1: every event of a kind
#: and meaning that format 1 already had is written without it. A release that adds a kind,
#: or changes what a stored field means, raises this number and marks those events with it.
EVENT_FORMAT = 3
#: Format 2: the draw rule ``until_playable``. A ``create`` or ``configure`` whose options
#: choose it, and an ``act`` of the ``draw`` it brings, carry ``"v": 2``: a reader of format
#: 1 validates the options strictly and knows no such action, so it must leave the room to
#: a newer process rather than fold it.
UNTIL_PLAYABLE_FORMAT = 2
#: Format 3: the rules ``opening_refill`` and ``scoring: corners``. Their options are stored
#: only when off their defaults (:func:`stored_options`), and a ``create`` or ``configure``
#: that stores one carries ``"v": 3``; so does an ``act`` whose move refilled a side space or
#: whose play or move collected a corner. A reader of format 2 validates the options strictly
#: and would fold such an action without its effect: it leaves the room to a newer process.
VARIANTS_FORMAT = 3

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


#: The game's own refusals of a command in a phase it does not take, where one says more
#: than ``bad_phase`` (docs/protocol.md, "Which refusal wins").
PHASE_CODES: dict[tuple[str, RoomPhase], type[ClientError]] = {
    ("act", "hand_over"): HandOver,
    ("act", "finished"): MatchOver,
    ("hint", "hand_over"): HandOver,
    ("hint", "finished"): MatchOver,
    ("next_hand", "playing"): HandInProgress,
    ("next_hand", "finished"): MatchOver,
}


def check_phase(phase: RoomPhase, command: str) -> None:
    """Refuse ``command`` when it is not allowed in ``phase``: with the game's own code
    (:data:`PHASE_CODES`) where there is one, else :class:`BadPhase`."""
    if command not in ALLOWED[phase]:
        code = PHASE_CODES.get((command, phase))
        if code is not None:
            raise code()
        raise BadPhase(
            f"'{command}' is not possible while the room is {phase.replace('_', ' ')}.",
            command=command,
            phase=phase,
        )


@dataclass(slots=True)
class Seat:
    """Who holds a seat. A human seat may be ``away``: then a bot plays it."""

    name: str
    kind: Literal["human", "bot"]
    level: str | None = None
    token_hash: str | None = None
    connected: bool = False
    away: bool = False
    ready: bool = False
    #: Room version when this person sat down: the longest-seated person is next host.
    since: int = 0
    #: Turn timers run out in a row.
    idle: int = 0
    #: Public id of the person's identity (leaderboards, history); None for bots.
    player: str | None = None
    #: The identity's tag when it sat down (``Ana#4F7K``); None for bots (and for a person
    #: seated before the server gave a tag on sitting).
    tag: str | None = None

    def public(self) -> dict[str, Any]:
        human = self.kind == "human"
        return {
            "name": self.name,
            "tag": self.tag if human else None,
            "kind": self.kind,
            "level": self.level,
            "connected": self.connected if human else True,
            "away": self.away,
            "ready": self.ready if human else True,
        }

    @property
    def bot_plays(self) -> bool:
        return self.kind == "bot" or self.away


class Room:
    """The state of one room, built by folding its events."""

    def __init__(self, first: Event) -> None:
        needs_reader(first, first.get("code"))
        if first.get("e") != "create":
            raise ValueError("a room's first event must be 'create'")
        self.code: str = first["code"]
        self.settings = read_options(first)
        self.created_at: float = first["at"]
        #: ``{day, ranked, seed}`` for a daily-deal room, else None.
        self.daily: dict[str, Any] | None = first.get("daily")
        self.seats: list[Seat | None] = [None] * self.settings.seats
        self.host: int | None = None
        self.locked = False
        self.banned: set[str] = set()
        #: Public identities (``player`` ids) the host kicked: they may not sit here again.
        self.banned_players: set[str] = set()
        self.votes: set[int] = set()
        self.match: Match | None = None
        #: Every finished match of this room, as engine records (for history and replays).
        self.finished: list[dict[str, Any]] = []
        self.version = 1
        #: The chain hash of every event applied so far (see :func:`server.store.base.link`).
        self.head: str = first.get("h", "")
        self.turns = 0  # turns ended in this room, to tell one turn from the next
        #: The turn (hand index, turns) whose timer ran out: a bot finishes it.
        self.expired: tuple[int, int] | None = None
        #: People who left the current match to a bot: seat -> (player, name).
        self.deserters: dict[int, tuple[str, str]] = {}
        #: People the host kicked out of the current match: seat -> (player, name).
        self.kicked: dict[int, tuple[str, str]] = {}
        #: Turns of the current match each seat's person ended themselves, and turns a bot
        #: ended for a person's seat (covering while away, or after a timeout).
        self.own_turns: dict[int, int] = {}
        self.covered_turns: dict[int, int] = {}
        #: A person stopped playing the current match before :data:`MIN_OWN_TURNS`.
        self.aborted = False
        #: Each seat's rating change once the finished match was rated (None: a bot).
        self.ratings: list[dict[str, int] | None] | None = None
        #: The last action validated by :meth:`decide_act`, as (match before, seat, action
        #: text, match after), so applying its event does not play the move a second time.
        self._validated: tuple[Match, int, str, Match] | None = None

    @classmethod
    def from_events(cls, events: Iterable[Event]) -> Room:
        """The room a stored log describes: its first event, then every other one folded in."""
        it = iter(events)
        room = cls(next(it))
        for event in it:
            room.apply(event)
        return room

    # --- reading ---------------------------------------------------------------------

    @property
    def phase(self) -> RoomPhase:
        return "lobby" if self.match is None else self.match.phase

    @property
    def options(self) -> Options:
        s = self.settings
        return Options(**rule_values(s))

    @property
    def unrated(self) -> str | None:
        """Why this room's current match changes no rating, or None when it does: a
        casual room, the daily deal (anyone could rehearse it; it has its own board), a
        deal the client chose (a known seed or stacked decks), or a match aborted because
        a person stopped before playing :data:`MIN_OWN_TURNS` turns."""
        s = self.settings
        if s.casual:
            return "casual"
        if self.daily is not None:
            return "daily"
        if s.seed is not None or s.decks:
            return "chosen_deal"
        if self.aborted:
            return "aborted"
        return None

    @property
    def rated(self) -> bool:
        """Whether this room's current match changes ratings (see :attr:`unrated`)."""
        return self.unrated is None

    def abandoned(self) -> list[int]:
        """Seats abandoned in the current match: left to a bot, away (a bot covering) at
        the end, or a bot played more than :data:`COVERED_SHARE` of the person's turns. A
        kicked person has not abandoned: their seat's result stands."""
        out = set(self.deserters)
        for i, s in enumerate(self.seats):
            if s is None or s.kind != "human":
                continue
            own, covered = self.own_turns.get(i, 0), self.covered_turns.get(i, 0)
            if s.away or covered > COVERED_SHARE * (own + covered):
                out.add(i)
        return sorted(out)

    def info(self) -> dict[str, Any]:
        """The public part of every viewer's document (never the seed or decks)."""
        s = self.settings
        return {
            "rated": self.rated,
            "unrated": self.unrated,
            "ratings": self.ratings,
            "code": self.code,
            "phase": self.phase,
            "public": s.public,
            "locked": self.locked,
            "options": room_values(s),
            "seats": [seat.public() if seat else None for seat in self.seats],
            "host": self.host,
            "rematch": sorted(self.votes),
            "daily": None
            if self.daily is None
            else {"day": self.daily["day"], "ranked": self.daily["ranked"]},
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
        if any(hmac.compare_digest(digest, banned) for banned in self.banned):
            raise Kicked()
        found = -1
        for i, seat in enumerate(self.seats):
            known = seat.token_hash if seat is not None else None
            if known is not None and hmac.compare_digest(known, digest):
                found = i
        if found < 0:
            raise BadToken()
        return found

    def seat_of_hash(self, digest: str | None) -> int | None:
        """The seat a person whose token hashes to ``digest`` holds now, if any."""
        if digest is None:
            return None
        for i, seat in enumerate(self.seats):
            if seat is not None and seat.token_hash == digest:
                return i
        return None

    def free_seats(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s is None]

    @property
    def turn_key(self) -> tuple[int, int] | None:
        """Identifies the current turn: (hand index, turns ended so far)."""
        return None if self.match is None else (self.match.hand_index, self.turns)

    def bot_to_move(self) -> int | None:
        """The seat a bot should play now, if any (a bot's seat, an away seat, or a timeout)."""
        if self.match is None or self.match.phase != "playing":
            return None
        turn = self.match.position.turn
        seat = self.seats[turn]
        if seat is not None and (seat.bot_plays or self.expired == self.turn_key):
            return turn
        return None

    def seat_to_move(self) -> int | None:
        if self.match is None or self.match.phase != "playing":
            return None
        return self.match.position.turn

    def someone_plays(self) -> bool:
        """Whether a person still plays a seat (seated, and no bot covering for them)."""
        return any(s is not None and s.kind == "human" and not s.away for s in self.seats)

    def humans(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s is not None and s.kind == "human"]

    def people(self) -> list[tuple[str, str, int]]:
        """(player id, name, seat) of every person with an identity who played the current
        match: those seated, those who left it to a bot and those kicked out of it."""
        seated = [
            (s.player, s.name, i)
            for i, s in enumerate(self.seats)
            if s is not None and s.kind == "human" and s.player
        ]
        gone = [(p, name, i) for i, (p, name) in {**self.deserters, **self.kicked}.items()]
        return sorted(seated + gone, key=lambda person: person[2])

    def _player_at(self, seat: int) -> str | None:
        """The identity that played ``seat`` in the current match (None: a bot's seat)."""
        gone = self.deserters.get(seat) or self.kicked.get(seat)
        if gone is not None:
            return gone[0]
        s = self.seats[seat]
        return s.player if s is not None else None

    def _stopping(self, seat: int) -> None:
        """The person in ``seat`` stops playing the match (leaves, is kicked, goes away):
        before :data:`MIN_OWN_TURNS` of their own turns, the match counts for nobody."""
        s = self.seats[seat]
        playing = self.phase in ("playing", "hand_over")
        if (
            playing
            and s is not None
            and s.kind == "human"
            and self.own_turns.get(seat, 0) < MIN_OWN_TURNS
        ):
            self.aborted = True

    def bot_seed(self, seat: int) -> str:
        """Seed of the bot in ``seat``: fixed by the deal in a daily room, so everyone faces
        bots that answer the same moves the same way."""
        if self.daily is not None:
            return f"{self.daily['seed']}:{seat}"
        return f"{self.code}:{seat}"

    def record_so_far(self) -> dict[str, Any]:
        """What the coach needs of the match being played, as far as it went: its future
        record's id, the deal and the log so far, and who sits where."""
        assert self.match is not None
        return {
            "id": self._match_id(),
            "room": self.code,
            **self.match.record(),
            "seats": [
                {"name": s.name, "kind": s.kind, "level": s.level} if s else None
                for s in self.seats
            ],
            "daily": None
            if self.daily is None
            else {"day": self.daily["day"], "ranked": self.daily["ranked"]},
        }

    def finished_record(self) -> dict[str, Any]:
        """What history keeps of the match that just finished (it replays exactly)."""
        assert self.match is not None and self.match.phase == "finished"
        match = self.match
        return {
            "id": f"{self.code}-{len(self.finished) + 1}",
            "room": self.code,
            "finished_at": time.time(),
            **match.record(),
            "seats": [
                {"name": s.name, "kind": s.kind, "level": s.level} if s else None
                for s in self.seats
            ],
            "players": [self._player_at(i) for i in range(len(self.seats))],
            "abandoned": self.abandoned(),
            "kicked": sorted(self.kicked),
            "rated": self.rated,
            "unrated": self.unrated,
            "results": [list(r.penalties) for r in match.results],
            "totals": list(match.totals),
            "winners": list(match.winners),
            **self._corners_record(),
            "daily": None
            if self.daily is None
            else {"day": self.daily["day"], "ranked": self.daily["ranked"]},
        }

    def _corners_record(self) -> dict[str, Any]:
        """Under ``scoring: corners``, what a finished record adds: each seat's corners
        collected and its place (what the ratings order the seats by); nothing otherwise, so
        the record of a standard match is what it always was."""
        match = self.match
        if match is None or match.options.scoring != "corners":
            return {}
        return {"collected": list(match.collected), "places": list(match.places)}

    def next_host(self, leaving: int | None = None) -> int | None:
        """The longest-seated connected human (else any human), other than ``leaving``."""
        people = [(s.since, i, s) for i, s in enumerate(self.seats) if s is not None]
        people = [p for p in people if p[2].kind == "human" and p[1] != leaving]
        connected = [p for p in people if p[2].connected and not p[2].away]
        pool = connected or people
        return min(pool)[1] if pool else None

    # --- deciding: commands to events (raise, never mutate) ------------------------------

    def _seat_range(self, seat: int) -> None:
        if not 0 <= seat < len(self.seats):
            raise SeatTaken(
                f"This room has seats 1 to {len(self.seats)}.",
                reason="no_such_seat",
                seat=seat,
                seats=len(self.seats),
            )

    def _host_only(self, actor: int | None) -> None:
        if actor is None:
            raise NotSeated()
        if actor != self.host:
            raise NotHost()

    def decide_sit(
        self,
        seat: int | None,
        name: str,
        token: str | None = None,
        player: str | None = None,
        tag: str | None = None,
    ) -> Event:
        """A human takes ``seat`` (or the first free one); ``token`` is its new secret,
        ``player`` the person's public identity (refused with ``kicked`` once kicked here),
        ``tag`` that identity's tag, shown with the name."""
        check_phase(self.phase, "sit")
        if player is not None and player in self.banned_players:
            raise Kicked()
        if self.locked:
            raise RoomLocked()
        free = self.free_seats()
        if seat is None:
            if not free:
                raise RoomFull(reason="seats")
            seat = free[0]
        self._seat_range(seat)
        if self.seats[seat] is not None:
            raise SeatTaken(reason="taken", seat=seat)
        event: Event = {"e": "sit", "seat": seat, "name": name, "kind": "human"}
        if token is not None:
            event["token"] = hash_token(token)
            event["connected"] = True  # the person holding the token is connecting now
        if player is not None:
            event["player"] = player
        if tag is not None:
            event["tag"] = tag
        return event

    def decide_move_seat(self, current: int, seat: int) -> Event:
        check_phase(self.phase, "sit")
        self._seat_range(seat)
        if self.seats[seat] is not None:
            raise SeatTaken(reason="taken", seat=seat)
        return {"e": "move_seat", "from": current, "to": seat}

    def decide_ready(self, seat: int | None, ready: bool) -> list[Event]:
        if seat is None:
            raise NotSeated()
        check_phase(self.phase, "ready")
        s = self.seats[seat]
        if s is None or s.ready == ready:
            return []
        return [{"e": "ready", "seat": seat, "ready": ready}]

    def decide_configure(self, actor: int | None, settings: RoomOptions) -> list[Event]:
        """The host changes the options: seats, variants, bot levels, public, timer."""
        self._host_only(actor)
        check_phase(self.phase, "configure")
        # Reproducible-deal settings are never shown to clients: keep them unless resent.
        # The bots' pace is kept too unless resent (a client that knows no pace keeps it).
        before = self.settings
        kept = {key: getattr(before, key) for key in ("seed", "decks", "dealer")}
        kept = {key: value for key, value in kept.items() if getattr(settings, key) is None}
        if "pace" not in settings.model_fields_set:
            kept["pace"] = before.pace
        settings = settings.model_copy(update=kept)
        for i, s in enumerate(self.seats):
            if s is not None and s.kind == "human" and i >= settings.seats:
                raise BadOptions(
                    f"Seat {i + 1} is taken: it cannot be removed.", reason="seat_taken", seat=i
                )
        options = Options(**rule_values(settings))
        new_match(options, seed="check", decks=settings.decks or (), dealer=settings.dealer)
        events: list[Event] = [{"e": "configure", **stored_options(settings)}]
        for i, level in enumerate(settings.bots[: settings.seats]):
            current = self.seats[i] if i < len(self.seats) else None
            if level is None or (current is not None and current.level == level):
                continue
            if current is not None and current.kind == "human":
                raise BadOptions(
                    f"Seat {i + 1} is a person's: it cannot become a bot.",
                    reason="seat_is_a_person",
                    seat=i,
                )
            events.append(bot_seat_event(i, level))
        return events

    def decide_add_bot(self, actor: int | None, seat: int, level: str) -> Event:
        self._host_only(actor)
        check_phase(self.phase, "add_bot")
        self._seat_range(seat)
        if self.seats[seat] is not None:
            raise SeatTaken(reason="taken", seat=seat)
        return bot_seat_event(seat, level)

    def decide_remove_bot(self, actor: int | None, seat: int) -> Event:
        self._host_only(actor)
        check_phase(self.phase, "remove_bot")
        self._seat_range(seat)
        s = self.seats[seat]
        if s is None or s.kind != "bot":
            raise SeatTaken("That seat has no bot.", reason="no_bot", seat=seat)
        return {"e": "unseat", "seat": seat}

    def decide_lock(self, actor: int | None, locked: bool) -> list[Event]:
        self._host_only(actor)
        check_phase(self.phase, "lock")
        return [] if self.locked == locked else [{"e": "lock", "locked": locked}]

    def decide_kick(self, actor: int | None, seat: int) -> Event:
        self._host_only(actor)
        check_phase(self.phase, "kick")
        self._seat_range(seat)
        s = self.seats[seat]
        if s is None or s.kind != "human" or seat == actor:
            raise SeatTaken(
                "Only another person's seat can be kicked.", reason="not_a_person", seat=seat
            )
        if self.match is None:
            return {"e": "kick", "seat": seat}
        return {"e": "kick", "seat": seat, "level": self.stand_in_level()}

    def decide_start(
        self, actor: int | None, fill: str | None, seed: str | None = None
    ) -> list[Event]:
        if actor is None:
            raise NotSeated()
        if self.host is not None and actor != self.host:
            raise NotHost()
        check_phase(self.phase, "start")
        waiting = [
            i
            for i, s in enumerate(self.seats)
            if s is not None and s.kind == "human" and i != actor and not s.ready
        ]
        if waiting:
            names = ", ".join(self._name(i) for i in waiting)
            raise NotReady(f"Waiting for {names} to be ready.", seats=waiting)
        events: list[Event] = []
        for i in self.free_seats():
            if fill is None:
                raise BadPhase(
                    "Every seat must be taken, or choose a bot level to fill them.",
                    reason="empty_seats",
                    seats=self.free_seats(),
                )
            events.append(bot_seat_event(i, fill))
        s = self.settings
        chosen = s.seed if s.seed is not None else (seed or secrets.token_hex(8))
        events.append({"e": "start", "seed": chosen})
        # Deal once now so a bad stacked deck is refused here rather than stored.
        new_match(self.options, seed=chosen, decks=s.decks or (), dealer=s.dealer)
        return events

    def decide_act(self, seat: int | None, action: Action, by_bot: bool = False) -> list[Event]:
        """Validate ``action`` for ``seat`` with the engine; refused actions raise.

        A person acting for a seat a bot was covering takes it back first.
        """
        if seat is None:
            raise NotSeated()
        check_phase(self.phase, "act")
        assert self.match is not None
        after = self.match.apply(action, seat)  # raises IllegalAction
        text = action.text()
        self._validated = (self.match, seat, text, after)
        event: Event = {"e": "act", "seat": seat, "a": text}
        if isinstance(action, Draw):
            event["v"] = UNTIL_PLAYABLE_FORMAT
        elif effects(self.match.position, action, after.position) != Effects():
            event["v"] = VARIANTS_FORMAT
        s = self.seats[seat]
        if by_bot:
            event["by"] = "bot"
            return [event]
        if s is not None and s.away:
            return [{"e": "away", "seat": seat, "away": False}, event]
        return [event]

    def decide_back(self, seat: int | None) -> list[Event]:
        if seat is None:
            raise NotSeated()
        check_phase(self.phase, "back")
        s = self.seats[seat]
        return [{"e": "away", "seat": seat, "away": False}] if s is not None and s.away else []

    def decide_timeout(self, turn_key: tuple[int, int], idle_turns: int) -> list[Event]:
        """The timer of turn ``turn_key`` ran out; after ``idle_turns`` in a row, away."""
        seat = self.seat_to_move()
        if seat is None or self.turn_key != turn_key or self.expired == turn_key:
            return []
        s = self.seats[seat]
        away = s is not None and s.kind == "human" and s.idle + 1 >= idle_turns
        return [{"e": "timeout", "seat": seat, "away": away}]

    def decide_next_hand(self) -> Event:
        check_phase(self.phase, "next_hand")
        return {"e": "next"}

    def decide_rematch(self, seat: int | None, force: bool = False) -> list[Event]:
        """Vote for another match with the same table; it starts once every person agrees.

        The host may ``force`` it: bots then take the seats of people who are gone.
        """
        if seat is None:
            raise NotSeated()
        if force:
            self._host_only(seat)
        check_phase(self.phase, "rematch")
        if self.daily is not None:
            raise BadPhase(
                "A daily deal is played once: start a new daily or a new game.", reason="daily"
            )
        events: list[Event] = []
        if force:
            for i, s in enumerate(self.seats):
                if s is not None and s.kind == "human" and not s.connected and i != seat:
                    level = self.stand_in_level("medium")
                    events.append({"e": "bot_takes", "seat": i, "level": level})
        elif seat not in self.votes:
            events.append({"e": "vote", "seat": seat})
        present = {
            i
            for i, s in enumerate(self.seats)
            if s is not None and s.kind == "human" and s.connected
        }
        gone = {e["seat"] for e in events if e["e"] == "bot_takes"}
        if force or (present - gone) <= self.votes | {seat}:
            rematch: Event = {"e": "rematch", "seed": secrets.token_hex(8)}
            if self.settings.decks:
                rematch["decks"] = True  # the stacked decks again; older logs lack the flag
            # A bot that took a person's seat went by that person's name; the new match is
            # not theirs, so it goes by its own (older processes ignore the field and keep
            # the person's name on it: a label, the same room).
            renamed = sorted(
                gone
                | {
                    i
                    for i, s in enumerate(self.seats)
                    if s is not None and s.kind == "bot" and s.name != bot_name(i)
                }
            )
            if renamed:
                rematch["bots_renamed"] = renamed
            events.append(rematch)
        return events

    def decide_rated(self, match: str, seats: list[dict[str, int] | None]) -> list[Event]:
        """The finished match ``match`` was rated: show each seat's change (if still on)."""
        if self.phase != "finished" or self._match_id() != match or self.ratings is not None:
            return []
        return [{"e": "rated", "match": match, "seats": seats}]

    def _match_id(self) -> str:
        return f"{self.code}-{len(self.finished) + 1}"

    def decide_leave(self, seat: int) -> Event:
        if self.phase == "lobby":
            return {"e": "unseat", "seat": seat}
        return {"e": "bot_takes", "seat": seat, "level": self.stand_in_level()}

    def stand_in_level(self, floor: str = "heuristic") -> str:
        """The level of a bot that takes a person's seat for good mid-match (a leaver's, a
        kicked person's): the strongest level of the bots at the table, never weaker than
        ``floor``, so the others' results do not depend on who left."""
        levels = [s.level for s in self.seats if s is not None and s.kind == "bot" and s.level]
        known = [level for level in levels if level in LEVELS]
        return max([floor, *known], key=LEVELS.index)

    def decide_host(self, leaving: int) -> list[Event]:
        """Hand the host role on when the host is gone past the grace period."""
        if self.host != leaving:
            return []
        successor = self.next_host(leaving)
        return [] if successor is None else [{"e": "host", "seat": successor}]

    # --- applying: events to state (trusted, already validated) --------------------------

    def apply(self, event: Event) -> list[Line]:
        """Apply one stored event; return the table-log lines it produces.

        An event this code cannot read (a kind it does not know, or a format newer than
        :data:`EVENT_FORMAT`) raises :class:`~protocol.errors.UpgradeNeeded` and changes
        nothing: the room is a newer server's to serve.
        """
        needs_reader(event, self.code)
        self.version += 1
        self.head = event.get("h", "")
        handler = EVENT_HANDLERS.get(event["e"])
        if handler is None:  # a second ``create``: a broken log, not a newer one
            raise ValueError(f"room event {event['e']!r} after the first")
        return handler(self, event)

    def _name(self, seat: int | None) -> str:
        if seat is None:
            return "?"
        s = self.seats[seat]
        return s.name if s is not None else f"Seat {seat + 1}"

    def _hand_over_host(self, leaving: int) -> list[Line]:
        if self.host != leaving:
            return []
        self.host = self.next_host(leaving)
        if self.host is None:
            return []
        return [data(HostIs, seat=self.host)]

    def _on_sit(self, e: Event) -> list[Line]:
        seat = e["seat"]
        self.seats[seat] = Seat(
            name=e["name"],
            kind=e["kind"],
            level=e.get("level"),
            token_hash=e.get("token"),
            since=self.version,
            ready=e.get("ready", False),
            player=e.get("player"),
            connected=e.get("connected", False),
            tag=e.get("tag"),
        )
        if self.host is None and e["kind"] == "human":
            self.host = seat
        return [data(Sat, seat=seat, name=e["name"], bot=e.get("level"))]

    def _on_move_seat(self, e: Event) -> list[Line]:
        a, b = e["from"], e["to"]
        self.seats[b], self.seats[a] = self.seats[a], None
        if self.host == a:
            self.host = b
        return [data(MovedSeat, seat=b, from_=a)]

    def _on_unseat(self, e: Event) -> list[Line]:
        seat = e["seat"]
        name = self._name(seat)
        lines = self._hand_over_host(seat)
        self.seats[seat] = None
        return [data(LeftSeat, seat=seat, name=name), *lines]

    def _on_bot_takes(self, e: Event) -> list[Line]:
        seat = e["seat"]
        old = self.seats[seat]
        playing = self.phase in ("playing", "hand_over")
        self._stopping(seat)
        if playing and old is not None and old.kind == "human" and old.player:
            self.deserters[seat] = (old.player, old.name)
        name = old.name if old else bot_name(seat)
        lines = self._hand_over_host(seat)
        self.seats[seat] = Seat(name=name, kind="bot", level=e["level"], since=self.version)
        return [data(BotTook, seat=seat, name=name, level=e["level"]), *lines]

    def _on_kick(self, e: Event) -> list[Line]:
        seat = e["seat"]
        old = self.seats[seat]
        name = old.name if old else "?"
        if old is not None and old.token_hash is not None:
            self.banned.add(old.token_hash)
        if old is not None and old.player:
            self.banned_players.add(old.player)
        self._stopping(seat)
        playing = self.phase in ("playing", "hand_over")
        if playing and old is not None and old.kind == "human" and old.player:
            self.kicked[seat] = (old.player, old.name)
        lines = self._hand_over_host(seat)
        if self.match is None:
            self.seats[seat] = None
        else:
            # Older logs name no level: the heuristic bot took a kicked seat then.
            level = e.get("level", "heuristic")
            self.seats[seat] = Seat(name=bot_name(seat), kind="bot", level=level)
        return [data(KickedSeat, seat=seat, name=name), *lines]

    def _on_host(self, e: Event) -> list[Line]:
        self.host = e["seat"]
        return [data(HostIs, seat=self.host)]

    def _on_ready(self, e: Event) -> list[Line]:
        s = self.seats[e["seat"]]
        if s is not None:
            s.ready = e["ready"]
        return []

    def _on_lock(self, e: Event) -> list[Line]:
        self.locked = e["locked"]
        return [data(LockedRoom, seat=self.host, locked=self.locked)]

    def _on_configure(self, e: Event) -> list[Line]:
        self.settings = read_options(e)
        n = self.settings.seats
        self.seats = (self.seats + [None] * n)[:n]
        for s in self.seats:
            if s is not None:
                s.ready = False
        return [data(Configured, seat=self.host)]

    def _on_presence(self, e: Event) -> list[Line]:
        """A person's connection came or went; coming back ends their being away."""
        seat = self.seats[e["seat"]]
        if seat is None:
            return []
        seat.connected = e["connected"]
        if not e["connected"]:
            return []
        seat.idle = 0
        if not seat.away:
            return []
        seat.away = False
        return [data(Away, seat=e["seat"], away=False)]

    def _on_away(self, e: Event) -> list[Line]:
        seat = self.seats[e["seat"]]
        if seat is None:
            return []
        seat.away = e["away"]
        if not seat.away:
            seat.idle = 0
        else:
            self._stopping(e["seat"])
        return [data(Away, seat=e["seat"], away=seat.away)]

    def _on_timeout(self, e: Event) -> list[Line]:
        seat = self.seats[e["seat"]]
        if seat is None:
            return []
        seat.idle += 1
        self.expired = self.turn_key
        lines: list[Line] = [data(TimedOut, seat=e["seat"])]
        if e["away"] and not seat.away:
            seat.away = True
            self._stopping(e["seat"])
            lines.append(data(Away, seat=e["seat"], away=True))
        return lines

    def _on_vote(self, e: Event) -> list[Line]:
        self.votes.add(e["seat"])
        return [data(RematchVote, seat=e["seat"])]

    def _on_rated(self, e: Event) -> list[Line]:
        if self.phase == "finished" and self._match_id() == e["match"]:
            self.ratings = e["seats"]
        return []

    def _on_rematch(self, e: Event) -> list[Line]:
        if self.match is not None:
            self.finished.append(self.match.record())
        self.votes.clear()
        for i in e.get("bots_renamed", ()):
            s = self.seats[i]
            if s is not None and s.kind == "bot":
                s.name = bot_name(i)
        self._new_match()
        self.turns = 0
        decks = (self.settings.decks or ()) if e.get("decks") else ()
        self.match = new_match(self.options, seed=e["seed"], decks=decks)
        dealer = self.match.position.dealer
        return [data(Started, dealer=dealer, rematch=True)]

    def _new_match(self) -> None:
        self.deserters.clear()
        self.kicked.clear()
        self.own_turns.clear()
        self.covered_turns.clear()
        self.aborted = False
        self.ratings = None

    def _on_start(self, e: Event) -> list[Line]:
        self._new_match()
        s = self.settings
        self.match = new_match(self.options, seed=e["seed"], decks=s.decks or (), dealer=s.dealer)
        dealer = self.match.position.dealer
        return [data(Started, dealer=dealer, rematch=False)]

    def _on_next(self, e: Event) -> list[Line]:
        assert self.match is not None
        self.match = self.match.next_hand()
        dealer = self.match.position.dealer
        return [data(Dealt, dealer=dealer, hand=self.match.hand_index + 1)]

    def _on_act(self, e: Event) -> list[Line]:
        assert self.match is not None
        seat = e["seat"]
        action = action_from_text(e["a"])
        before = self.match.position
        validated, self._validated = self._validated, None
        if (
            validated is not None
            and validated[0] is self.match
            and validated[1:3] == (seat, e["a"])
        ):
            self.match = validated[3]  # matches are immutable: the validated result holds
        else:
            self.match = self.match.apply(action, seat)
        s = self.seats[seat]
        if s is not None and e.get("by") != "bot":
            s.idle = 0
        lines = _describe(seat, action, before, self.match)
        if isinstance(action, EndTurn):
            self.turns += 1
            if s is not None and s.kind == "human":
                counts = self.covered_turns if e.get("by") == "bot" else self.own_turns
                counts[seat] = counts.get(seat, 0) + 1
        result = self.match.position.result
        if result is not None:
            lines.append(
                data(
                    HandOverEvent,
                    out=result.out,
                    reason=result.reason,
                    penalties=list(result.penalties),
                )
            )
            if self.match.phase == "finished":
                lines.append(self._match_over())
        return lines

    def _match_over(self) -> Line:
        """The ``match_over`` line: the winners (the seats in first place), and under
        ``scoring: corners`` every seat's place (ties shared: 1, 2, 2, 4)."""
        assert self.match is not None
        match = self.match
        if match.options.scoring == "corners":
            return data(MatchOverEvent, winners=list(match.winners), places=list(match.places))
        return data(MatchOverEvent, winners=list(match.winners))


#: How :meth:`Room.apply` folds each kind of stored event after the first, and so the one
#: list of those kinds: a kind missing here is a newer release's (``UpgradeNeeded``).
#: ``create`` only ever starts a log (:class:`Room`'s constructor folds it).
EVENT_HANDLERS: dict[str, Callable[[Room, Event], list[Line]]] = {
    "sit": Room._on_sit,
    "move_seat": Room._on_move_seat,
    "unseat": Room._on_unseat,
    "bot_takes": Room._on_bot_takes,
    "kick": Room._on_kick,
    "host": Room._on_host,
    "ready": Room._on_ready,
    "lock": Room._on_lock,
    "configure": Room._on_configure,
    "presence": Room._on_presence,
    "away": Room._on_away,
    "timeout": Room._on_timeout,
    "vote": Room._on_vote,
    "rated": Room._on_rated,
    "rematch": Room._on_rematch,
    "start": Room._on_start,
    "next": Room._on_next,
    "act": Room._on_act,
}
#: The kinds of stored events this code folds: ``create``, then those of :data:`EVENT_HANDLERS`.
EVENT_KINDS = frozenset({"create", *EVENT_HANDLERS})


def needs_reader(event: Event, room: str | None) -> None:
    """Raise :class:`~protocol.errors.UpgradeNeeded` unless this code can fold ``event``:
    its kind is one of :data:`EVENT_KINDS` and its format (``v``, 1 when absent) is at most
    :data:`EVENT_FORMAT`. A ``create`` is only ever a room's first event."""
    kind, format_ = event.get("e"), event.get("v", 1)
    if not isinstance(format_, int) or isinstance(format_, bool):
        format_ = EVENT_FORMAT + 1  # not a format this code wrote: a newer one's
    if kind not in EVENT_KINDS or format_ > EVENT_FORMAT:
        raise UpgradeNeeded(room=room, format=format_)


def bot_name(seat: int) -> str:
    """A bot's own name at ``seat``: ``Bot 2`` at seat 1."""
    return f"Bot {seat + 1}"


def bot_seat_event(seat: int, level: str) -> Event:
    return {"e": "sit", "seat": seat, "name": bot_name(seat), "kind": "bot", "level": level}


def stored_options(settings: RoomOptions) -> dict[str, Any]:
    """The options as a ``create`` or ``configure`` event stores them: ``options`` as every
    release reads them, and the bots' pace beside them, only when fast. Releases before the
    pace read the options strictly and ignore the fields of an event they do not know: a fast
    room stays readable to them, its bots at their normal pace (docs/deploy.md, Upgrading).

    A rule declared ``omit_default`` (``opening_refill``, ``scoring``) is left out of
    ``options`` at its default, so such a room's event is byte for byte what the release
    before wrote; off its default it is stored and the event is marked
    :data:`VARIANTS_FORMAT` (``draw: until_playable`` alone: :data:`UNTIL_PLAYABLE_FORMAT`)."""
    options = settings.model_dump(exclude={"pace"})
    format_ = 1
    for spec in OPTIONS:
        if spec.omit_default and spec.name in options:
            if options[spec.name] == spec.default:
                del options[spec.name]
            else:
                format_ = VARIANTS_FORMAT
    if settings.draw == "until_playable":
        format_ = max(format_, UNTIL_PLAYABLE_FORMAT)
    stored: dict[str, Any] = {"options": options}
    if settings.pace != "normal":
        stored["pace"] = settings.pace
    if format_ > 1:
        stored["v"] = format_
    return stored


def read_options(event: Event) -> RoomOptions:
    """The options of a ``create`` or ``configure`` event, with its pace."""
    return RoomOptions.model_validate({**event["options"], "pace": event.get("pace", "normal")})


def create_event(code: str, settings: RoomOptions, daily: dict[str, Any] | None = None) -> Event:
    """The first event of a room. ``daily`` marks a daily-deal room: ``{day, ranked, seed}``."""
    event: Event = {
        "e": "create",
        "code": code,
        **stored_options(settings),
        "at": time.time(),
    }
    if daily is not None:
        event["daily"] = daily
    event["h"] = link("", event)
    return event


def _describe(seat: int, action: Action, before: Position, after: Match) -> list[Line]:
    """The log events of one game action (what anyone at the table saw happen): one, then a
    ``collected`` when it completed a corner (``scoring: corners``), and a ``took`` after a
    play whose emptied hand drew cards (``draw: until_playable``). A move that refilled its
    side space (``opening_refill``) names the card now lying there in ``moved.refill``."""
    position = after.position
    if isinstance(action, Play | Move):
        done = effects(before, action, position)
        if isinstance(action, Play):
            lines = [data(Played, seat=seat, card=action.card, pile=action.pile)]
        elif done.refill is not None:
            lines = [data(Moved, seat=seat, from_=action.src, to=action.dst, refill=done.refill)]
        else:
            lines = [data(Moved, seat=seat, from_=action.src, to=action.dst)]
        if done.collected is not None:
            total = position.collected[seat]
            lines.append(data(Collected, seat=seat, corner=done.collected, total=total))
        taken = len(before.stock) - len(position.stock) - (done.refill is not None)
        if taken:
            lines.append(data(Took, seat=seat, count=taken))
        return lines
    taken = len(before.stock) - len(position.stock)
    if isinstance(action, Draw):
        return [data(Took, seat=seat, count=taken)]
    if taken and after.options.draw == "end":
        return [data(Drew, seat=seat)]
    return [data(Ended, seat=seat)]


__all__ = [
    "ALLOWED",
    "CODE_ALPHABET",
    "EVENT_FORMAT",
    "EVENT_HANDLERS",
    "EVENT_KINDS",
    "UNTIL_PLAYABLE_FORMAT",
    "VARIANTS_FORMAT",
    "Room",
    "RoomPhase",
    "Seat",
    "bot_seat_event",
    "check_phase",
    "create_event",
    "hash_token",
    "needs_reader",
    "new_code",
    "new_token",
]
