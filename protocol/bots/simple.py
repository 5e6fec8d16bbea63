"""The two baseline levels: ``random`` and ``heuristic`` (the seed's advice, played straight)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from protocol.engine import Action, action_from_text

from .base import Memory, PlanningBot, Seen, make_rng
from .greedy import greedy_turn
from .model import CardMove


class RandomBot:
    """Picks uniformly among the legal actions, ``end`` included."""

    level = "random"

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = make_rng(seed, self.level)

    def memory(self) -> Memory:
        """Its random stream's state: it plans nothing."""
        return (self.rng.getstate(), (), None, None)

    def recall(self, memory: Memory) -> None:
        self.rng.setstate(memory[0])

    def choose(self, view: Mapping[str, Any]) -> Action:
        legal = view["legal"]
        if not legal:
            raise ValueError("choose() needs a view of the seat on its turn")
        return action_from_text(self.rng.choice(legal))


class HeuristicBot(PlanningBot):
    """Gets rid of kings fast, looks for pile moves before playing from hand, fills an empty
    side space with the card its own hand builds on longest, and plays aces anyway."""

    level = "heuristic"

    def plan(self, seen: Seen) -> list[CardMove]:
        # The advice places every king it can, so ``kings_first`` never blocks the end.
        return greedy_turn(seen.hand, seen.piles)[2]


__all__ = ["HeuristicBot", "RandomBot"]
