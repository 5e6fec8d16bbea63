"""The expert's refill pricing (``opening_refill``) keeps to the search's deadline.

Each end whose move the stock refills is priced over guesses of the refilled card, each guess
listing and valuing the rest of the turn: without a bound that is thousands of positions per
end, and a single turn ran seconds against a 75 ms budget. These count the work done (turn
listings inside the pricing, positions valued) and drive the deadline through its seam,
:func:`protocol.bots.variants.past`, never the wall clock.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

import pytest

import protocol.bots.search as search_module
import protocol.bots.variants as variants_module
from protocol.bots.base import Seen
from protocol.bots.evaluate import DEFAULT_WEIGHTS
from protocol.bots.evaluate import evaluate as evaluate_end
from protocol.bots.levels import CONFIGS
from protocol.bots.search import SearchBot, static_values
from protocol.bots.turnsearch import TurnEnd, turn_ends
from protocol.bots.variants import REFILL_GUESSES
from protocol.engine import Options, legal_actions, new_match, parse_position
from protocol.engine.match import Match
from protocol.engine.views import seat_view

#: The first turn of a hand under ``opening_refill``: two kings and a side pile that can move
#: (three refill ends), and a long hand, so each guess lists a full turn.
OPENING = (
    "N=8C E=9D S=KS W=KH ; hands 7H,6S,5H,4S,QD,JS,10H,3D,2C / 3C ; stock * ; turn 0 ; opening 1"
)
OPTIONS = Options(seats=2, opening_refill=True)


@dataclass
class Work:
    """What the pricing did: turn listings inside it, and positions valued in all."""

    listings: int = 0
    valued: int = 0


@pytest.fixture
def work(monkeypatch: pytest.MonkeyPatch) -> Iterator[Work]:
    counted = Work()
    listing, evaluate = turn_ends, evaluate_end

    def counting_listing(*args: Any, **kwargs: Any) -> tuple[list[TurnEnd], bool]:
        counted.listings += 1
        return listing(*args, **kwargs)

    def counting_evaluate(*args: Any, **kwargs: Any) -> float:
        counted.valued += 1
        return evaluate(*args, **kwargs)

    monkeypatch.setattr(variants_module, "turn_ends", counting_listing)
    monkeypatch.setattr(search_module, "evaluate", counting_evaluate)
    yield counted


class Clock:
    """A deadline seam whose deadline passes at its ``checks``-th look, noting the work
    done by then (``work``)."""

    def __init__(self, checks: int, work: Work) -> None:
        self.checks, self.looked, self.work = checks, 0, work
        self.when: Work | None = None

    def past(self, deadline: float | None) -> bool:
        self.looked += 1
        if deadline is None or self.looked < self.checks:
            return False
        if self.when is None:
            self.when = replace(self.work)
        return True

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(variants_module, "past", self.past)
        monkeypatch.setattr(search_module, "past", self.past)


def opening_view() -> dict[str, Any]:
    pos = parse_position(OPENING, OPTIONS)
    match = new_match(OPTIONS, seed="deadline")
    match = Match(match.options, match.seed, match.decks, 0, pos, totals=(0, 0))
    return seat_view(match, 0)


def opening_ends() -> tuple[Seen, list[TurnEnd]]:
    seen = Seen.from_view(opening_view())
    ends, _ = turn_ends(seen.hand, seen.piles, window=seen.refill_open)
    return seen, ends


def test_without_a_clock_every_refill_end_is_priced_over_every_guess(work: Work) -> None:
    seen, ends = opening_ends()
    refills = sum(end.refill for end in ends)
    assert refills == 3 and seen.refill_open
    values = static_values(seen, ends, DEFAULT_WEIGHTS)
    assert len(values) == len(ends)
    # The work at stake: a full listing per guess, hundreds of positions valued in each.
    assert work.listings == refills * REFILL_GUESSES
    assert work.valued > len(ends) + refills * REFILL_GUESSES * 100


def test_past_the_deadline_a_refill_end_is_priced_as_it_stands(work: Work) -> None:
    seen, ends = opening_ends()
    values = static_values(seen, ends, DEFAULT_WEIGHTS, deadline=0.0)  # long past
    assert len(values) == len(ends) and all(math.isfinite(v) for v in values)
    assert work.listings == 0
    assert work.valued == len(ends)  # each end once, nothing more


@pytest.mark.parametrize("checks", [2, 3, 5, 9, 40])
def test_once_the_deadline_passes_no_guess_starts_and_no_listing_goes_on(
    work: Work, monkeypatch: pytest.MonkeyPatch, checks: int
) -> None:
    seen, ends = opening_ends()
    clock = Clock(checks, work)
    clock.install(monkeypatch)
    values = static_values(seen, ends, DEFAULT_WEIGHTS, deadline=math.inf)
    assert len(values) == len(ends) and all(math.isfinite(v) for v in values)
    assert clock.when is not None, "the deadline never passed"
    # After it: no new listing, and at most the rest of one batch of a listing's positions
    # (the clock is read every 64) besides the ends of the turn itself, once each.
    assert work.listings == clock.when.listings
    assert work.valued - clock.when.valued <= 64 + len(ends)


def test_the_expert_prices_refills_within_its_own_deadline(
    work: Work, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the bot: ``best_end`` hands its deadline to the pricing."""
    view = opening_view()
    bot = SearchBot("expert", replace(CONFIGS["expert"], budget_ms=75.0), "deadline")
    Clock(1, work).install(monkeypatch)  # passed at once
    action = bot.choose(view)
    assert action in legal_actions(parse_position(OPENING, OPTIONS))
    assert work.listings == 0
    _, ends = opening_ends()
    assert work.valued <= len(ends)

    # Without a budget (the coach, reproducible runs) the same turn is priced in full.
    unbounded = SearchBot("expert", replace(CONFIGS["expert"], budget_ms=None, worlds=0), "d")
    work.listings = 0
    unbounded.choose(view)
    assert work.listings == sum(end.refill for end in ends) * REFILL_GUESSES
