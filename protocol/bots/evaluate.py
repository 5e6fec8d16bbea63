"""Static evaluation of the position a turn ends in, seen from the seat that ends it.

Values are in "cards": one more card left in hand costs 1.0. The other terms price what
the position gives the next players (empty side spaces, merges that would free one, tops
the unseen cards fit on) and what it keeps for the seat (its cards that fit somewhere).
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import (
    EMPTY,
    FITS_ON_MASK,
    KING_MASK,
    Piles,
    merges_available,
)

WIN = 1000.0


@dataclass(frozen=True, slots=True)
class Weights:
    """The price of each feature, in cards."""

    king: float = 1.5
    empty_side: float = 1.0
    merge: float = 0.8
    empty_corner: float = 0.3
    their_fit: float = 0.15
    my_fit: float = 0.2
    chain: float = 0.1


DEFAULT_WEIGHTS = Weights()


def evaluate(
    hand: int,
    piles: Piles,
    unseen: int,
    in_hands: float,
    weights: Weights = DEFAULT_WEIGHTS,
) -> float:
    """The value of ending the turn with ``hand`` and ``piles``.

    ``unseen`` is the mask of cards in other hands or the stock; ``in_hands`` the share of
    them held by the other seats (the rest is stock).
    """
    if not hand:
        return WIN
    w = weights
    value = -float(hand.bit_count()) - w.king * (hand & KING_MASK).bit_count()
    empty_sides = 0
    empty_corners = 0
    their = 0
    mine = 0
    tops_mask = 0
    for i in range(8):
        code = piles[i]
        if code == EMPTY:
            if i < 4:
                empty_sides += 1
            else:
                empty_corners += 1
            continue
        top = code & 63
        tops_mask |= 1 << top
        fits = FITS_ON_MASK[top]
        their += (fits & unseen).bit_count()
        mine += (fits & hand).bit_count()
    chain = 0
    rest = hand
    while rest:
        low = rest & -rest
        card = low.bit_length() - 1
        rest ^= low
        if FITS_ON_MASK[card] & hand:
            chain += 1
    value -= w.empty_side * empty_sides + w.merge * merges_available(piles)
    if empty_corners and unseen & KING_MASK:
        value -= w.empty_corner * min(empty_corners, (unseen & KING_MASK).bit_count())
    value -= w.their_fit * their * in_hands
    value += w.my_fit * mine + w.chain * chain
    return value


__all__ = ["DEFAULT_WEIGHTS", "WIN", "Weights", "evaluate"]
