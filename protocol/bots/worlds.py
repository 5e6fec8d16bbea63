"""Determinized worlds: the hidden cards dealt out consistently with what a seat sees, and one
round of play inside such a world.

A world gives every other seat as many cards as its public count says and puts the rest in
the stock, all drawn from the seat's unseen cards. Nothing else is used, so a bot sampling
worlds can know no more than its view.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .base import Seen
from .evaluate import WIN
from .greedy import greedy_play
from .model import KING_MASK, Piles, cards_of, hand_penalty


@dataclass(frozen=True, slots=True)
class World:
    """One guess at the hidden cards: every seat's hand (the viewer's own as it is) and the
    stock from its top."""

    hands: tuple[int, ...]
    stock: tuple[int, ...]


def sample_world(seen: Seen, rng: random.Random) -> World:
    """Deal the unseen cards at random to the other seats (by their counts) and the stock."""
    cards = cards_of(seen.unseen)
    rng.shuffle(cards)
    hands: list[int] = []
    pos = 0
    for seat, count in enumerate(seen.counts):
        if seat == seen.seat:
            hands.append(seen.hand)
            continue
        mask = 0
        for card in cards[pos : pos + count]:
            mask |= 1 << card
        hands.append(mask)
        pos += count
    return World(tuple(hands), tuple(cards[pos:]))


@dataclass(frozen=True, slots=True)
class RoundScoring:
    """How a simulated round is scored, in cards (see :func:`play_round`)."""

    lose: float = 8.0
    win: float = 8.0
    king: float = 1.5
    others: float = 0.15


DEFAULT_SCORING = RoundScoring()


def play_round(
    seen: Seen,
    world: World,
    hand: int,
    piles: Piles,
    scoring: RoundScoring = DEFAULT_SCORING,
) -> float:
    """Value for the viewer of ending its turn with ``hand`` and ``piles`` in ``world``.

    The viewer draws, each other seat plays one greedy turn and draws, then the viewer
    plays its next turn greedily. The value is minus the cards (kings weighted) the viewer
    holds after that, plus a little for the cards the others still hold; a seat going out
    first ends the round as a loss (or a win, for the viewer).
    """
    if not hand:
        return WIN
    seats = seen.seats
    me = seen.seat
    hands = list(world.hands)
    stock = world.stock
    drawn = 0
    if drawn < len(stock):
        hand |= 1 << stock[drawn]
        drawn += 1
    hands[me] = hand
    table = list(piles)
    for k in range(1, seats):
        seat = (me + k) % seats
        left = greedy_play(hands[seat], table)
        if not left:
            return -scoring.lose - hand_penalty(hand)
        if drawn < len(stock):
            left |= 1 << stock[drawn]
            drawn += 1
        hands[seat] = left
    left = greedy_play(hand, table)
    others = scoring.others * sum(h.bit_count() for h in hands) / (seats - 1)
    others -= scoring.others * hand.bit_count() / (seats - 1)
    if not left:
        return scoring.win + others
    return -float(left.bit_count()) - scoring.king * (left & KING_MASK).bit_count() + others


__all__ = ["DEFAULT_SCORING", "RoundScoring", "World", "play_round", "sample_world"]
