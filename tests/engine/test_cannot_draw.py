"""``cannot_draw`` as docs/protocol.md words it (issue 48, item 8): ``reason`` is the first
that applies of ``rule``, ``stock_empty``, ``playable`` (an empty stock wins over a card that
could be played), and with ``playable``, ``card`` and ``pile`` name the first play that
``legal`` lists (the documented order of the legal actions), whatever the hand's order."""

from __future__ import annotations

import pytest

from protocol.engine import DRAW, Play, apply, legal_actions
from protocol.errors import CannotDraw

from .support import position, texts

UNTIL = "until_playable"
#: 8D fits on 9C (N) and 4H on 5S (E); the king pile S may go to a corner.
SIDES = "N=9C E=5S S=KS W=QS NE=- SE=- SW=- NW=-"


def refusal(spec: str, draw: str = UNTIL) -> dict[str, object]:
    with pytest.raises(CannotDraw) as refused:
        apply(position(spec, draw=draw), DRAW)
    return dict(refused.value.params)


def test_playable_names_the_first_play_legal_lists() -> None:
    # The hand holds the card for E first; legal lists the play on N first (piles in order).
    spec = f"{SIDES} ; hands 4H,2C,8D / 4D ; stock 7S ; turn 0 ; dealer 1"
    plays = [a for a in legal_actions(position(spec, draw=UNTIL)) if isinstance(a, Play)]
    assert texts(plays)[:2] == ["8D>N", "4H>E"]
    assert refusal(spec) == {"reason": "playable", "card": "8D", "pile": "N"}


def test_an_empty_stock_wins_over_a_playable_card() -> None:
    spec = f"{SIDES} ; hands 4H,8D / 4D ; stock - ; turn 0 ; dealer 1"
    assert any(isinstance(a, Play) for a in legal_actions(position(spec, draw=UNTIL)))
    assert refusal(spec) == {"reason": "stock_empty"}


@pytest.mark.parametrize("draw", ["end", "start"])
def test_the_rule_wins_over_everything(draw: str) -> None:
    spec = f"{SIDES} ; hands 4H,8D / 4D ; stock - ; turn 0 ; dealer 1"
    assert refusal(spec, draw) == {"reason": "rule"}
