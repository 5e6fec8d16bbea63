"""What the search bots know of the variants ``scoring: corners`` and ``opening_refill``.

Corners: a collected corner is worth :data:`CORNER` cards; a table that lets the next seats
complete a corner (a corner down to a two whose ace is unseen, a side pile that would finish
one) costs part of that; going out ends the hand, which is good only when ahead in corners.
Refill: a move that empties a side space in the opening window brings an unknown card; it is
priced as the mean, over a few guesses of that card, of the best way to go on, within the
search's deadline.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import replace

from .base import Seen
from .evaluate import WIN
from .model import EMPTY, FITS_ON_MASK, FITS_UNDER_ID, IS_KING_ID, RANK_OF, Piles, cards_of
from .turnsearch import TurnEnd, turn_ends

#: A corner collected, in cards (the evaluation's unit).
CORNER = 15.0
#: The share of a corner lost when the next seats can finish it with one unseen card, or
#: with a move of a side pile that is on the table (certain).
ONE_CARD, FREE_MOVE = 0.6, 0.95
#: How many guesses of the refilled card, and the positions listed after each.
REFILL_GUESSES, REFILL_LIMIT = 6, 400


def corner_threat(piles: Piles, unseen: int) -> float:
    """How many corners, in expectation, the table leaves the next seats to complete."""
    threat = 0.0
    tops: dict[int, int] = {}
    sides: list[int] = []
    for i in range(8):
        code = piles[i]
        if code == EMPTY:
            continue
        if i >= 4:
            tops[code & 63] = i
        else:
            sides.append(code)
    free = set()
    for code in sides:
        if RANK_OF[code & 63] != 1:
            continue
        base = code >> 6
        if IS_KING_ID[base]:
            if any(piles[i] == EMPTY for i in range(4, 8)):
                threat += FREE_MOVE
            continue
        for onto in FITS_UNDER_ID[base]:
            if onto in tops:
                free.add(tops[onto])
    threat += FREE_MOVE * len(free)
    for top, i in tops.items():
        if i not in free and RANK_OF[top] == 2 and FITS_ON_MASK[top] & unseen:
            threat += ONE_CARD
    return threat


def corners_value(seen: Seen, end: TurnEnd) -> float:
    """The corner terms of ending the turn at ``end`` (``scoring: corners``)."""
    value = CORNER * (end.collected - corner_threat(end.piles, seen.unseen))
    if not end.hand:
        mine = (seen.collected[seen.seat] if seen.collected else 0) + end.collected
        others = [c for s, c in enumerate(seen.collected) if s != seen.seat]
        ahead = not others or mine >= max(others)
        value += WIN if ahead else -WIN / 4
    return value


def past(deadline: float | None) -> bool:
    """Whether the ``perf_counter`` ``deadline`` has passed (None: there is no clock)."""
    return deadline is not None and time.perf_counter() > deadline


def refill_value(
    seen: Seen,
    end: TurnEnd,
    value_of: Callable[[Seen, list[TurnEnd]], list[float]],
    deadline: float | None = None,
) -> float:
    """The value of ``end``, whose last move empties a side space the stock refills: the
    mean over a few guesses of the refilled card (the same guesses for the same path, so a
    judgement is reproducible) of the best value the turn can go on to. ``value_of`` prices
    those ends, any further refill as the table stands.

    The search's ``deadline`` (``perf_counter``; None: no clock) bounds it: each guess lists
    its turn within it, no guess starts once it has passed (the mean is over the guesses
    made), and past it before the first guess the end is priced as the table stands."""
    unseen = cards_of(seen.unseen)
    if not seen.stock or not unseen or past(deadline):
        return max(value_of(seen, [end]))
    side = end.path[-1][1]
    rng = random.Random(f"refill:{end.path}")
    guesses = rng.sample(unseen, min(REFILL_GUESSES, len(unseen)))
    total, made = 0.0, 0
    for card in guesses:
        if made and past(deadline):
            break
        piles = (*end.piles[:side], card << 6 | card, *end.piles[side + 1 :])
        inner = replace(seen, piles=piles, unseen=seen.unseen & ~(1 << card))
        ends, _ = turn_ends(
            end.hand,
            piles,
            REFILL_LIMIT,
            deadline,
            collect=seen.corners,
            window=seen.refill_open,
        )
        carried = [
            TurnEnd(e.hand, e.piles, e.path, e.collected + end.collected, e.refill) for e in ends
        ]
        total += max(value_of(inner, carried))
        made += 1
    return total / made


__all__ = ["CORNER", "corner_threat", "corners_value", "past", "refill_value"]
