"""The bots under ``opening_refill`` and ``scoring: corners``: every level stays legal, the
search values collecting a corner and the refill, and the coach runs on such hands with
legal alternatives."""

from __future__ import annotations

import json
from typing import Any

import pytest

from protocol.bots import make_bot
from protocol.bots.base import Seen
from protocol.bots.review import ReviewConfig, review
from protocol.bots.search import SearchBot, SearchConfig
from protocol.bots.turnsearch import turn_ends
from protocol.engine import (
    Options,
    legal_actions,
    new_match,
    parse_position,
    replay,
)
from protocol.engine.match import Match
from protocol.engine.views import seat_view

VARIANTS: list[dict[str, Any]] = [
    {"scoring": "corners"},
    {"opening_refill": True},
    {"scoring": "corners", "opening_refill": True, "draw": "start", "kings_first": True},
    {"scoring": "corners", "opening_refill": True, "draw": "until_playable"},
]
FAST = ReviewConfig(worlds=4, candidates=2)


def play_out(options: Options, levels: tuple[str, ...], seed: str) -> Match:
    match = new_match(options, seed=seed)
    bots = [make_bot(level, f"{seed}:{i}", budget_ms=None) for i, level in enumerate(levels)]
    for _ in range(4000):
        if match.phase == "finished":
            break
        if match.phase == "hand_over":
            match = match.next_hand()
            continue
        seat = match.position.turn
        action = bots[seat].choose(seat_view(match, seat))
        assert action in legal_actions(match.position)
        match = match.apply(action, seat)
    return match


@pytest.mark.parametrize(
    "rules", VARIANTS, ids=lambda r: ",".join(f"{k}={v}" for k, v in r.items())
)
def test_every_level_plays_the_variants_legally(rules: dict[str, Any]) -> None:
    cheap = {**rules, "target": 12}
    for k, pair in enumerate([("random", "heuristic"), ("easy", "medium"), ("hard", "expert")]):
        match = play_out(Options(seats=2, **cheap), pair, f"variants:{k}")
        assert replay(match.record()) == match


def corners_view(text: str) -> dict[str, Any]:
    pos = parse_position(text, Options(seats=2, scoring="corners"))
    match = new_match(Options(seats=2, scoring="corners"), seed="v")
    match = Match(match.options, match.seed, match.decks, 0, pos, totals=(0, 0))
    return seat_view(match, pos.turn)


RUN = "KS,QH,JC,10D,9S,8H,7C,6D,5S,4H,3C,2D"


def test_the_expert_collects_a_corner_it_can_complete() -> None:
    view = corners_view(f"N=9C E=5D S=JH W=QS NE={RUN} ; hands AS,4D,8C / 3H,7S ; stock * ; turn 0")
    bot = SearchBot("expert", SearchConfig(worlds=24, candidates=6), "t")
    assert bot.choose(view).text() == "AS>NE"


def test_the_search_does_not_leave_a_corner_for_the_next_seat_to_complete() -> None:
    # 3C would leave NE down to a two (AS and AC unseen): the next seat collects it.
    view = corners_view(
        f"N=9C E=5D S=JH W=QS NE={RUN.rsplit(',', 2)[0]} ; hands 2D,9H / 3H,7S ; stock * ; turn 0"
    )
    seen = Seen.from_view(view)
    ends, _ = turn_ends(seen.hand, seen.piles, collect=True)
    bot = SearchBot("hard", SearchConfig(), "t")
    best = bot.best_end(seen)
    # playing 2D onto NE (top 3C) hands the ace's corner to the next seat
    assert not any(m[0] == 0 and m[2] == 4 for m in best.path), best.path
    assert len(ends) > 1


def test_in_the_opening_window_a_side_move_ends_the_planned_line() -> None:
    text = "N=8C E=9D S=KS W=2C ; hands 4D,QH / 3C ; stock * ; turn 0 ; opening 1"
    pos = parse_position(text, Options(seats=2, opening_refill=True))
    match = new_match(Options(seats=2, opening_refill=True), seed="v")
    match = Match(match.options, match.seed, match.decks, 0, pos, totals=(0, 0))
    view = seat_view(match, 0)
    assert view["refill_open"] is True
    seen = Seen.from_view(view)
    ends, _ = turn_ends(seen.hand, seen.piles, window=True)
    refills = [e for e in ends if e.refill]
    assert refills and all(e.path[-1][0] == 1 and e.path[-1][1] < 4 for e in refills)
    action = make_bot("expert", "t", budget_ms=None).choose(view)
    assert action in legal_actions(pos)


@pytest.mark.parametrize("rules", VARIANTS[:2], ids=["corners", "refill"])
def test_the_coach_runs_on_variant_hands_and_its_alternatives_are_legal(
    rules: dict[str, Any],
) -> None:
    match = play_out(Options(seats=2, target=10, **rules), ("easy", "heuristic"), "coach")
    document = review(match.record(), None, FAST)
    assert json.dumps(document) == json.dumps(review(match.record(), None, FAST))
