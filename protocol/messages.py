"""Every message on the wire, as frozen pydantic models in two closed unions.

Messages are JSON text frames, each an object tagged by ``type``. :data:`ClientMessage`
lists what a client may send, :data:`ServerMessage` what the server sends. The JSON Schema
in ``protocol/schema.json`` is generated from these models (``python -m protocol.schema``);
``docs/protocol.md`` explains the flow. A ``patch``'s log events are in :mod:`protocol.log_events`.

Longer than our ~600-line guide on purpose: a client author reads every frame of both
directions in one file, in the order docs/protocol.md tells them (the log events and the
shared wire types are apart already).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, StringConstraints

from protocol.log_events import LogEvent
from protocol.options_table import DrawRule, Pace, Scoring, option
from protocol.wire_types import CardCode, Level, Name, RoomCode, Seq, WireModel

#: The protocol version this release speaks (docs/protocol-changes.md lists each one).
PROTOCOL_VERSION = 2
#: Older versions a ``hello`` may still ask for, in their deprecation period
#: (docs/protocol-changes.md says until when).
DEPRECATED_VERSIONS = frozenset({1})
#: Every version a ``hello`` may ask for; any other is refused with ``unsupported_version``.
SUPPORTED_VERSIONS = frozenset({PROTOCOL_VERSION, *DEPRECATED_VERSIONS})


# --- actions (the engine's wire vocabulary) ------------------------------------------


class PlayAction(WireModel):
    type: Literal["play"]
    card: str = Field(max_length=3)
    pile: str = Field(max_length=2)


class MoveAction(WireModel):
    type: Literal["move"]
    from_: str = Field(alias="from", max_length=2)
    to: str = Field(max_length=2)
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, populate_by_name=True)


class EndTurnAction(WireModel):
    type: Literal["end_turn"]


class DrawAction(WireModel):
    """Take the stock's top card, the turn going on: only in a ``draw: until_playable``
    room, while no card of the hand can be played."""

    type: Literal["draw"]


ActionModel = Annotated[
    PlayAction | MoveAction | DrawAction | EndTurnAction, Field(discriminator="type")
]


# --- room options ----------------------------------------------------------------------


def _default(name: str) -> Any:
    return option(name).default


_SEATS, _TARGET, _TIMER = option("seats"), option("target"), option("turn_timer")


# The options a person picks are declared in protocol/options_table.py, with their bounds
# and defaults; the fields here type them.
class RoomOptions(WireModel):
    """Rules of the match (RULES.md variants) and how the room runs."""

    seats: int = Field(default=_default("seats"), ge=_SEATS.low, le=_SEATS.high)
    target: int = Field(default=_default("target"), ge=_TARGET.low, le=_TARGET.high)
    draw: DrawRule = _default("draw")
    kings_first: bool = _default("kings_first")
    #: In a hand's first turn, until a card is played from the hand, a pile move that
    #: empties a side space refills it from the top of the stock.
    opening_refill: bool = _default("opening_refill")
    #: ``penalty``: totals over hands up to ``target``; ``corners``: one hand, placed by
    #: the corners each seat collected (completed from king to ace), then by penalty.
    scoring: Scoring = _default("scoring")
    public: bool = _default("public")
    #: A bot level per seat index for seats that bots take from the start; null = human seat.
    bots: list[Level | None] = Field(default_factory=list, max_length=4)
    #: Seconds a seat has for its turn before a bot plays it; null = no timer.
    turn_timer: float | None = Field(
        default=_default("turn_timer"), gt=_TIMER.above, le=_TIMER.high
    )
    #: Reproducible deals: a seed, and/or stacked decks (52 codes, index 0 = top) per hand.
    seed: str | None = Field(default=None, max_length=64)
    decks: list[list[CardCode]] | None = Field(default=None, max_length=32)
    dealer: int | None = Field(default=None, ge=0, le=3)
    #: A practice room: its matches change nobody's rating.
    casual: bool = _default("casual")
    #: How fast the bots play: ``normal`` waits the server's ``bot_delay`` before each bot
    #: action and its ``hand_pause`` between hands; ``fast`` a quarter of each (regulars who
    #: still want to follow every move). A match nobody plays or watches any more is finished
    #: at once either way.
    pace: Pace = _default("pace")


# --- client to server ------------------------------------------------------------------


class Hello(WireModel):
    """First message of every connection: the protocol ``version`` the client speaks, a
    display name, and the secret ``player`` token from an earlier ``welcome`` (omit it to
    get a new identity). A version the server does not speak is refused with
    ``unsupported_version``, whose ``supported`` lists those it does.
    An identity that has a kept name goes by it, whatever ``name`` says (``rename``
    changes it); a name that cannot be one is refused with ``bad_name``."""

    type: Literal["hello"]
    version: int
    name: Name = "Player"
    player: str | None = Field(default=None, min_length=16, max_length=64)


class Create(WireModel):
    """Create a room; the sender joins it as host, in seat 0 unless ``spectate``."""

    type: Literal["create"]
    options: RoomOptions = RoomOptions()
    spectate: bool = False


class Join(WireModel):
    """Join a room: as a player in ``seat`` (any free seat when null), as a spectator, or
    back into your own seat with the ``token`` you were given."""

    type: Literal["join"]
    room: RoomCode
    seat: int | None = Field(default=None, ge=0, le=3)
    spectate: bool = False
    token: str | None = Field(default=None, max_length=64)


class Sit(WireModel):
    """Before the start: take or change to a free seat."""

    type: Literal["sit"]
    seat: int = Field(ge=0, le=3)


class Start(WireModel):
    """Host only, before the start: begin the match; ``fill`` puts bots of that level in
    every empty seat (otherwise every seat must be taken)."""

    type: Literal["start"]
    fill: Level | None = None


class Act(WireModel):
    """Take a game action. ``seq`` is echoed in the resulting patch or error."""

    type: Literal["act"]
    seq: Seq
    action: ActionModel


class NextHand(WireModel):
    """After a hand ends: deal the next one now instead of waiting for the pause."""

    type: Literal["next_hand"]


class Resync(WireModel):
    """Ask for a fresh snapshot (after a gap in versions)."""

    type: Literal["resync"]


class Leave(WireModel):
    """Leave the room (a seated player's seat goes to a bot once the match has begun)."""

    type: Literal["leave"]


class Chat(WireModel):
    type: Literal["chat"]
    text: str = Field(min_length=1, max_length=500)


class QuickPlay(WireModel):
    """Wait for a table of ``seats``; bots fill it after the server's matchmaking wait."""

    type: Literal["quick_play"]
    seats: int = Field(default=4, ge=2, le=4)


class CancelQuickPlay(WireModel):
    """Leave the quick-play queue; answered with ``queued`` (``seats`` null) either way."""

    type: Literal["cancel_quick_play"]


class ListRooms(WireModel):
    type: Literal["list_rooms"]


class Hint(WireModel):
    """On your turn: ask for the expert bot's suggestion for your own seat."""

    type: Literal["hint"]


class Ready(WireModel):
    """Before the start: say you are (or are no longer) ready to play."""

    type: Literal["ready"]
    ready: bool = True


class Configure(WireModel):
    """Host only, before the start: change the room's options (resets everyone's ready)."""

    type: Literal["configure"]
    options: RoomOptions


class AddBot(WireModel):
    """Host only, before the start: put a bot of ``level`` in the free ``seat``."""

    type: Literal["add_bot"]
    seat: int = Field(ge=0, le=3)
    level: Level = "medium"


class RemoveBot(WireModel):
    """Host only, before the start: free the bot's ``seat``."""

    type: Literal["remove_bot"]
    seat: int = Field(ge=0, le=3)


class Kick(WireModel):
    """Host only: remove the person in ``seat``; neither their seat token nor their identity
    gets a seat in this room again."""

    type: Literal["kick"]
    seat: int = Field(ge=0, le=3)


class Lock(WireModel):
    """Host only, before the start: refuse (or again accept) new players."""

    type: Literal["lock"]
    locked: bool = True


class Rematch(WireModel):
    """After a match: vote to play again at the same table. The host may ``force`` it,
    with bots in the seats of people who are gone."""

    type: Literal["rematch"]
    force: bool = False


class Back(WireModel):
    """Take your seat back from the bot that played it while you were away."""

    type: Literal["back"]


class Daily(WireModel):
    """Play today's daily deal (UTC) against three bots: ranked the first time each day."""

    type: Literal["daily"]


class Leaderboard(WireModel):
    """Ask for a leaderboard: ``daily`` (of ``day``, today by default), ``alltime`` or
    ``rating`` (the "Top players")."""

    type: Literal["leaderboard"]
    board: Literal["daily", "alltime", "rating"] = "daily"
    day: str | None = Field(default=None, pattern=r"^\d{4}-\d{2}-\d{2}$")


class MyMatches(WireModel):
    """Ask for your finished matches (newest first), to replay them."""

    type: Literal["my_matches"]


class Profile(WireModel):
    """Ask how you stand: your name, tag, rating and rated matches."""

    type: Literal["profile"]


class Rename(WireModel):
    """Go by another display name from now on (boards and history show the new one)."""

    type: Literal["rename"]
    name: Name


class RecoveryCode(WireModel):
    """Ask for a new recovery code (shown once); the code you had before stops working and
    every other device of this identity is signed out."""

    type: Literal["recovery_code"]


class Recover(WireModel):
    """Become the player a recovery code belongs to, on this connection (not in a room)."""

    type: Literal["recover"]
    code: str = Field(min_length=1, max_length=40)


ClientMessage = Annotated[
    Hello
    | Create
    | Join
    | Sit
    | Start
    | Act
    | NextHand
    | Resync
    | Leave
    | Chat
    | QuickPlay
    | CancelQuickPlay
    | ListRooms
    | Hint
    | Ready
    | Configure
    | AddBot
    | RemoveBot
    | Kick
    | Lock
    | Rematch
    | Back
    | Daily
    | Leaderboard
    | MyMatches
    | Profile
    | Rename
    | RecoveryCode
    | Recover,
    Field(discriminator="type"),
]


# --- server to client ------------------------------------------------------------------


class Welcome(WireModel):
    """``version`` is the protocol version the server speaks on this connection (the
    hello's). ``player`` is your secret identity token: keep it and send it in every ``hello``.
    ``player_id`` is its public form (leaderboards, match history), ``tag`` the short mark
    shown after your name (null until the identity is first shown or kept: see ``profile``),
    ``name`` the name this connection goes by. Also the answer to ``recover``: then
    ``player`` is this device's new token of the recovered identity."""

    type: Literal["welcome"] = "welcome"
    version: int
    server: str
    player: str
    player_id: str
    tag: str | None = None
    name: str | None = None


class Joined(WireModel):
    """You are in ``room``. Players get a secret ``token``: keep it to come back."""

    type: Literal["joined"] = "joined"
    room: str
    role: Literal["player", "spectator"]
    seat: int | None
    token: str | None


class Snapshot(WireModel):
    """Your whole document (``room`` and ``game``) at ``version``."""

    type: Literal["snapshot"] = "snapshot"
    room: str
    version: int
    doc: dict[str, Any]


class PatchOp(WireModel):
    """One RFC 6902 operation on your document: ``path`` (and ``from`` for ``move`` and
    ``copy``) are JSON Pointers into it (see ``$defs/Document`` for what they may reach)."""

    op: Literal["add", "remove", "replace", "move", "copy", "test"]
    path: Annotated[str, StringConstraints(pattern=r"^(/[^/]*)*$")]
    from_: Annotated[str, StringConstraints(pattern=r"^(/[^/]*)*$")] | None = Field(
        default=None, alias="from"
    )
    value: Any = None
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, populate_by_name=True)


class Patch(WireModel):
    """RFC 6902 operations turning your document at ``from`` into ``to``, in the room this
    connection is in (a connection is in one room at a time). ``seq`` is present only on the
    patch that results from your own accepted action; ``log`` is left out when empty."""

    type: Literal["patch"] = "patch"
    from_: int = Field(alias="from")
    to: int
    ops: list[PatchOp]
    log: list[LogEvent] = Field(default_factory=list)
    seq: int | None = None
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, populate_by_name=True)


class ChatLine(WireModel):
    type: Literal["chat"] = "chat"
    room: str
    seat: int | None
    name: str
    text: str
    #: The line's id, the same in ``chat_history``: a line met twice is shown once.
    id: str | None = None


class KeptLine(WireModel):
    """One chat line the room kept: who said it (``seat`` null for a spectator), what, and
    its id (as the ``chat`` frame that brought it live had it)."""

    seat: int | None
    name: str
    text: str
    id: str | None = None


class ChatHistory(WireModel):
    """The room's last chat lines (at most 50), oldest first: sent right after ``joined``
    when the room kept any, so who comes late (a spectator, a reload) reads what was said."""

    type: Literal["chat_history"] = "chat_history"
    room: str
    lines: list[KeptLine]


ErrorParam = str | int | list[str] | list[int] | None


class Error(WireModel):
    """A refused request; nothing changed. ``code`` is stable and ``params`` holds what a
    client needs to word it (docs/protocol.md lists each code's); ``message`` is a short
    English wording for logs and people reading raw frames."""

    type: Literal["error"] = "error"
    code: str
    params: dict[str, ErrorParam] = Field(default_factory=dict)
    message: str
    seq: int | None = None


class RoomSummary(WireModel):
    room: str
    seats: int
    taken: int
    bots: int
    phase: str
    spectators: int
    options: dict[str, Any]


class Rooms(WireModel):
    type: Literal["rooms"] = "rooms"
    rooms: list[RoomSummary]


class Queued(WireModel):
    """You are waiting for a quick-play table of ``seats``; null: you are not waiting (the
    answer to ``cancel_quick_play``)."""

    type: Literal["queued"] = "queued"
    seats: int | None
    #: Seconds until bots fill the table if nobody else comes (absent when not waiting).
    wait: float | None = None


#: Why a hint suggests its action: the strategy tips' codes (protocol/bots/explain.py
#: chooses one; docs/protocol.md words each), biggest lesson first: the coach names the first
#: that a better line's actions give (protocol/bots/review.py).
HintCode = Literal[
    "goes_out",
    "king_to_corner",
    "sheds_king",
    "opens_space",
    "fills_space",
    "sets_up_follow",
    "plays_card",
    "keeps_follow",
    "end_nothing_fits",
    "draw_nothing_fits",
    "refills",
]


class HintReason(WireModel):
    """Why the hint suggests its action: a strategy tip's code and the cards and piles it
    names (card codes like ``6S``, pile names like ``NE``); docs/protocol.md lists them."""

    code: HintCode
    params: dict[str, str | int] = Field(default_factory=dict)


class HintReply(WireModel):
    type: Literal["hint"] = "hint"
    action: dict[str, Any]
    text: str
    reason: HintReason


class Left(WireModel):
    type: Literal["left"] = "left"
    room: str


class KickedOut(WireModel):
    """The host removed you from ``room``; you are no longer in it."""

    type: Literal["kicked"] = "kicked"
    room: str


class LeaderboardReply(WireModel):
    """Daily rows: ``{player, name, tag, penalty, hands}``, best first. All-time rows:
    ``{player, name, tag, won, played, avg_penalty}``, by matches won. Rating rows:
    ``{player, name, tag, rating, matches}``, best rating first."""

    type: Literal["leaderboard"] = "leaderboard"
    board: Literal["daily", "alltime", "rating"]
    day: str | None
    entries: list[dict[str, Any]]


class Matches(WireModel):
    """Your finished matches: ``{id, room, finished_at, seats, totals, winners, daily}``."""

    type: Literal["matches"] = "matches"
    matches: list[dict[str, Any]]


class ProfileReply(WireModel):
    """How you stand: ``rating`` (1000 to start), ``matches`` rated so far, ``listed`` once
    you have ``min_matches`` and are on the "Top players" board; until then the rating is
    ``provisional`` (docs/ratings.md)."""

    type: Literal["profile"] = "profile"
    player_id: str
    name: str
    tag: str
    rating: int
    matches: int
    listed: bool
    provisional: bool
    min_matches: int


class RecoveryCodeReply(WireModel):
    """Your new recovery code, shown this once: another browser (or client) sends it in
    ``recover`` to become you. The server keeps only its hash. Every other device of this
    identity is signed out; ``player`` is this device's new token (keep it: the one it
    had is revoked too)."""

    type: Literal["recovery_code"] = "recovery_code"
    code: str
    player: str


class Status(WireModel):
    """The server's shared store went down (moves are refused meanwhile) or came back."""

    type: Literal["status"] = "status"
    store: Literal["up", "down"]


class Rewound(WireModel):
    """The store lost the room's latest changes (a crash or a fail-over): the room went back
    from version ``from`` to ``to``. Changes you saw after ``to`` are undone; a fresh
    snapshot follows at once. Version numbers may repeat with other contents afterwards."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, populate_by_name=True)
    type: Literal["rewound"] = "rewound"
    room: str
    from_: int = Field(alias="from")
    to: int


class Closing(WireModel):
    """The server is shutting down; reconnect (with your token) in a moment."""

    type: Literal["closing"] = "closing"
    reason: str


ServerMessage = Annotated[
    Welcome
    | Joined
    | Snapshot
    | Patch
    | ChatLine
    | ChatHistory
    | Error
    | Rooms
    | Queued
    | HintReply
    | Left
    | KickedOut
    | LeaderboardReply
    | Matches
    | ProfileReply
    | RecoveryCodeReply
    | Status
    | Rewound
    | Closing,
    Field(discriminator="type"),
]
