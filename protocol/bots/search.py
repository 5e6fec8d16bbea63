"""The search bots: list every way this turn can end, score the ends, play the best.

``hard`` scores end positions statically (:mod:`.evaluate`). ``expert`` then takes the best
few and plays each out in sampled worlds (:mod:`.worlds`) within a time budget, using the
same worlds for every candidate so their comparison is fair. ``medium`` is ``hard`` with a
human's lapses: it sometimes overlooks pile moves and misjudges close choices.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from protocol.engine import REFILL

from .base import PlanningBot, Seen
from .evaluate import DEFAULT_WEIGHTS, WIN, Weights, evaluate
from .model import MOVE, CardMove, cards_of
from .turnsearch import TurnEnd, turn_ends
from .variants import corners_value, past, refill_value
from .worlds import DEFAULT_SCORING, RoundScoring, play_round, sample_world


@dataclass(frozen=True, slots=True)
class SearchConfig:
    """How hard a search bot looks.

    ``node_limit`` bounds the positions listed per turn. ``candidates``, ``worlds`` (the most
    any candidate sees) and ``first_stage`` set the sampling (``worlds=0`` turns it off);
    ``budget_ms`` stops the search early whatever the other limits say (None: no clock,
    fully reproducible). ``overlook_moves`` is the chance of not seeing pile moves this
    turn and ``noise`` the spread of misjudgement, in cards.
    """

    node_limit: int = 4000
    candidates: int = 16
    worlds: int = 0
    first_stage: int = 8
    budget_ms: float | None = None
    overlook_moves: float = 0.0
    noise: float = 0.0
    weights: Weights = DEFAULT_WEIGHTS
    scoring: RoundScoring = DEFAULT_SCORING


def allowed_ends(seen: Seen, ends: list[TurnEnd]) -> list[TurnEnd]:
    """The ends the rules let the seat stop at: none holding a king back under
    ``kings_first``; under ``draw: until_playable`` none that played no card (the search
    draws instead when nothing can be played at all). All of them if none is left."""
    allowed = [e for e in ends if not seen.kings_first_blocks(e.hand, e.piles)]
    ends = allowed or ends
    if seen.must_play:
        played = [e for e in ends if e.hand != seen.hand]
        ends = played or ends
    return ends


#: A nested listing looks at the clock each time the ends it valued are a multiple of 64.
_CLOCK_MASK = 63


def static_values(
    seen: Seen,
    ends: list[TurnEnd],
    weights: Weights,
    *,
    nested: bool = False,
    deadline: float | None = None,
) -> list[float]:
    """Each end's static evaluation (:func:`.evaluate.evaluate`) from the seat's view; under
    ``scoring: corners`` plus :func:`.variants.corners_value`; an end whose move the stock
    refills (``opening_refill``) by :func:`.variants.refill_value` (``nested``: as it
    stands, inside that valuation).

    ``deadline`` (``perf_counter``; None: no clock) bounds the refill pricing: past it, a
    refill end is priced as it stands, and a ``nested`` listing (only its best value is
    read) stops at the ends valued so far."""
    unseen_count = max(1, seen.unseen.bit_count())
    in_hands = (sum(seen.counts) - seen.counts[seen.seat]) / unseen_count
    values: list[float] = []
    for end in ends:
        if nested and values and not len(values) & _CLOCK_MASK and past(deadline):
            break
        if end.refill and not nested:
            values.append(refill_value(seen, end, _nested(weights, deadline), deadline))
            continue
        if seen.refills(end.hand, end.piles):
            # Not out: three unknown cards come, and the turn goes on with them.
            value = -float(min(REFILL, seen.stock))
        elif seen.corners and not end.hand:
            value = 0.0
        else:
            value = evaluate(end.hand, end.piles, seen.unseen, in_hands, weights)
        if seen.corners:
            value += corners_value(seen, end)
        values.append(value)
    return values


def _nested(
    weights: Weights, deadline: float | None
) -> Callable[[Seen, list[TurnEnd]], list[float]]:
    def value_of(seen: Seen, ends: list[TurnEnd]) -> list[float]:
        ends = allowed_ends(seen, ends)
        return static_values(seen, ends, weights, nested=True, deadline=deadline)

    return value_of


class SearchBot(PlanningBot):
    """A bot that searches its turn; see :class:`SearchConfig` for its strength."""

    def __init__(self, level: str, config: SearchConfig, seed: int | str | None = None) -> None:
        self.level = level
        super().__init__(seed)
        self.config = config
        self.observes = config.worlds > 0

    def plan(self, seen: Seen) -> list[CardMove]:
        return list(self.best_end(seen).path)

    def best_end(self, seen: Seen) -> TurnEnd:
        cfg = self.config
        started = time.perf_counter()
        deadline = None if cfg.budget_ms is None else started + cfg.budget_ms / 2000.0
        ends, _ = turn_ends(
            seen.hand,
            seen.piles,
            cfg.node_limit,
            deadline,
            collect=seen.corners,
            window=seen.refill_open,
        )
        if cfg.overlook_moves and self.rng.random() < cfg.overlook_moves:
            seen_ends = [e for e in ends if not any(m[0] == MOVE for m in e.path)]
            ends = seen_ends or ends
        ends = allowed_ends(seen, ends)
        scored: list[tuple[float, int]] = []
        values = static_values(seen, ends, cfg.weights, deadline=deadline)
        for i, value in enumerate(values):
            if cfg.noise:
                value += self.rng.gauss(0.0, cfg.noise)
            scored.append((value, i))
        scored.sort(key=lambda item: (-item[0], item[1]))
        if cfg.worlds <= 0 or scored[0][0] >= WIN or len(scored) == 1:
            return ends[scored[0][1]]
        return self._sample(seen, [ends[i] for _, i in scored[: cfg.candidates]], started)

    def _sample(self, seen: Seen, candidates: list[TurnEnd], started: float) -> TurnEnd:
        """Successive halving over sampled worlds: every live candidate is played out in the
        same worlds; after each stage the worse half drops out and the next stage doubles
        the worlds, until one is left, ``worlds`` are used or the budget runs out."""
        cfg = self.config
        deadline = None if cfg.budget_ms is None else started + cfg.budget_ms / 1000.0
        totals = [0.0] * len(candidates)
        alive = list(range(len(candidates)))
        used = 0
        step = max(1, cfg.first_stage)
        unseen = cards_of(seen.unseen)
        while len(alive) > 1 and used < cfg.worlds:
            for _ in range(min(step, cfg.worlds - used)):
                world = sample_world(seen, self.rng, unseen)
                for i in alive:
                    end = candidates[i]
                    totals[i] += play_round(
                        seen,
                        world,
                        end.hand,
                        end.piles,
                        cfg.scoring,
                        collected=end.collected,
                        refill_side=end.path[-1][1] if end.refill else None,
                    )
                used += 1
                if deadline is not None and time.perf_counter() > deadline:
                    return candidates[max(alive, key=lambda i: (totals[i], -i))]
            alive.sort(key=lambda i: (-totals[i], i))
            alive = alive[: max(1, (len(alive) + 1) // 2)]
            step *= 2
        return candidates[max(alive, key=lambda i: (totals[i], -i))]


__all__ = ["SearchBot", "SearchConfig", "allowed_ends", "static_values"]
