"""The base of every wire model and the field types both the messages and the log events use.

:mod:`protocol.messages` (the frames) and :mod:`protocol.log_events` (the table log's lines)
build on these; neither imports the other's models from here.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

Name = Annotated[str, StringConstraints(min_length=1, max_length=24)]
RoomCode = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9]{6}$")]
Level = Literal["random", "heuristic", "easy", "medium", "hard", "expert"]
Seq = Annotated[int, Field(ge=0, le=2**53)]
CardCode = Annotated[str, StringConstraints(pattern=r"^(A|[2-9]|10|J|Q|K)[CDHS]$")]
PileName = Literal["N", "E", "S", "W", "NE", "SE", "SW", "NW"]
CornerName = Literal["NE", "SE", "SW", "NW"]


class WireModel(BaseModel):
    """Frozen, closed and strict: what every message and log event is."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)
