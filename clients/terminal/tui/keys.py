"""Choosing a move with the keyboard, without any I/O: a card, then a pile.

A card is chosen by its short code typed (``7`` then ``c`` for 7♣; ``10`` or ``t`` for a
ten), by the hand's cursor or by a click; a pile to move by ``m`` then its key. The target
pile is then chosen by its key. Only these choose: a hint moves the cursor and marks a pile,
it never chooses, so the keys after it read as they always do. With nothing chosen a digit
starts a card code (``2`` then ``s`` is 2♠); with a card or pile chosen a digit is a pile key
(the status line says which is coming). Pile keys never change: they are the digits laid out as the
table is, as on a numeric keypad (``8`` is ``N`` at the top, ``2`` is ``S`` at the bottom,
``7`` the top-left corner ``NW``)::

    7 NW   8 N   9 NE
    4 W          6 E
    1 SW   2 S   3 SE

:func:`press` answers one key with the new :class:`Picker` and what to do: an action in
text form for the server (which judges it), a note for the player, or nothing.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

#: The key of every pile; the same on every screen, in every phase.
PILE_KEYS: dict[str, str] = {
    "7": "NW",
    "8": "N",
    "9": "NE",
    "4": "W",
    "6": "E",
    "1": "SW",
    "2": "S",
    "3": "SE",
}
KEY_OF_PILE = {pile: key for key, pile in PILE_KEYS.items()}
#: Keys that start a card's short code (its rank); ``t`` is a ten, ``1`` waits for ``0``.
RANK_KEYS = {"a": "A", "t": "10", "j": "J", "q": "Q", "k": "K", "1": "1"} | {
    str(n): str(n) for n in range(2, 10)
}
SUIT_KEYS = {"c": "C", "d": "D", "h": "H", "s": "S", "♣": "C", "♦": "D", "♥": "H", "♠": "S"}


@dataclass(frozen=True, slots=True)
class Picker:
    """What is chosen so far: a card of the hand or a pile (never both), the rank typed
    of a card code, or ``m`` pressed (a pile to move comes next)."""

    card: str | None = None
    pile: str | None = None
    typed: str = ""
    moving: bool = False

    @property
    def chosen(self) -> bool:
        return self.card is not None or self.pile is not None

    def source(self) -> str | None:
        """The left side of the action being built (a card code or a pile)."""
        return self.card if self.card is not None else self.pile


@dataclass(frozen=True, slots=True)
class Act:
    """Send this action (text form: ``7H>N``, ``N>E``)."""

    action: str


@dataclass(frozen=True, slots=True)
class Note:
    """Tell the player something (a key of the interface texts, with its parameters)."""

    key: str
    card: str = ""
    pile: str = ""


Outcome = Act | Note | Literal["changed"] | None

NOTHING = Picker()


def choose_card(picker: Picker, card: str) -> Picker:
    """Choose ``card`` (choosing the chosen card again puts it back)."""
    if picker.card == card:
        return NOTHING
    return Picker(card=card)


def choose_pile(picker: Picker, pile: str, piles: Mapping[str, Sequence[str]]) -> Outcome:
    """What a pile's key or a click on it does: the target of the chosen card or pile, or
    (nothing chosen) the pile to move, if it holds cards."""
    if picker.card is not None:
        return Act(f"{picker.card}>{pile}")
    if picker.pile is not None:
        return Act(f"{picker.pile}>{pile}") if picker.pile != pile else None
    if not piles.get(pile):
        return Note("empty_pile", pile=pile)
    return None


def press(
    picker: Picker,
    key: str,
    hand: Collection[str],
    piles: Mapping[str, Sequence[str]],
) -> tuple[Picker, Outcome]:
    """The answer to ``key`` (a character, or ``escape``): the new picker and the outcome.
    An outcome of None with the picker unchanged means the key is not about choosing."""
    if key == "escape":
        return NOTHING, "changed" if picker != NOTHING else None
    if picker.typed:
        if picker.typed == "1" and key == "0":
            return replace(picker, typed="10"), "changed"
        if key in SUIT_KEYS and picker.typed != "1":
            code = picker.typed + SUIT_KEYS[key]
            if code in hand:
                return Picker(card=code), "changed"
            return NOTHING, Note("err.not_in_hand", card=code)
        picker = replace(picker, typed="")
    if picker.moving:
        if key in PILE_KEYS:
            pile = PILE_KEYS[key]
            if not piles.get(pile):
                return NOTHING, Note("empty_pile", pile=pile)
            return Picker(pile=pile), "changed"
        return NOTHING, Note("which_pile")
    if picker.chosen and key in PILE_KEYS:
        pile = PILE_KEYS[key]
        outcome = choose_pile(picker, pile, piles)
        return NOTHING, outcome if outcome is not None else "changed"
    if key == "m":
        return Picker(moving=True), "changed"
    if key in RANK_KEYS:
        return Picker(typed=RANK_KEYS[key]), "changed"
    return picker, None


def targets(picker: Picker, legal: Sequence[str]) -> set[str]:
    """The piles the chosen card or pile may go to, from the server's ``legal``."""
    source = picker.source()
    if source is None:
        return set()
    prefix = source + ">"
    return {text[len(prefix) :] for text in legal if text.startswith(prefix)}


def playable(legal: Sequence[str]) -> set[str]:
    """The cards and piles that have somewhere to go (the left sides of ``legal``)."""
    return {text.partition(">")[0] for text in legal if ">" in text}


__all__ = [
    "KEY_OF_PILE",
    "NOTHING",
    "PILE_KEYS",
    "Act",
    "Note",
    "Outcome",
    "Picker",
    "choose_card",
    "choose_pile",
    "playable",
    "press",
    "targets",
]
