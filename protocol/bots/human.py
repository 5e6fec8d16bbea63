"""A bot that plays the seed's advice the way a casual player does: it misses things.

Each step it notices each available play with some probability, sometimes does not look
for pile moves at all during a turn, and now and then fills an empty side space with
whatever card comes to hand. When it notices nothing it ends the turn.
"""

from __future__ import annotations

from .base import PlanningBot, Seen
from .greedy import best_filler
from .model import EMPTY, MOVE, CardMove, do_move, turn_moves


class SloppyBot(PlanningBot):
    """The ``easy`` level: the heuristic with a casual player's lapses."""

    level = "easy"

    def __init__(
        self,
        seed: int | str | None = None,
        *,
        miss: float = 0.3,
        overlook_moves: float = 0.6,
        careless_fill: float = 0.5,
    ) -> None:
        super().__init__(seed)
        self.miss = miss
        self.overlook_moves = overlook_moves
        self.careless_fill = careless_fill

    def plan(self, seen: Seen) -> list[CardMove]:
        rng = self.rng
        hand, piles = seen.hand, seen.piles
        blind_to_moves = rng.random() < self.overlook_moves
        path: list[CardMove] = []
        while hand:
            kings, moves, plays, fills = [], [], [], []
            for move in turn_moves(hand, piles):
                kind, _, b = move
                if kind == MOVE:
                    if not blind_to_moves and rng.random() >= self.miss:
                        moves.append(move)
                elif piles[b] == EMPTY and b >= 4:
                    kings.append(move)
                elif piles[b] == EMPTY:
                    fills.append(move)
                elif rng.random() >= self.miss:
                    plays.append(move)
            step: CardMove | None = None
            if kings:
                step = kings[0]
            elif moves:
                step = moves[0]
            elif plays:
                step = rng.choice(plays)
            elif fills and rng.random() >= self.miss:
                if rng.random() < self.careless_fill:
                    step = rng.choice(fills)
                else:
                    step = (fills[0][0], best_filler(hand), fills[0][2])
            if step is None:
                break
            hand, piles = do_move(hand, piles, step)
            path.append(step)
        return path


__all__ = ["SloppyBot"]
