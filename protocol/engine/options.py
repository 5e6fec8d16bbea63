"""Room options: the number of seats and the variants of RULES.md."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal

from protocol.errors import BadOptions

DrawRule = Literal["end", "start"]


@dataclass(frozen=True, slots=True)
class Options:
    """Rules of one match; never changed inside it.

    ``target``: the match ends when a total reaches it (1..500).
    ``draw``: ``end`` draws to end a turn, ``start`` draws when a turn begins.
    ``kings_first``: a turn cannot end while the seat holds a king and a corner is empty.
    """

    seats: int = 4
    target: int = 25
    draw: DrawRule = "end"
    kings_first: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.seats, int) or not 2 <= self.seats <= 4:
            raise BadOptions("seats must be 2, 3 or 4.", reason="seats")
        if type(self.target) is not int or not 1 <= self.target <= 500:  # a bool is not a target
            raise BadOptions("target must be an integer from 1 to 500.", reason="target")
        if self.draw not in ("end", "start"):
            raise BadOptions("draw must be 'end' or 'start'.", reason="draw")
        if not isinstance(self.kings_first, bool):
            raise BadOptions("kings_first must be true or false.", reason="kings_first")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Options:
        unknown = set(data) - {"seats", "target", "draw", "kings_first"}
        if unknown:
            names = sorted(unknown)
            raise BadOptions(
                f"Unknown options: {', '.join(names)}.", reason="unknown", unknown=names
            )
        return cls(**data)
