"""Every way a turn can end: the positions reachable by plays and pile moves this turn.

Within a turn nothing is hidden or random (the draw comes at the end), so the seat to move
can list all its end positions exactly; except under ``opening_refill``, where a move that
empties a side space before any card is played refills it with an unknown card: such a move
ends the listing there (an end with ``refill`` set), the rest of the turn being planned once
the card is seen. Under ``scoring: corners`` a corner completed on the way is collected.
Positions that differ only by which empty side space
or which empty corner was used, or by the order of side piles or of corners, are one
position here; a node limit keeps pathological turns bounded.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from .model import PLAY, CardMove, Piles, do_move, do_move_collecting, turn_moves


@dataclass(frozen=True, slots=True)
class TurnEnd:
    """A position the turn can end in and the moves that reach it from the start."""

    hand: int
    piles: Piles
    path: tuple[CardMove, ...]
    #: Corners collected on the way (``scoring: corners``).
    collected: int = 0
    #: The last move empties a side space that the stock refills (``opening_refill``): the
    #: piles show it empty, the card it will hold is not known yet.
    refill: bool = False


def _key(
    hand: int, piles: Piles, collected: int = 0, window: bool = False
) -> tuple[int, tuple[int, ...], tuple[int, ...], int, bool]:
    return hand, tuple(sorted(piles[:4])), tuple(sorted(piles[4:])), collected, window


def turn_ends(
    hand: int,
    piles: Piles,
    limit: int = 4000,
    deadline: float | None = None,
    *,
    collect: bool = False,
    window: bool = False,
) -> tuple[list[TurnEnd], bool]:
    """The distinct end positions of this turn (the start included) and whether the search
    was complete (False when ``limit`` positions or the ``perf_counter`` ``deadline`` were
    reached first).

    ``collect``: corners are collected (``scoring: corners``). ``window``: the refill window
    is open (``opening_refill``, no card played yet): a move from a side pile ends its path,
    marked ``refill``, until a card of the hand is played.
    """
    start = TurnEnd(hand, piles, ())
    seen = {_key(hand, piles, 0, window)}
    ends = [start]
    stack = [(start, window)]
    while stack:
        node, open_ = stack.pop()
        if not node.hand:
            continue
        for move in turn_moves(node.hand, node.piles):
            if collect:
                hand2, piles2, got = do_move_collecting(node.hand, node.piles, move)
            else:
                (hand2, piles2), got = do_move(node.hand, node.piles, move), 0
            still = open_ and move[0] != PLAY
            refill = open_ and move[0] != PLAY and move[1] < 4
            total = node.collected + got
            key = _key(hand2, piles2, total, still)
            if key in seen and not refill:
                continue
            seen.add(key)
            child = TurnEnd(hand2, piles2, (*node.path, move), total, refill)
            ends.append(child)
            if len(ends) >= limit:
                return ends, False
            if deadline is not None and not len(ends) & 255 and time.perf_counter() > deadline:
                return ends, False
            if not refill:
                stack.append((child, still))
    return ends, True


__all__ = ["TurnEnd", "turn_ends"]
