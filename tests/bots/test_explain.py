"""Hints explained: each reason code for the position that calls for it, and a reason for
every hint the expert gives."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from protocol.bots import explain, hint
from protocol.bots.explain import CODES
from protocol.engine import (
    DRAW,
    END_TURN,
    Action,
    Move,
    Options,
    Play,
    new_match,
    parse_position,
    seat_view,
)


def view_of(text: str) -> dict[str, Any]:
    """Seat 0's view of a position in the engine's notation."""
    pos = parse_position(text)
    match = replace(new_match(Options(seats=pos.seats), seed="explain"), position=pos)
    return seat_view(match, 0)


TABLE = "N=8C,7H E=9D S=- W=QS NE=- SE=- SW=- NW=-"


@pytest.mark.parametrize(
    ("text", "action", "expected"),
    [
        (
            f"{TABLE} ; hands 4S / 2C ; stock * ; turn 0",
            Play("4S", "S"),
            ("goes_out", {"card": "4S", "pile": "S"}),
        ),
        (
            f"{TABLE} ; hands KH,4S / 2C ; stock * ; turn 0",
            Play("KH", "NE"),
            ("king_to_corner", {"card": "KH", "pile": "NE"}),
        ),
        (
            f"{TABLE} ; hands KH,4S / 2C ; stock * ; turn 0",
            Play("KH", "S"),
            ("sheds_king", {"card": "KH", "pile": "S"}),
        ),
        (
            f"{TABLE} ; hands 4S,2D / 2C ; stock * ; turn 0",
            Move("N", "E"),
            ("opens_space", {"pile": "N", "onto": "E"}),
        ),
        (
            f"{TABLE} ; hands 4S,2D / 2C ; stock * ; turn 0",
            Play("4S", "S"),
            ("fills_space", {"card": "4S", "pile": "S"}),
        ),
        (
            f"{TABLE} ; hands 6S,5H,2D / 2C ; stock * ; turn 0",
            Play("6S", "N"),
            ("sets_up_follow", {"card": "6S", "pile": "N", "next": "5H"}),
        ),
        (
            f"{TABLE} ; hands 6S,2D / 2C ; stock * ; turn 0",
            Play("6S", "N"),
            ("plays_card", {"card": "6S", "pile": "N", "top": "7H"}),
        ),
        (
            f"{TABLE} ; hands 6S,2D / 2C ; stock * ; turn 0",
            END_TURN,
            ("keeps_follow", {"card": "6S", "target": "7H", "pile": "N"}),
        ),
        (
            f"{TABLE} ; hands 4S,2D / 2C ; stock * ; turn 0 ; moved 1",
            END_TURN,
            ("end_nothing_fits", {}),
        ),
    ],
    ids=lambda x: x[0] if isinstance(x, tuple) else "",
)
def test_each_code_names_what_the_action_does(
    text: str, action: Action, expected: tuple[str, dict[str, str]]
) -> None:
    view = view_of(text)
    assert action.text() in view["legal"]
    assert explain(view, action) == expected


UNTIL = Options(seats=2, draw="until_playable")


def until_view(text: str) -> dict[str, Any]:
    """Seat 0's view of a position of the ``draw: until_playable`` variant."""
    match = replace(new_match(UNTIL, seed="explain"), position=parse_position(text, UNTIL))
    return seat_view(match, 0)


def test_draw_until_playable_has_its_own_reasons() -> None:
    stuck = until_view("N=9C E=5D S=7H W=QS NE=- SE=- SW=- NW=- ; hands 2C / 4C ; turn 0")
    assert stuck["legal"] == ["draw"]
    assert explain(stuck, DRAW, "until_playable") == ("draw_nothing_fits", {})
    last = until_view("N=9C E=- S=7H W=QS NE=- SE=- SW=- NW=- ; hands 8D / 4C ; turn 0")
    play = Play("8D", "N")
    assert explain(last, play, "until_playable") == ("refills", {"card": "8D", "pile": "N"})
    # Onto the only empty side space, or in another room, the last card goes out.
    assert explain(last, Play("8D", "E"), "until_playable")[0] == "goes_out"
    assert explain(last, play, "end")[0] == "goes_out"


def test_every_code_is_covered_above() -> None:
    assert len(CODES) == len(set(CODES)) == 11


def test_every_hint_of_a_match_has_a_reason_that_names_real_cards_and_piles() -> None:
    match = new_match(Options(seats=3), seed="explain:hints")
    seen: set[str] = set()
    for _ in range(80):
        if match.phase != "playing":
            break
        seat = match.position.turn
        view = seat_view(match, seat)
        action = hint(view)
        code, params = explain(view, action)
        assert code in CODES
        seen.add(code)
        for key in ("card", "next"):
            if key in params:
                assert params[key] in view["hand"]
        for key in ("pile", "onto"):
            if key in params:
                assert params[key] in view["piles"]
        if "target" in params:
            assert view["piles"][params["pile"]][-1] == params["target"]
        assert explain(view, action) == (code, params)  # pure: same answer again
        match = match.apply(action, seat)
    assert len(seen) >= 3
