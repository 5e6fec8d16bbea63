"""The bots under the draw rule ``until_playable``: they draw when stuck, never end a turn
before a play, know a last card beside an empty side space is no way out, and finish."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from protocol.bots import LEVELS, hint, make_bot
from protocol.engine import (
    DRAW,
    Match,
    Options,
    action_from_text,
    apply,
    new_match,
    parse_position,
    seat_view,
)

from .helpers import playout_views

UNTIL = Options(seats=2, draw="until_playable")
#: No card of seat 0's hand fits anywhere and no pile can move: only ``draw`` is legal.
STUCK = "N=9C E=5D S=7H W=QS NE=- SE=- SW=- NW=- ; hands 2C,3D / 4C ; stock 2S,8D,JH ; turn 0"
#: 8D goes out onto the empty E; onto N it would leave E empty and draw three.
LAST = "N=9C E=- S=7H W=QS NE=- SE=- SW=- NW=- ; hands 8D / 4C,5C ; stock 6S,2D,JH,AH ; turn 0"


def view_of(text: str) -> dict[str, Any]:
    """Seat 0's view of the position ``text`` in a match of the variant."""
    match = replace(new_match(UNTIL, seed="view"), position=parse_position(text, UNTIL))
    return seat_view(match, 0)


@pytest.mark.parametrize("level", LEVELS)
def test_a_stuck_seat_draws_until_it_can_play(level: str) -> None:
    bot = make_bot(level, seed="stuck", budget_ms=None)
    view = view_of(STUCK)
    assert view["legal"] == ["draw"]
    assert bot.choose(view).text() == "draw"
    drew = apply(parse_position(STUCK, UNTIL), DRAW)
    after = replace(new_match(UNTIL, seed="view"), position=drew)
    assert bot.choose(seat_view(after, 0)).text() == "draw"  # 2S fits nowhere either


@pytest.mark.parametrize("level", ["hard", "expert"])
def test_the_search_goes_out_rather_than_refill(level: str) -> None:
    view = view_of(LAST)
    assert {"8D>N", "8D>E"} <= set(view["legal"])
    assert make_bot(level, seed="last", budget_ms=None).choose(view).text() == "8D>E"


def test_the_hint_goes_out_rather_than_refill() -> None:
    assert hint(view_of(LAST)).text() == "8D>E"


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_finishes_a_match_with_only_legal_actions(level: str) -> None:
    options = Options(seats=3, draw="until_playable", target=15)
    bots = [make_bot(level, seed=f"finish:{s}", budget_ms=None) for s in range(3)]
    kinds: set[str] = set()
    in_turn, turn = 0, None
    last: tuple[Match, str] | None = None
    for match, view, text in playout_views(bots, f"finish:{level}", options, max_hands=None):
        assert text in view["legal"]
        kinds.add(text if text in ("draw", "end") else "other")
        in_turn = in_turn + 1 if (match.hand_index, match.position.turn) == turn else 0
        turn = match.hand_index, match.position.turn
        assert in_turn < 120, "a turn that never ends"
        last = match, text
    assert last is not None
    before, text = last
    finished = before.apply(action_from_text(text), before.position.turn)
    assert finished.phase == "finished"
    assert {"draw", "end"} <= kinds
    assert max(finished.totals) >= 15
