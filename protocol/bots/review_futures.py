"""Playing on after a turn, for the coach: the hand to its end in sampled worlds, then the
match through fresh deals.

:func:`price` plays an end of the turn on in each world, every seat greedily to the end of
the hand, and gives the seat's mean result (the others' mean penalty minus its own).
:class:`Futures` deals the hands after the reviewed one, played greedily; they do not depend
on the turn, so a hand's review deals them once and :func:`win_chance` prices every end of
every turn of the hand against the same ones. :mod:`.review` uses both.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from .base import Seen
from .greedy import greedy_play
from .model import EMPTY, hand_penalty
from .turnsearch import TurnEnd
from .worlds import World

HAND_SIZE = 7
#: Hands a dealt future holds at most (a match always ends long before).
FUTURE_HANDS = 60


def _deal(rng: random.Random, seats: int, dealer: int) -> tuple[list[int], list[int], list[int]]:
    deck = list(range(52))
    rng.shuffle(deck)
    hands = [0] * seats
    for k in range(HAND_SIZE * seats):
        hands[(dealer + 1 + k) % seats] |= 1 << deck[k]
    dealt = HAND_SIZE * seats
    piles = [d << 6 | d for d in deck[dealt : dealt + 4]] + [EMPTY] * 4
    return hands, piles, deck[dealt + 4 :]


def _finish_hand(hands: list[int], piles: list[int], stock: list[int], turn: int) -> list[int]:
    """Play a hand to its end greedily from ``turn``'s turn; return its penalties."""
    seats = len(hands)
    quiet = 0
    for _ in range(2000):
        before = hands[turn]
        table = tuple(piles)
        left = greedy_play(before, piles)
        if not left:
            return [0 if s == turn else hand_penalty(h) for s, h in enumerate(hands)]
        changed = left != before or tuple(piles) != table
        quiet = 0 if changed or stock else quiet + 1
        if stock:
            left |= 1 << stock.pop()
        hands[turn] = left
        if quiet >= seats:
            break
        turn = (turn + 1) % seats
    return [hand_penalty(h) for h in hands]


@dataclass(slots=True)
class Futures:
    """Fresh deals after the reviewed hand, played greedily: each future a list of the
    penalties of its hands, dealt as far as a match needs them. They do not depend on the
    reviewed turn, so every end of every turn of the hand is priced against the same ones."""

    seed: str
    seats: int
    dealer: int  # the dealer of the reviewed hand
    target: int
    count: int
    hands: list[list[list[int]]] = field(default_factory=list)
    rngs: list[random.Random] = field(default_factory=list)

    def _penalties(self, future: int, n: int) -> list[int]:
        while len(self.hands) <= future:
            self.hands.append([])
            self.rngs.append(random.Random(f"{self.seed}:future:{len(self.rngs)}"))
        dealt = self.hands[future]
        while len(dealt) <= n:
            dealer = (self.dealer + 1 + len(dealt)) % self.seats
            hands, piles, stock = _deal(self.rngs[future], self.seats, dealer)
            dealt.append(_finish_hand(hands, piles, stock, (dealer + 1) % self.seats))
        return dealt[n]

    def share(self, totals: Sequence[int], seat: int, world: int) -> float:
        """``seat``'s share of the win (ties share) when the match stands at ``totals``
        after the reviewed hand, played on in future ``world`` (modulo their count)."""
        future = world % self.count
        now = list(totals)
        for n in range(FUTURE_HANDS):
            if max(now) >= self.target:
                break
            now = [t + p for t, p in zip(now, self._penalties(future, n), strict=True)]
        low = min(now)
        return 1.0 / now.count(low) if now[seat] == low else 0.0


def _hand_result(seen: Seen, world: World, end: TurnEnd) -> list[int]:
    """The penalties of the hand when the seat ends its turn with ``end`` in ``world``,
    every seat playing on greedily (drawing at the end of its turns)."""
    me, seats = seen.seat, seen.seats
    hands = list(world.hands)
    hands[me] = end.hand
    if not end.hand:
        if not seen.refills(end.hand, end.piles):
            return [0 if s == me else hand_penalty(h) for s, h in enumerate(hands)]
        # Three more cards, top first, and the turn goes on (draw: until_playable).
        stock = list(world.stock)
        hands[me] = sum(1 << card for card in stock[:3])
        piles = list(end.piles)
        hands[me] = greedy_play(hands[me], piles)
        if not hands[me]:
            return [0 if s == me else hand_penalty(h) for s, h in enumerate(hands)]
        rest = list(reversed(stock[3:]))
        return _finish_hand(hands, piles, rest, (me + 1) % seats)
    piles = list(end.piles)
    stock = list(reversed(world.stock))  # pop() takes the top
    if stock:
        hands[me] |= 1 << stock.pop()
    return _finish_hand(hands, piles, stock, (me + 1) % seats)


def _points(penalties: Sequence[int], seat: int) -> float:
    """The seat's result of a hand: the others' mean penalty minus its own."""
    return (sum(penalties) - penalties[seat]) / (len(penalties) - 1) - penalties[seat]


@dataclass(slots=True)
class Priced:
    """An end played on in the worlds: its mean result and each world's penalties."""

    end: TurnEnd
    points: float
    results: list[list[int]]


def price(seen: Seen, end: TurnEnd, worlds: Sequence[World]) -> Priced:
    """``end`` played on in each of ``worlds``: the seat's mean result and each world's
    penalties."""
    results = [_hand_result(seen, world, end) for world in worlds]
    points = sum(_points(r, seen.seat) for r in results) / max(1, len(results))
    return Priced(end, points, results)


def win_chance(seen: Seen, priced: Priced, futures: Futures) -> float:
    """The seat's chance to win the match after the priced end: each world's hand, then the
    match played on in that world's future."""
    totals = seen.totals or (0,) * seen.seats
    won = 0.0
    for n, penalties in enumerate(priced.results):
        after = [t + p for t, p in zip(totals, penalties, strict=True)]
        won += futures.share(after, seen.seat, n)
    return won / max(1, len(priced.results))


__all__ = ["FUTURE_HANDS", "HAND_SIZE", "Futures", "Priced", "price", "win_chance"]
