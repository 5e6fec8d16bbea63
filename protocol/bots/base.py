"""The bot contract and the plumbing every level shares: reading a seat view and keeping a
planned turn between calls."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol, runtime_checkable

from protocol.engine import DRAW, END_TURN, Action, action_from_text

from .model import (
    CARD_ID,
    EMPTY,
    FULL_MASK,
    KING_MASK,
    CardMove,
    Piles,
    do_move,
    mask_of,
    piles_from_view,
    to_action,
)
from .notes import Avoid, Notes, observe, remember


@runtime_checkable
class Bot(Protocol):
    """A player for one seat. ``choose`` gets the seat's current view on its turn and returns
    one of ``view["legal"]`` as an action. It sees nothing else, does no I/O and may keep a
    plan for the rest of its turn between calls."""

    level: str

    def choose(self, view: Mapping[str, Any]) -> Action: ...


#: What a bot carries from one decision to its next: the state of its random stream, the
#: rest of the turn it planned, the hand and piles that plan expects to see next, and what
#: it noted of the other hands from the play it saw (:mod:`.notes`; None if it keeps none).
Memory = tuple[tuple[Any, ...], tuple[CardMove, ...], tuple[int, Piles] | None, Notes | None]


@runtime_checkable
class RememberingBot(Bot, Protocol):
    """A bot whose state between decisions can be taken out and put back.

    ``recall(memory())`` on a fresh bot of the same level and seed gives a bot that decides
    exactly as this one would: a worker process can rebuild any bot for one decision.
    """

    def memory(self) -> Memory: ...

    def recall(self, memory: Memory) -> None: ...


def make_rng(seed: int | str | None, level: str) -> random.Random:
    """The bot's own random stream: seeded bots are reproducible, unseeded ones are not."""
    if seed is None:
        return random.Random()
    return random.Random(f"kings-corner-bot:{level}:{seed}")


@dataclass(frozen=True, slots=True)
class Seen:
    """What a seat knows on its turn, in compact form.

    ``unseen`` is the mask of cards neither in the seat's hand nor on the table: they are in
    the other hands or in the stock, in an order nobody knows. ``avoid`` holds, per seat,
    what the seat's earlier views showed of that hand (:mod:`.notes`; empty when unknown).
    """

    seat: int
    seats: int
    hand: int
    piles: Piles
    counts: tuple[int, ...]
    stock: int
    unseen: int
    can_end: bool
    totals: tuple[int, ...] = ()
    #: ``draw`` is legal: the room draws until a card can be played, and none can.
    can_draw: bool = False
    target: int = 25
    avoid: tuple[tuple[Avoid, ...], ...] = ()
    #: ``scoring: corners`` (the view lists ``collected``): corners collected per seat.
    corners: bool = False
    collected: tuple[int, ...] = ()
    #: ``opening_refill``'s window is open: a move emptying a side space refills it.
    refill_open: bool = False

    @classmethod
    def from_view(cls, view: Mapping[str, Any]) -> Seen:
        hand = mask_of(view["hand"])
        table = 0
        for cards in view["piles"].values():
            for card in cards:
                table |= 1 << CARD_ID[card]
        return cls(
            seat=int(view["you"]),
            seats=int(view["seats"]),
            hand=hand,
            piles=piles_from_view(view),
            counts=tuple(int(c) for c in view["counts"]),
            stock=int(view["stock"]),
            unseen=FULL_MASK & ~hand & ~table,
            can_end="end" in view["legal"],
            totals=tuple(int(t) for t in view.get("totals", ())),
            target=int(view.get("target", 25)),
            can_draw="draw" in view["legal"],
            corners="collected" in view,
            collected=tuple(int(c) for c in view.get("collected", ())),
            refill_open=bool(view.get("refill_open", False)),
        )

    def kings_first_blocks(self, hand: int, piles: Piles) -> bool:
        """True when ending with ``hand`` and ``piles`` would break the ``kings_first`` rule.

        The view does not name the variant; ``end`` missing from the legal actions while the
        seat holds a king and a corner is empty is what reveals it.
        """
        if self.can_end:
            return False
        return bool(hand & KING_MASK) and any(piles[i] == EMPTY for i in range(4, 8))

    @property
    def must_play(self) -> bool:
        """Whether the turn may end only after a card of the hand is played (``draw:
        until_playable``, nothing played yet, the stock not empty).

        The view does not name the rule either: under the other draw rules ``end`` is
        missing only while ``kings_first`` holds a king back (a held king always has an
        empty corner), so ``end`` missing without that, or ``draw`` offered, reveals it.
        """
        if self.can_draw:
            return True
        if self.can_end or not self.stock:
            return False
        return not self.kings_first_blocks(self.hand, self.piles)

    def refills(self, hand: int, piles: Piles) -> bool:
        """Whether a turn ending with ``hand`` empty would, under ``draw: until_playable``
        (when :attr:`must_play` reveals it), have drawn three cards rather than gone out: a
        side space is empty and the stock is not."""
        if hand or not self.must_play:
            return False
        return any(piles[i] == EMPTY for i in range(4))


class PlanningBot:
    """Base for the bots that plan a whole turn at its first call and replay the plan.

    Subclasses implement :meth:`plan`, returning compact moves; the turn ends after them.
    The plan is dropped whenever the view is not the one the plan expected.
    """

    level = "planning"
    #: Whether the bot keeps notes of the other hands (:mod:`.notes`) for its plans.
    observes = False

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = make_rng(seed, self.level)
        self._plan: list[CardMove] = []
        self._expect: tuple[int, Piles] | None = None
        self._notes: Notes | None = None

    def plan(self, seen: Seen) -> list[CardMove]:
        raise NotImplementedError

    def memory(self) -> Memory:
        """What this bot carries to its next decision (see :class:`RememberingBot`)."""
        return (self.rng.getstate(), tuple(self._plan), self._expect, self._notes)

    def recall(self, memory: Memory) -> None:
        """Take up where the bot that gave ``memory`` left off."""
        state, plan, expect = memory[0], memory[1], memory[2]
        self.rng.setstate(state)
        self._plan, self._expect = list(plan), expect
        self._notes = memory[3]

    def choose(self, view: Mapping[str, Any]) -> Action:
        legal: list[str] = list(view["legal"])
        if not legal:
            raise ValueError("choose() needs a view of the seat on its turn")
        state = (mask_of(view["hand"]), piles_from_view(view))
        if self._expect != state:
            seen = Seen.from_view(view)
            if self.observes:
                seen = self._observe(view, seen)
            self._plan = self.plan(seen)
            if self.observes:
                end = state
                for move in self._plan:
                    end = do_move(end[0], end[1], move)
                self._notes = remember(view, seen.seat, end[1], seen.avoid)
        action, self._plan, self._expect = _step(self._plan, state, legal)
        return action

    def _observe(self, view: Mapping[str, Any], seen: Seen) -> Seen:
        """``seen`` with the notes of the other hands as they stand at this turn."""
        if view.get("moved") and self._notes is not None:
            kept = self._notes[1]  # mid-turn: the notes made at this turn's start
        else:
            kept = observe(self._notes, view, seen.seat, seen.piles, seen.unseen)
        return replace(seen, avoid=kept)


def _step(
    plan: list[CardMove], state: tuple[int, Piles], legal: list[str]
) -> tuple[Action, list[CardMove], tuple[int, Piles] | None]:
    """The next action of ``plan`` from ``state``; the plan left and the state it expects.

    Past the plan's end the turn ends; when it may not end yet (``draw: until_playable``),
    the seat draws, and the drawn card makes a new plan."""
    action: Action = END_TURN
    expect = None
    if plan:
        move = plan.pop(0)
        action = to_action(move)
        expect = do_move(state[0], state[1], move)
    if action.text() in legal:
        return action, plan, expect
    if action is END_TURN and "draw" in legal:
        return DRAW, [], None
    # Never expected; keep the game going with a legal action rather than fail.
    return action_from_text(legal[0] if "end" not in legal else "end"), [], None


def follow_plan(memory: Memory | None, view: Mapping[str, Any]) -> tuple[Action, Memory] | None:
    """What a planning bot with ``memory`` answers to ``view`` when ``view`` is the position
    its plan expects, with its next memory; None when it has to think (no plan, a surprise).

    The answer is :func:`~.levels.decide`'s, for a few microseconds: nothing is searched and
    the random stream is not touched (only planning bots leave an expected position in their
    memory).
    """
    if memory is None or memory[2] is None:
        return None
    legal: list[str] = list(view["legal"])
    state = (mask_of(view["hand"]), piles_from_view(view))
    if not legal or memory[2] != state:
        return None
    action, plan, expect = _step(list(memory[1]), state, legal)
    return action, (memory[0], tuple(plan), expect, memory[3])


__all__ = ["Bot", "Memory", "PlanningBot", "RememberingBot", "Seen", "follow_plan", "make_rng"]
