"""The table log's events: what happened at the table, as data (clients word them).

Each line of a ``patch``'s ``log`` is one of :data:`LogEvent`, tagged by ``ev``; the
frames that carry them are in :mod:`protocol.messages`, and the JSON Schema
(``python -m protocol.schema``) lists them as ``$defs/LogEvent``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from protocol.wire_types import CardCode, CornerName, Level, PileName, WireModel

SeatNo = Annotated[int, Field(ge=0, le=3)]


class _Event(WireModel):
    pass


class Sat(_Event):
    """``name`` took ``seat``; ``bot`` is the bot's level, or null for a person."""

    ev: Literal["sat"] = "sat"
    seat: SeatNo
    name: str
    bot: Level | None = None


class MovedSeat(_Event):
    """The person of seat ``from`` moved to ``seat`` (in the lobby)."""

    ev: Literal["moved_seat"] = "moved_seat"
    seat: SeatNo
    from_: SeatNo = Field(alias="from")
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, populate_by_name=True)


class LeftSeat(_Event):
    """``name`` left ``seat`` (in the lobby: the seat is free now)."""

    ev: Literal["left"] = "left"
    seat: SeatNo
    name: str


class BotTook(_Event):
    """``name`` left ``seat`` during a match; a bot of ``level`` plays it from now on."""

    ev: Literal["bot_took"] = "bot_took"
    seat: SeatNo
    name: str
    level: Level


class KickedSeat(_Event):
    """The host removed ``name`` from ``seat`` (a bot plays it if a match is on)."""

    ev: Literal["kicked"] = "kicked"
    seat: SeatNo
    name: str


class HostIs(_Event):
    """``seat`` is the host now."""

    ev: Literal["host"] = "host"
    seat: SeatNo


class LockedRoom(_Event):
    """The host (``seat``) locked (``locked``: true) or unlocked the room."""

    ev: Literal["locked"] = "locked"
    seat: SeatNo | None
    locked: bool


class Configured(_Event):
    """The host (``seat``) changed the room's options."""

    ev: Literal["configured"] = "configured"
    seat: SeatNo | None


class Away(_Event):
    """``seat`` is away (a bot plays for it until it is back), or is back."""

    ev: Literal["away"] = "away"
    seat: SeatNo
    away: bool


class TimedOut(_Event):
    """``seat``'s turn timer ran out; a bot played the turn."""

    ev: Literal["timed_out"] = "timed_out"
    seat: SeatNo


class RematchVote(_Event):
    """``seat`` asked for a rematch."""

    ev: Literal["rematch_vote"] = "rematch_vote"
    seat: SeatNo


class Started(_Event):
    """A match began (``rematch``: a rematch of the one before); ``dealer`` deals."""

    ev: Literal["started"] = "started"
    dealer: SeatNo
    rematch: bool


class Dealt(_Event):
    """Hand number ``hand`` (1 is the first) was dealt by ``dealer``."""

    ev: Literal["dealt"] = "dealt"
    dealer: SeatNo
    hand: Annotated[int, Field(ge=1)]


class Played(_Event):
    """``seat`` played ``card`` on ``pile``."""

    ev: Literal["played"] = "played"
    seat: SeatNo
    card: CardCode
    pile: PileName


class Moved(_Event):
    """``seat`` moved the whole pile ``from`` onto the pile ``to``. ``refill``, only under
    ``opening_refill`` when the move emptied a side space in the refill window: the stock's
    top card that now lies on ``from`` (absent otherwise)."""

    ev: Literal["moved"] = "moved"
    seat: SeatNo
    from_: PileName = Field(alias="from")
    to: PileName
    refill: CardCode | None = None
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, populate_by_name=True)


class Collected(_Event):
    """``scoring: corners``: ``seat`` completed the corner ``corner`` from king to ace with
    the play or move just logged and collected it: its 13 cards left the table and the
    corner is empty again. ``total``: the corners ``seat`` has collected this hand."""

    ev: Literal["collected"] = "collected"
    seat: SeatNo
    corner: CornerName
    total: Annotated[int, Field(ge=1, le=4)]


class Drew(_Event):
    """``seat`` ended its turn by drawing a card (``draw: end``; others never see it)."""

    ev: Literal["drew"] = "drew"
    seat: SeatNo


class Took(_Event):
    """``seat`` took ``count`` cards from the top of the stock and its turn goes on
    (``draw: until_playable``: one by ``draw``, or up to three after a play that emptied its
    hand beside an empty side space; others never see which)."""

    ev: Literal["took"] = "took"
    seat: SeatNo
    count: Annotated[int, Field(ge=1, le=3)]


class Ended(_Event):
    """``seat`` ended its turn without drawing."""

    ev: Literal["ended"] = "ended"
    seat: SeatNo


class HandOverEvent(_Event):
    """The hand is over: ``out`` went out (``reason`` ``emptied``), or nobody could move
    (``blocked``, ``out`` null). ``penalties`` per seat, kings counting 10."""

    ev: Literal["hand_over"] = "hand_over"
    out: SeatNo | None
    reason: Literal["emptied", "blocked"]
    penalties: list[int]


class MatchOverEvent(_Event):
    """The match is over; ``winners`` are first (the lowest total; several on a tie).
    ``places``, only under ``scoring: corners`` (absent otherwise): each seat's place, by
    corners collected, then the lower penalty, ties shared (1, 2, 2, 4)."""

    ev: Literal["match_over"] = "match_over"
    winners: list[SeatNo]
    places: list[Annotated[int, Field(ge=1, le=4)]] | None = None


LogEvent = Annotated[
    Sat
    | MovedSeat
    | LeftSeat
    | BotTook
    | KickedSeat
    | HostIs
    | LockedRoom
    | Configured
    | Away
    | TimedOut
    | RematchVote
    | Started
    | Dealt
    | Played
    | Moved
    | Collected
    | Drew
    | Took
    | Ended
    | HandOverEvent
    | MatchOverEvent,
    Field(discriminator="ev"),
]
"""One line of the table log, as data: ``ev`` names what happened."""
