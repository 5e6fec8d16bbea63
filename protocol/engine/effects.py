"""What an action did besides itself, for the table log: the card a move refilled a side
space with (``opening_refill``), the corner it collected (``scoring: corners``).

Both follow from the position before and after the action, so a log of actions replays
them exactly; a viewer that sees only the table log learns them from here.
"""

from __future__ import annotations

from dataclasses import dataclass

from .actions import Action, Move, Play
from .position import Position
from .table import PILE_INDEX


@dataclass(frozen=True, slots=True)
class Effects:
    """``refill``: the card the emptied side space ``Move.src`` took from the stock, or None.
    ``collected``: the corner collected by the seat that acted (it is empty again), or
    None."""

    refill: str | None = None
    collected: str | None = None


NONE = Effects()


def effects(before: Position, action: Action, after: Position) -> Effects:
    """The effects of ``action``, legal in ``before``, which gave ``after``."""
    refill = collected = None
    if isinstance(action, Move):
        src = after.piles[PILE_INDEX[action.src]]
        refill = src[0] if src else None
        corner = action.dst
    elif isinstance(action, Play):
        corner = action.pile
    else:
        return NONE
    if after.collected != before.collected and not after.piles[PILE_INDEX[corner]]:
        collected = corner
    return NONE if refill is None and collected is None else Effects(refill, collected)


__all__ = ["Effects", "effects"]
