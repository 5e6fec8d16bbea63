"""Actions in their wire form and their text form, both round-tripping."""

from __future__ import annotations

import dataclasses
import json
from typing import Any, get_type_hints

import pytest

from protocol.engine import (
    DECK,
    DRAW,
    END_TURN,
    PILES,
    Action,
    Draw,
    EndTurn,
    Move,
    Play,
    action_from_text,
    action_from_wire,
)
from protocol.errors import BadAction

EVERY_ACTION: list[Action] = [
    *(Play(card, pile) for card in DECK for pile in PILES),
    *(Move(src, dst) for src in PILES for dst in PILES if src != dst),
    DRAW,
    END_TURN,
]


def test_a_play_is_written_card_then_pile() -> None:
    play = Play("7H", "N")
    assert play.wire() == {"type": "play", "card": "7H", "pile": "N"}
    assert play.text() == "7H>N"


def test_a_move_is_written_source_then_destination() -> None:
    move = Move("N", "E")
    assert move.wire() == {"type": "move", "from": "N", "to": "E"}
    assert move.text() == "N>E"


def test_ending_the_turn_is_written_end() -> None:
    assert END_TURN.wire() == {"type": "end_turn"}
    assert END_TURN.text() == "end"
    assert EndTurn() == END_TURN


def test_drawing_is_written_draw() -> None:
    assert DRAW.wire() == {"type": "draw"}
    assert DRAW.text() == "draw"
    assert Draw() == DRAW
    assert action_from_wire({"type": "draw"}) is DRAW
    assert action_from_text(" draw ") is DRAW


def test_the_wire_examples_parse() -> None:
    assert action_from_wire({"type": "play", "card": "7H", "pile": "N"}) == Play("7H", "N")
    assert action_from_wire({"type": "move", "from": "N", "to": "E"}) == Move("N", "E")
    assert action_from_wire({"type": "end_turn"}) == END_TURN


def test_the_text_examples_parse() -> None:
    assert action_from_text("7H>N") == Play("7H", "N")
    assert action_from_text("10D>NE") == Play("10D", "NE")
    assert action_from_text("N>E") == Move("N", "E")
    assert action_from_text("SW>NW") == Move("SW", "NW")
    assert action_from_text("end") == END_TURN
    assert action_from_text("  end\n") == END_TURN


def test_every_action_round_trips_through_its_wire_form_as_json() -> None:
    for action in EVERY_ACTION:
        assert action_from_wire(json.loads(json.dumps(action.wire()))) == action


def test_every_action_round_trips_through_its_text_form() -> None:
    for action in EVERY_ACTION:
        assert action_from_text(action.text()) == action


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"type": "discard"},
        {"type": "draw", "card": "7H"},
        {"type": "play", "card": "7H"},
        {"type": "play", "card": 7, "pile": "N"},
        {"type": "play", "card": "7H", "pile": None},
        {"type": "play", "card": "7H", "pile": "N", "extra": 1},
        {"type": "move", "from": "N"},
        {"type": "move", "from": "N", "to": 3},
        {"type": "end_turn", "card": "7H"},
        {"card": "7H", "pile": "N"},
    ],
)
def test_a_malformed_wire_action_is_refused_as_bad_action(data: dict[str, Any]) -> None:
    with pytest.raises(BadAction) as error:
        action_from_wire(data)
    assert error.value.code == "bad_action"


@pytest.mark.parametrize("text", ["", "7H", "7H-N", "ZZ>N", "end_turn", "draws", ">N", "1H>N"])
def test_text_that_is_no_action_is_refused_as_bad_action(text: str) -> None:
    with pytest.raises(BadAction) as error:
        action_from_text(text)
    assert error.value.code == "bad_action"


def test_parsing_leaves_unknown_piles_to_the_rules() -> None:
    # The shape is an action; the rules refuse it later with the precise no_such_pile.
    assert action_from_text("7H>X") == Play("7H", "X")
    assert action_from_text("N>X") == Move("N", "X")
    assert action_from_wire({"type": "play", "card": "ZZ", "pile": "N"}) == Play("ZZ", "N")


def test_actions_are_values() -> None:
    assert Play("7H", "N") == Play("7H", "N")
    assert hash(Move("N", "E")) == hash(Move("N", "E"))
    assert len(set(EVERY_ACTION)) == len(EVERY_ACTION) == 52 * 8 + 8 * 7 + 2


def test_play_move_and_end_turn_have_the_documented_attributes() -> None:
    # docs/engine.md, Actions: Play(card, pile), Move(src, dst), EndTurn() -- all strings.
    assert [f.name for f in dataclasses.fields(Play)] == ["card", "pile"]
    assert [f.name for f in dataclasses.fields(Move)] == ["src", "dst"]
    assert dataclasses.fields(EndTurn) == ()
    assert get_type_hints(Play) == {"card": str, "pile": str}
    assert get_type_hints(Move) == {"src": str, "dst": str}
    play, move = Play("7H", "N"), Move("N", "E")
    assert (play.card, play.pile) == ("7H", "N")
    assert (move.src, move.dst) == ("N", "E")
    assert Play(card="7H", pile="N") == play and Move(src="N", dst="E") == move
    assert EndTurn() == END_TURN and hash(EndTurn()) == hash(END_TURN)


def test_the_move_attributes_are_the_wire_from_and_to() -> None:
    move = action_from_wire({"type": "move", "from": "W", "to": "NE"})
    assert isinstance(move, Move)
    assert (move.src, move.dst) == ("W", "NE")


@pytest.mark.parametrize("action", [Play("7H", "N"), Move("N", "E"), END_TURN], ids=str)
def test_an_action_cannot_be_changed(action: Action) -> None:
    for field in dataclasses.fields(action):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(action, field.name, "8H")
    # Slots: no stray attribute either (CPython 3.11 words this one as a TypeError).
    with pytest.raises((AttributeError, TypeError)):
        action.extra = "8H"  # type: ignore[union-attr]
    assert not hasattr(action, "__dict__")


def test_building_an_action_checks_nothing_the_rules_do() -> None:
    odd = Play("1H", "X")
    assert (odd.card, odd.pile) == ("1H", "X")
    assert odd.text() == "1H>X"
