"""One hand (deal) in progress: an immutable value that actions turn into the next one."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .actions import Action
from .cards import penalty
from .options import Options

EndReason = Literal["emptied", "blocked"]


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended: who went out (if anyone), each seat's penalty and leftover cards."""

    reason: EndReason
    out: int | None
    penalties: tuple[int, ...]
    left: tuple[tuple[str, ...], ...]

    @classmethod
    def score(
        cls, reason: EndReason, out: int | None, hands: tuple[tuple[str, ...], ...]
    ) -> HandResult:
        return cls(reason, out, tuple(sum(penalty(c) for c in hand) for hand in hands), hands)


@dataclass(frozen=True, slots=True)
class Position:
    """Everything about one hand: the seats' hands, the piles, the stock, whose turn.

    ``piles`` follows the order of :data:`protocol.engine.table.PILES`, each pile base
    first. ``stock[0]`` is the top of the stock. ``moved`` says whether the seat to move
    has made a move this turn; ``passes`` counts consecutive turns ended without a move
    while the stock was empty (when it reaches the number of seats the hand is blocked).
    ``played`` says whether the seat to move has played a card from its hand this turn
    (what ``draw: until_playable`` asks before a turn may end). ``opening`` says the hand's
    first turn is in progress under ``opening_refill`` (the refill window is open while
    nothing is ``played``: :attr:`refill_open`). ``collected`` counts, per seat, the corners
    collected this hand under ``scoring: corners`` (empty under ``penalty``).
    """

    options: Options
    hands: tuple[tuple[str, ...], ...]
    piles: tuple[tuple[str, ...], ...]
    stock: tuple[str, ...]
    dealer: int
    turn: int
    moved: bool = False
    passes: int = 0
    result: HandResult | None = None
    played: bool = False
    opening: bool = False
    collected: tuple[int, ...] = ()
    #: Memo of :func:`protocol.engine.rules.legal_actions`; not part of the value.
    legal_cache: list[Action] | None = field(default=None, init=False, compare=False, repr=False)

    @property
    def seats(self) -> int:
        return len(self.hands)

    @property
    def refill_open(self) -> bool:
        """Whether a pile move that empties a side space now refills it from the stock
        (``opening_refill``: the hand's first turn, no card played from the hand yet)."""
        return (
            self.opening and self.options.opening_refill and not self.played and self.result is None
        )

    @property
    def over(self) -> bool:
        return self.result is not None

    def all_cards(self) -> list[str]:
        """Every card of the hand, wherever it is (52 in a real deal)."""
        cards = [c for hand in self.hands for c in hand]
        cards += [c for pile in self.piles for c in pile]
        cards += self.stock
        return cards
