"""Helpers shared by the engine tests: stacked decks, positions from notation, replays."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from itertools import pairwise
from typing import Any

from protocol.engine import (
    DECK,
    PILES,
    Action,
    Match,
    Options,
    Position,
    action_from_text,
    apply,
    parse_position,
)
from protocol.engine.cards import CARDS, IS_KING, fits

HAND_SIZE = 7
CARD_PATTERN = re.compile(r"(?<![0-9A-Z])(?:10|[2-9AJQK])[CDHS](?![0-9A-Z])")


def cards(text: str) -> list[str]:
    """``"KS QD 2C"`` -> ``["KS", "QD", "2C"]``."""
    return text.split()


def stacked_deck(
    hands: Sequence[str],
    sides: str,
    *,
    dealer: int = 0,
    stock: str = "",
) -> list[str]:
    """The deck (index 0 = top) whose deal gives exactly these hands and side piles.

    ``hands[i]`` lists seat i's seven cards in the order they are dealt to it, ``sides``
    the four cards for N, E, S and W, ``stock`` the top of the stock. Every card not
    named goes to the bottom of the stock in canonical order.
    """
    seats = len(hands)
    dealt = [cards(h) for h in hands]
    assert all(len(h) == HAND_SIZE for h in dealt), "each hand needs seven cards"
    deck = [dealt[(dealer + 1 + k) % seats][k // seats] for k in range(HAND_SIZE * seats)]
    table = cards(sides)
    assert len(table) == 4, "four side cards"
    deck += table
    deck += cards(stock)
    named = set(deck)
    assert len(named) == len(deck), "a card is named twice"
    deck += [c for c in DECK if c not in named]
    return deck


def position(text: str, **options: Any) -> Position:
    """A position from its notation, with the given variant options."""
    seats = text.split(";")[1].count("/") + 1
    return parse_position(text, Options(seats=seats, **options))


def play(start: Position, *texts: str) -> Position:
    """Apply the actions written as text, one after another."""
    pos = start
    for text in texts:
        pos = apply(pos, action_from_text(text))
    return pos


def play_match(match: Match, *texts: str) -> Match:
    for text in texts:
        match = match.apply(action_from_text(text))
    return match


def texts(actions: Iterable[Action]) -> list[str]:
    return [a.text() for a in actions]


def pile(pos: Position, name: str) -> tuple[str, ...]:
    return pos.piles[PILES.index(name)]


def assert_cards_conserved(pos: Position) -> None:
    """All 52 cards are somewhere, each exactly once."""
    every = pos.all_cards()
    assert len(every) == 52
    assert set(every) == CARDS


def assert_piles_well_formed(pos: Position) -> None:
    """Every pile descends in alternating colours; a corner always rests on a king."""
    for name, cards_ in zip(PILES, pos.piles, strict=True):
        for lower, upper in pairwise(cards_):
            assert fits(upper, lower), f"{name}: {upper} does not fit on {lower}"
        if name in ("NE", "SE", "SW", "NW") and cards_:
            assert IS_KING[cards_[0]], f"corner {name} rests on {cards_[0]}"


def cards_in(data: Any) -> set[str]:
    """Every card code written anywhere in the JSON form of ``data``."""
    return set(CARD_PATTERN.findall(json.dumps(data)))
