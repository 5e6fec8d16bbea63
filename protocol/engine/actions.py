"""The four actions a seat can take, in their wire form and their text form.

Wire form (JSON objects)::

    {"type": "play", "card": "7H", "pile": "N"}
    {"type": "move", "from": "N", "to": "E"}
    {"type": "draw"}
    {"type": "end_turn"}

Text form (for logs, tests and hints): ``7H>N``, ``N>E``, ``draw`` and ``end``. Both
round-trip. ``draw`` is only ever legal in the ``draw: until_playable`` variant.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from protocol.errors import BadAction

from .cards import CARDS
from .table import PILE_INDEX


@dataclass(frozen=True, slots=True)
class Play:
    """Play ``card`` from the hand onto ``pile``."""

    card: str
    pile: str

    def wire(self) -> dict[str, Any]:
        return {"type": "play", "card": self.card, "pile": self.pile}

    def text(self) -> str:
        return f"{self.card}>{self.pile}"


@dataclass(frozen=True, slots=True)
class Move:
    """Move the whole pile ``src`` onto ``dst``."""

    src: str
    dst: str

    def wire(self) -> dict[str, Any]:
        return {"type": "move", "from": self.src, "to": self.dst}

    def text(self) -> str:
        return f"{self.src}>{self.dst}"


@dataclass(frozen=True, slots=True)
class EndTurn:
    """End the turn (drawing one card when the ``draw`` variant is ``end``)."""

    def wire(self) -> dict[str, Any]:
        return {"type": "end_turn"}

    def text(self) -> str:
        return "end"


@dataclass(frozen=True, slots=True)
class Draw:
    """Take the top card of the stock into the hand, the turn going on (``draw:
    until_playable``, while no card of the hand can be played)."""

    def wire(self) -> dict[str, Any]:
        return {"type": "draw"}

    def text(self) -> str:
        return "draw"


Action = Play | Move | EndTurn | Draw
END_TURN = EndTurn()
DRAW = Draw()

#: Every possible play and move, built once so generating legal actions allocates nothing.
PLAYS: dict[str, dict[str, Play]] = {
    card: {pile: Play(card, pile) for pile in PILE_INDEX} for card in CARDS
}
MOVES: dict[str, dict[str, Move]] = {
    src: {dst: Move(src, dst) for dst in PILE_INDEX if dst != src} for src in PILE_INDEX
}


def action_from_wire(data: Mapping[str, Any]) -> Action:
    """Parse the wire form; raise :class:`BadAction` for anything malformed.

    Only the shape is checked here (known type, string fields). Whether the card or pile
    exists is the rules' business, so the refusal carries the precise code.
    """
    if not isinstance(data, Mapping):
        raise BadAction()
    kind = data.get("type")
    if kind == "play":
        card, pile = data.get("card"), data.get("pile")
        if isinstance(card, str) and isinstance(pile, str) and len(data) == 3:
            return play_of(card, pile)
    elif kind == "move":
        src, dst = data.get("from"), data.get("to")
        if isinstance(src, str) and isinstance(dst, str) and len(data) == 3:
            return move_of(src, dst)
    elif kind == "end_turn" and len(data) == 1:
        return END_TURN
    elif kind == "draw" and len(data) == 1:
        return DRAW
    raise BadAction()


def action_from_text(text: str) -> Action:
    """Parse ``7H>N``, ``N>E``, ``draw`` or ``end``."""
    if not isinstance(text, str):
        raise BadAction()
    text = text.strip()
    if text == "end":
        return END_TURN
    if text == "draw":
        return DRAW
    left, sep, right = text.partition(">")
    if sep:
        if left in PILE_INDEX:
            return move_of(left, right)
        if left in CARDS:
            return play_of(left, right)
    raise BadAction(
        "Not an action: CARD>PILE, PILE>PILE, draw or end.", reason="not_an_action", text=text
    )


def play_of(card: str, pile: str) -> Play:
    """The interned play when it names a real card and pile (rules compare by identity)."""
    return PLAYS.get(card, {}).get(pile) or Play(card, pile)


def move_of(src: str, dst: str) -> Move:
    """The interned pile move when it names real piles."""
    return MOVES.get(src, {}).get(dst) or Move(src, dst)
