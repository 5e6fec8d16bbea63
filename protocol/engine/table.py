"""The eight piles of the table and their names."""

from __future__ import annotations

SIDES: tuple[str, ...] = ("N", "E", "S", "W")
CORNERS: tuple[str, ...] = ("NE", "SE", "SW", "NW")
#: Pile names in their fixed index order: sides first, then corners.
PILES: tuple[str, ...] = SIDES + CORNERS
PILE_INDEX: dict[str, int] = {name: i for i, name in enumerate(PILES)}
SIDE_INDICES = range(0, 4)
CORNER_INDICES = range(4, 8)


def is_corner(index: int) -> bool:
    """True for the indices of ``NE``, ``SE``, ``SW`` and ``NW``."""
    return index >= 4
