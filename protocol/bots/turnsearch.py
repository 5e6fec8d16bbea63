"""Every way a turn can end: the positions reachable by plays and pile moves this turn.

Within a turn nothing is hidden or random (the draw comes at the end), so the seat to move
can list all its end positions exactly. Positions that differ only by which empty side space
or which empty corner was used, or by the order of side piles or of corners, are one
position here; a node limit keeps pathological turns bounded.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from .model import CardMove, Piles, do_move, turn_moves


@dataclass(frozen=True, slots=True)
class TurnEnd:
    """A position the turn can end in and the moves that reach it from the start."""

    hand: int
    piles: Piles
    path: tuple[CardMove, ...]


def _key(hand: int, piles: Piles) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    return hand, tuple(sorted(piles[:4])), tuple(sorted(piles[4:]))


def turn_ends(
    hand: int, piles: Piles, limit: int = 4000, deadline: float | None = None
) -> tuple[list[TurnEnd], bool]:
    """The distinct end positions of this turn (the start included) and whether the search
    was complete (False when ``limit`` positions or the ``perf_counter`` ``deadline`` were
    reached first)."""
    start = TurnEnd(hand, piles, ())
    seen = {_key(hand, piles)}
    ends = [start]
    stack = [start]
    while stack:
        node = stack.pop()
        if not node.hand:
            continue
        for move in turn_moves(node.hand, node.piles):
            hand2, piles2 = do_move(node.hand, node.piles, move)
            key = _key(hand2, piles2)
            if key in seen:
                continue
            seen.add(key)
            child = TurnEnd(hand2, piles2, (*node.path, move))
            ends.append(child)
            if len(ends) >= limit:
                return ends, False
            if deadline is not None and not len(ends) & 255 and time.perf_counter() > deadline:
                return ends, False
            stack.append(child)
    return ends, True


__all__ = ["TurnEnd", "turn_ends"]
