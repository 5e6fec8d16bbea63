"""Cards as their wire codes (``AS``, ``10D``, ``KH``) with precomputed facts.

A card is simply its code string. Ranks run ace low to king high; hearts and diamonds
are red, clubs and spades black. The tables below make the hot checks dictionary look-ups.
"""

from __future__ import annotations

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("C", "D", "H", "S")
RED_SUITS = frozenset({"D", "H"})

#: All 52 codes in a fixed canonical order (suit by suit, ace to king).
DECK: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
CARDS = frozenset(DECK)

#: Rank value of each card, ace = 1 ... king = 13.
RANK: dict[str, int] = {rank + suit: i + 1 for suit in SUITS for i, rank in enumerate(RANKS)}
IS_RED: dict[str, bool] = {card: card[-1] in RED_SUITS for card in DECK}
IS_KING: dict[str, bool] = {card: card[0] == "K" for card in DECK}


def _fits(card: str, onto: str) -> bool:
    return RANK[card] == RANK[onto] - 1 and IS_RED[card] != IS_RED[onto]


#: For each card, the (at most two) cards that fit on it.
FITS_ON: dict[str, tuple[str, ...]] = {
    onto: tuple(card for card in DECK if _fits(card, onto)) for onto in DECK
}

#: For each card, the (at most two) cards it fits on.
FITS_UNDER: dict[str, tuple[str, ...]] = {
    card: tuple(onto for onto in DECK if _fits(card, onto)) for card in DECK
}


def fits(card: str, onto: str) -> bool:
    """True when ``card`` is one rank lower than ``onto`` and of the opposite colour."""
    return card in FITS_ON[onto]


def penalty(card: str) -> int:
    """What a card left in hand costs: 10 for a king, 1 for anything else."""
    return 10 if IS_KING[card] else 1


def is_card(text: object) -> bool:
    """True when ``text`` is exactly one of the 52 card codes."""
    return isinstance(text, str) and text in CARDS
