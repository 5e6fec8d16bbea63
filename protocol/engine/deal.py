"""Shuffling and dealing, exactly as RULES.md describes it."""

from __future__ import annotations

import random
from collections.abc import Sequence

from protocol.errors import BadOptions

from .cards import CARDS, DECK
from .options import Options
from .position import Position
from .rules import draw_for_turn

HAND_SIZE = 7


def shuffled_deck(seed: str, hand_index: int) -> tuple[str, ...]:
    """The deck for hand ``hand_index`` (0-based) of the match seeded by ``seed``."""
    deck = list(DECK)
    random.Random(f"kings-corner:{seed}:{hand_index}").shuffle(deck)
    return tuple(deck)


def first_dealer(seed: str, seats: int) -> int:
    """The first dealer of a match, drawn from its seed."""
    return random.Random(f"kings-corner:{seed}:dealer").randrange(seats)


def check_deck(deck: Sequence[str]) -> tuple[str, ...]:
    """Return ``deck`` as a tuple after checking it holds the 52 cards once each."""
    if len(deck) != 52 or set(deck) != CARDS:
        raise BadOptions(
            "A stacked deck must list each of the 52 card codes exactly once.", reason="deck"
        )
    return tuple(deck)


def deal(deck: Sequence[str], options: Options, dealer: int) -> Position:
    """Deal a hand from ``deck`` (index 0 is the top).

    Seven cards each, one at a time clockwise from the dealer's left; the next four go face
    up on N, E, S, W; the rest is the stock. The seat left of the dealer moves first.
    Under ``opening_refill`` the first turn opens the refill window; under ``scoring:
    corners`` every seat starts with no corner collected.
    """
    deck = check_deck(deck)
    n = options.seats
    if not 0 <= dealer < n:
        raise BadOptions(f"dealer must be a seat from 0 to {n - 1}.", reason="dealer", seats=n)
    hands: list[list[str]] = [[] for _ in range(n)]
    for k in range(HAND_SIZE * n):
        hands[(dealer + 1 + k) % n].append(deck[k])
    dealt = HAND_SIZE * n
    sides = tuple((card,) for card in deck[dealt : dealt + 4])
    stock = deck[dealt + 4 :]
    position = Position(
        options=options,
        hands=tuple(tuple(h) for h in hands),
        piles=(*sides, (), (), (), ()),
        stock=stock,
        dealer=dealer,
        turn=(dealer + 1) % n,
        opening=options.opening_refill,
        collected=(0,) * n if options.scoring == "corners" else (),
    )
    if options.draw == "start":
        position = draw_for_turn(position)
    return position
