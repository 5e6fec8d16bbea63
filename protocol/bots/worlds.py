"""Determinized worlds: the hidden cards dealt out consistently with what a seat sees, and one
round of play inside such a world.

A world gives every other seat as many cards as its public count says and puts the rest in
the stock, all drawn from the seat's unseen cards. Nothing else is used, so a bot sampling
worlds can know no more than its view.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from protocol.engine import REFILL

from .base import Seen
from .evaluate import WIN
from .greedy import greedy_play, greedy_turn
from .model import EMPTY, KING_MASK, Piles, cards_of, completes, hand_penalty
from .notes import Avoid
from .variants import CORNER


@dataclass(frozen=True, slots=True)
class World:
    """One guess at the hidden cards: every seat's hand (the viewer's own as it is) and the
    stock from its top."""

    hands: tuple[int, ...]
    stock: tuple[int, ...]


def sample_world(seen: Seen, rng: random.Random, unseen: list[int] | None = None) -> World:
    """Deal the unseen cards at random to the other seats (by their counts) and the stock,
    keeping to what the seat noted of each hand (``seen.avoid``).

    ``unseen`` may pass ``cards_of(seen.unseen)`` when sampling many worlds of one view.
    """
    cards = cards_of(seen.unseen) if unseen is None else list(unseen)
    rng.shuffle(cards)
    hands = [0] * seen.seats
    hands[seen.seat] = seen.hand
    taken = 0
    noted = seen.avoid
    if noted:
        for seat, avoid in enumerate(noted):
            if not avoid or seat == seen.seat:
                continue
            hands[seat] = _deal_noted(cards, taken, seen.counts[seat], avoid)
            taken |= hands[seat]
    pos = 0
    for seat, count in enumerate(seen.counts):
        if seat == seen.seat or (noted and noted[seat]):
            continue
        mask = 0
        while count:
            card = cards[pos]
            pos += 1
            if not taken >> card & 1:
                mask |= 1 << card
                count -= 1
        hands[seat] = mask
        taken |= mask
    stock = tuple(c for c in cards[pos:] if not taken >> c & 1) if taken else tuple(cards[pos:])
    return World(tuple(hands), stock)


def _deal_noted(cards: list[int], taken: int, count: int, avoid: tuple[Avoid, ...]) -> int:
    """``count`` of the free ``cards``, in their order, holding at most ``fresh`` of each
    noted mask (any free cards when the notes cannot all be kept)."""
    budgets = [fresh for _, fresh in avoid]
    mask = 0
    for card in cards:
        if not count:
            return mask
        bit = 1 << card
        if taken & bit:
            continue
        ok = True
        for i, (noted, _) in enumerate(avoid):
            if noted & bit and budgets[i] <= 0:
                ok = False
                break
        if not ok:
            continue
        for i, (noted, _) in enumerate(avoid):
            if noted & bit:
                budgets[i] -= 1
        mask |= bit
        count -= 1
    for card in cards:
        if not count:
            break
        bit = 1 << card
        if not (taken | mask) & bit:
            mask |= bit
            count -= 1
    return mask


@dataclass(frozen=True, slots=True)
class RoundScoring:
    """How a simulated round is scored, in penalty points (see :func:`play_round`).

    A hand that ends inside the round scores its real penalties (kings 10, others 1). One
    still going scores each hand as its cards plus ``king`` more per king, times
    ``pending`` (a penalty not yet certain). ``match`` is what deciding the match is worth:
    a win counts ``match * (1 - 1/seats)``, a loss ``-match / seats``. Going out first is
    worth ``out`` more than its penalties say, another seat going out ``out`` less (the
    hand is won or lost, not only its points).
    """

    king: float = 4.0
    pending: float = 0.8
    match: float = 10.0
    out: float = 7.0


DEFAULT_SCORING = RoundScoring()


def _pending(hand: int, king: float) -> float:
    return hand.bit_count() + king * (hand & KING_MASK).bit_count()


def ended_value(seen: Seen, hands: list[int], out: int, scoring: RoundScoring) -> float:
    """The value of a hand that ends with ``out`` going out and the others holding ``hands``."""
    me = seen.seat
    seats = seen.seats
    penalties = [0 if s == out else hand_penalty(h) for s, h in enumerate(hands)]
    value = (sum(penalties) - penalties[me]) / (seats - 1) - penalties[me]
    value += scoring.out if out == me else -scoring.out
    if seen.totals:
        totals = [t + p for t, p in zip(seen.totals, penalties, strict=True)]
        if max(totals) >= seen.target:
            low = min(totals)
            winners = sum(1 for t in totals if t == low)
            share = 1.0 / winners if totals[me] == low else 0.0
            value += scoring.match * (share - 1.0 / seats)
    return value


def play_round(
    seen: Seen,
    world: World,
    hand: int,
    piles: Piles,
    scoring: RoundScoring = DEFAULT_SCORING,
    *,
    collected: int = 0,
    refill_side: int | None = None,
) -> float:
    """Value for the viewer of ending its turn with ``hand`` and ``piles`` in ``world``:
    the others' mean penalty minus its own, in points, plus the match when it is decided.

    The viewer draws, each other seat plays one greedy turn and draws, then the viewer
    plays its next turn greedily. A seat going out ends the hand with its real penalties;
    otherwise the hands left are priced by :class:`RoundScoring`. An empty hand that draws
    until playable (:meth:`Seen.refills`) takes this world's top three stock cards and plays
    on greedily first.

    ``refill_side``: the turn's last move emptied that side space in ``opening_refill``'s
    window, so this world's top stock card goes there and the viewer plays on greedily.
    Under ``scoring: corners`` (:attr:`Seen.corners`) the round is priced by
    :func:`corners_round` instead, ``collected`` being the corners this turn collected.
    """
    if seen.corners:
        return corners_round(seen, world, hand, piles, collected, refill_side)
    stock = world.stock
    drawn = 0
    if refill_side is not None and stock:
        piles = _with(piles, refill_side, stock[0])
        stock = stock[1:]
        hand, piles, _ = greedy_turn(hand, piles)
    if not hand and seen.refills(hand, piles):
        drawn = min(REFILL, len(stock))
        refill = sum(1 << card for card in stock[:drawn])
        hand, piles, _ = greedy_turn(refill, piles)
    if not hand:
        return WIN
    seats = seen.seats
    me = seen.seat
    hands = list(world.hands)
    if drawn < len(stock):
        hand |= 1 << stock[drawn]
        drawn += 1
    hands[me] = hand
    table = list(piles)
    for k in range(1, seats):
        seat = (me + k) % seats
        left = greedy_play(hands[seat], table)
        if not left:
            hands[seat] = 0
            return ended_value(seen, hands, seat, scoring)
        if drawn < len(stock):
            left |= 1 << stock[drawn]
            drawn += 1
        hands[seat] = left
    left = greedy_play(hand, table)
    hands[me] = left
    if not left:
        return ended_value(seen, hands, me, scoring)
    king = scoring.king
    others = sum(_pending(h, king) for s, h in enumerate(hands) if s != me) / (seats - 1)
    return scoring.pending * (others - _pending(left, king))


def _with(piles: Piles, side: int, card: int) -> Piles:
    return (*piles[:side], card << 6 | card, *piles[side + 1 :])


def _sweep(table: list[int]) -> int:
    """Collect the complete corners of ``table`` in place; how many there were."""
    count = 0
    for i in range(4, 8):
        if completes(table[i], i):
            table[i] = EMPTY
            count += 1
    return count


def corners_round(
    seen: Seen,
    world: World,
    hand: int,
    piles: Piles,
    collected: int,
    refill_side: int | None,
) -> float:
    """:func:`play_round` under ``scoring: corners``: the same round (every seat one greedy
    turn, the viewer one more), corners completed in it collected by the seat that played;
    worth :data:`~.variants.CORNER` cards each against the other seats' mean, plus
    ``CORNER`` more (or less) for first place when a hand is emptied, and the cards left
    as in the standard round at a small weight (the penalty only breaks ties)."""
    stock = world.stock
    table = list(piles)
    if refill_side is not None and stock:
        table[refill_side] = stock[0] << 6 | stock[0]
        stock = stock[1:]
        hand, piles2, _ = greedy_turn(hand, tuple(table))
        table = list(piles2)
    seats, me = seen.seats, seen.seat
    gains = [0] * seats
    gains[me] = collected + _sweep(table)
    hands = list(world.hands)
    hands[me] = hand
    drawn = 0
    if hand:
        if stock:
            hands[me] |= 1 << stock[0]
            drawn = 1
        for k in range(1, seats):
            seat = (me + k) % seats
            hands[seat] = greedy_play(hands[seat], table)
            gains[seat] += _sweep(table)
            if not hands[seat]:
                break
            if drawn < len(stock):
                hands[seat] |= 1 << stock[drawn]
                drawn += 1
        else:
            hands[me] = greedy_play(hands[me], table)
            gains[me] += _sweep(table)
    totals = [c + g for c, g in zip(seen.collected or (0,) * seats, gains, strict=True)]
    others = [t for s, t in enumerate(totals) if s != me]
    value = CORNER * (gains[me] - sum(gains[s] for s in range(seats) if s != me) / (seats - 1))
    if not all(hands):
        value += CORNER if totals[me] >= max(others) else -CORNER
    mean = sum(hand_penalty(h) for s, h in enumerate(hands) if s != me) / (seats - 1)
    return value + 0.2 * (mean - hand_penalty(hands[me]))


__all__ = [
    "DEFAULT_SCORING",
    "RoundScoring",
    "World",
    "corners_round",
    "ended_value",
    "play_round",
    "sample_world",
]
