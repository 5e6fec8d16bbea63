"""The viewer's document, typed: what a ``snapshot`` carries and every ``patch`` keeps valid.

The server builds documents as plain data (``server/room.py``'s ``info`` and
:func:`protocol.engine.views.seat_view`, on the hot path); these models describe exactly
that shape for the published schema (``$defs/Document``), so a client generated from it
knows every path a patch may touch. Tests check every document the server sends against
them. A field only a seated player's document has (``you``, ``hand``, ``legal``) is
optional; everything else is always present, null where it does not apply.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from .messages import RoomOptions
from .options_table import OPTIONS
from .wire_types import CardCode, Level, PileName

RoomPhase = Literal["lobby", "playing", "hand_over", "finished"]
#: Why a match changes no rating (see docs/ratings.md).
UnratedReason = Literal["casual", "chosen_deal", "daily", "aborted"]
#: Why a rated seat's rating moved as it did.
RatingReason = Literal["placed", "abandoned", "no_opponents"]


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class SeatDoc(_Part):
    """A taken seat: a person (``tag`` once their identity is kept) or a bot (``level``)."""

    name: str
    tag: str | None
    kind: Literal["human", "bot"]
    level: Level | None
    connected: bool
    away: bool
    ready: bool


class RatingChange(_Part):
    """A person's rating change once the finished match is rated."""

    before: int
    after: int
    matches: int
    provisional: bool
    place: int
    of: int
    reason: RatingReason


class DailyDoc(_Part):
    """A daily-deal room: its UTC day, and whether this match counts on today's board."""

    day: str
    ranked: bool


#: The options every viewer sees (those the option table marks ``in_room_options``), typed
#: as :class:`~protocol.messages.RoomOptions` types them.
DocOptions: type[BaseModel] = create_model(
    "DocOptions",
    __config__=ConfigDict(extra="forbid", strict=True),
    **{
        spec.name: (RoomOptions.model_fields[spec.name].annotation, ...)
        for spec in OPTIONS
        if spec.in_room_options
    },  # type: ignore[call-overload]
)


class RoomDoc(_Part):
    """The room's part, the same for every viewer."""

    code: str
    phase: RoomPhase
    public: bool
    locked: bool
    host: int | None
    rematch: list[int]
    options: DocOptions  # type: ignore[valid-type]
    rated: bool
    unrated: UnratedReason | None
    ratings: list[RatingChange | None] | None
    daily: DailyDoc | None
    seats: list[SeatDoc | None]


class HandResultDoc(_Part):
    """How the hand ended: ``emptied`` (``out`` went out) or ``blocked``; each seat's
    penalty and the cards left in each hand (shown to everyone once the hand is over)."""

    reason: Literal["emptied", "blocked"]
    out: int | None
    penalties: list[int]
    left: list[list[CardCode]]


class GameDoc(_Part):
    """The match as this viewer sees it: piles base first, the stock only as a count."""

    phase: Literal["playing", "hand_over", "finished"]
    hand_no: int = Field(ge=1)
    seats: int = Field(ge=2, le=4)
    dealer: int
    turn: int
    moved: bool
    piles: dict[PileName, list[CardCode]]
    stock: int = Field(ge=0)
    counts: list[int]
    target: int
    totals: list[int]
    scores: list[list[int]]
    result: HandResultDoc | None
    winners: list[int] | None
    #: Only under ``opening_refill`` (absent otherwise): whether the refill window is open
    #: (the hand's first turn, no card played from the hand yet).
    refill_open: bool | None = None
    #: Only under ``scoring: corners`` (absent otherwise): the corners each seat has
    #: collected, and once the match is finished each seat's place (1, 2, 2, 4 on ties).
    collected: list[int] | None = None
    places: list[int] | None = None
    #: A seated player's own: their seat, their hand, and on their turn the legal actions
    #: in text form (``7H>N``, ``N>E``, ``end``).
    you: int | None = None
    hand: list[CardCode] | None = None
    legal: list[str] | None = None


class Document(_Part):
    """Everything one viewer may see: the room, and the match once one started."""

    room: RoomDoc
    game: GameDoc | None


def check_document(doc: Any) -> Document:
    """``doc`` as a :class:`Document`, or ``pydantic.ValidationError``."""
    return Document.model_validate(doc)
