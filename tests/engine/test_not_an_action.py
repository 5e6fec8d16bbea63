"""Anything that is not a Play, Move or EndTurn is refused as bad_action, and changes nothing.

The public ``apply`` functions are :func:`protocol.engine.apply` (the rules, on a position)
and :meth:`protocol.engine.Match.apply`; ``Position`` has none.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from unittest import mock

import pytest

from protocol.engine import (
    END_TURN,
    Match,
    Move,
    Options,
    Play,
    Position,
    apply,
    explain,
    is_legal,
    legal_actions,
    new_match,
)
from protocol.errors import BadAction, IllegalAction

from .support import play_match, stacked_deck

HAND = "9H 8S 7H 6S 5H 4S KD"
OTHER = "2C 3C 4C 5C 6C 7C 8C"
DECK = stacked_deck([OTHER, HAND], "10C AD 3S AH", dealer=0, stock="JD QS")


def start() -> Match:
    """Seat 1 to move; 9H>N and end are legal."""
    return new_match(Options(seats=2), decks=[DECK], dealer=0)


def ended() -> Match:
    """Seat 1 plays its whole hand out."""
    return play_match(start(), "9H>N", "8S>N", "7H>N", "6S>N", "5H>N", "4S>N", "KD>NE")


NOT_ACTIONS: list[Any] = [
    None,
    "9H>N",
    "end",
    "",
    {"type": "end_turn"},
    {"type": "play", "card": "9H", "pile": "N"},
    {},
    ("9H", "N"),
    ["end"],
    42,
    object(),
    Play,  # the class, not an action
]
# An object's repr holds its address, which differs between test processes.
IDS = [type(x).__name__ if type(x) is object else repr(x)[:30] for x in NOT_ACTIONS]


def test_position_has_no_apply_method() -> None:
    assert not hasattr(Position, "apply")


@pytest.mark.parametrize("thing", NOT_ACTIONS, ids=IDS)
def test_match_apply_refuses_what_is_not_an_action(thing: Any) -> None:
    match = start()
    legal = list(legal_actions(match.position))
    with pytest.raises(BadAction) as error:
        match.apply(thing)
    assert error.value.code == "bad_action" and error.value.client_fault
    assert "not an action" in error.value.message
    assert match == start() and match.log == ()
    assert legal_actions(match.position) == legal


@pytest.mark.parametrize("thing", NOT_ACTIONS, ids=IDS)
def test_rules_apply_refuses_what_is_not_an_action(thing: Any) -> None:
    pos = start().position
    before = replace(pos)
    with pytest.raises(BadAction):
        apply(pos, thing)
    with pytest.raises(BadAction):
        apply(pos, thing, seat=pos.turn)
    assert pos == before


@pytest.mark.parametrize("thing", NOT_ACTIONS, ids=IDS)
def test_explain_and_is_legal_take_what_is_not_an_action(thing: Any) -> None:
    pos = start().position
    assert isinstance(explain(pos, thing), BadAction)
    assert not is_legal(pos, thing)


@pytest.mark.parametrize("thing", [None, "end", {"type": "end_turn"}], ids=repr)
def test_not_an_action_beats_the_wrong_seat_and_the_ended_hand(thing: Any) -> None:
    match = start()
    with pytest.raises(BadAction):
        match.apply(thing, seat=0)
    over = ended()
    assert over.position.result is not None
    for seat in (None, 0, 1):
        with pytest.raises(BadAction):
            over.apply(thing, seat)
        with pytest.raises(BadAction):
            apply(over.position, thing, seat)
    assert over == ended()


def test_an_object_equal_to_every_action_is_still_not_one() -> None:
    match = start()
    assert mock.ANY == END_TURN  # it would pass an equality test
    with pytest.raises(BadAction):
        match.apply(mock.ANY)
    with pytest.raises(BadAction):
        apply(match.position, mock.ANY)
    assert match == start()


@pytest.mark.parametrize(
    ("action", "code"),
    [
        (Play(None, "N"), "bad_action"),  # type: ignore[arg-type]
        (Play(["9H"], "N"), "bad_action"),  # type: ignore[arg-type]
        (Play(9, "N"), "bad_action"),  # type: ignore[arg-type]
        (Play("9H", None), "no_such_pile"),  # type: ignore[arg-type]
        (Play("9H", ["N"]), "no_such_pile"),  # type: ignore[arg-type]
        (Move(None, "E"), "no_such_pile"),  # type: ignore[arg-type]
        (Move("N", ["E"]), "no_such_pile"),  # type: ignore[arg-type]
    ],
    ids=repr,
)
def test_an_action_with_attributes_of_the_wrong_type_is_refused_by_its_code(
    action: Any, code: str
) -> None:
    match = start()
    with pytest.raises(IllegalAction) as error:
        match.apply(action)
    assert error.value.code == code
    assert match == start()
