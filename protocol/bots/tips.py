"""``tips``: the seed's tips followed greedily and plainly, an arena opponent.

Kings go to open corners first (from the hand, then king-based side piles), then every card
that fits is played (highest rank first, onto the first pile in table order it fits), then
piles are moved onto others to open spaces, and an empty side space takes the hand's highest
card. Ties between cards of one rank fall to the bot's seeded random stream.

It is deliberately not :mod:`.greedy` (the policy the search levels assume for the other
seats): measured against it, a search level meets opponents it does not model exactly.
It is offered to the arena only, not to rooms.
"""

from __future__ import annotations

from .base import PlanningBot, Seen
from .greedy import follow
from .model import (
    EMPTY,
    FITS_ON_MASK,
    FITS_UNDER_ID,
    IS_KING_ID,
    MOVE,
    PLAY,
    RANK_OF,
    CardMove,
    Piles,
    cards_of,
)


def tips_step(hand: int, piles: Piles, order: dict[int, int]) -> CardMove | None:
    """The next action the tips give, or None to end the turn.

    ``order`` ranks the cards for ties (lower first); cards are tried highest rank first.
    """
    first_side = first_corner = -1
    for i in range(8):
        if piles[i] == EMPTY:
            if i < 4:
                if first_side < 0:
                    first_side = i
            elif first_corner < 0:
                first_corner = i
    cards = sorted(cards_of(hand), key=lambda c: (-RANK_OF[c], order.get(c, c)))
    if first_corner >= 0:
        for card in cards:
            if IS_KING_ID[card]:
                return (PLAY, card, first_corner)
        for i in range(4):
            code = piles[i]
            if code != EMPTY and IS_KING_ID[code >> 6]:
                return (MOVE, i, first_corner)
    for card in cards:
        for i in range(8):
            code = piles[i]
            if code != EMPTY and FITS_ON_MASK[code & 63] >> card & 1:
                return (PLAY, card, i)
    for i in range(8):
        code = piles[i]
        if code == EMPTY or IS_KING_ID[code >> 6]:
            continue
        unders = FITS_UNDER_ID[code >> 6]
        for j in range(8):
            if j != i and piles[j] != EMPTY and piles[j] & 63 in unders:
                return (MOVE, i, j)
    if first_side >= 0 and cards:
        return (PLAY, cards[0], first_side)
    return None


class TipsBot(PlanningBot):
    """Follows the seed's tips greedily, in a plain order of its own (see the module)."""

    level = "tips"

    def plan(self, seen: Seen) -> list[CardMove]:
        ids = cards_of(seen.hand)
        self.rng.shuffle(ids)
        order = {card: k for k, card in enumerate(ids)}
        # Kings go to open corners first, so ``kings_first`` never blocks the end.
        return follow(lambda hand, piles: tips_step(hand, piles, order), seen.hand, seen.piles)[2]


__all__ = ["TipsBot", "tips_step"]
