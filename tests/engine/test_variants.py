"""Room options: target, draw at the start of a turn, kings first; and their validation."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.engine import END_TURN, Match, Options, apply, legal_actions, new_match
from protocol.errors import BadOptions, MustPlayKing

from .support import pile, play, play_match, position, stacked_deck, texts

CHAIN = "9H 8S 7H 6S 5H 4S 3H"
SIDES = "10C AD AC AH"


def start_match(*, stock: str, kings_first: bool = False) -> Match:
    deck = stacked_deck([CHAIN, "2C 3C 4C 5C 6C 7C 8C"], SIDES, dealer=1, stock=stock)
    return new_match(
        Options(seats=2, draw="start", kings_first=kings_first), decks=[deck], dealer=1
    )


# --- target ---------------------------------------------------------------------------


def test_the_default_target_is_25() -> None:
    assert Options().target == 25


@pytest.mark.parametrize("target", [1, 50, 500])
def test_any_target_from_1_to_500_may_be_chosen(target: int) -> None:
    assert Options(target=target).target == target


def test_a_higher_target_keeps_the_match_going() -> None:
    deck = stacked_deck([CHAIN, "KS KD 2C 3C 4C 5C 6C"], SIDES, dealer=1)
    for target, phase in ((25, "finished"), (26, "hand_over")):
        match = new_match(Options(seats=2, target=target), decks=[deck], dealer=1)
        match = play_match(match, *(f"{c}>N" for c in CHAIN.split()))
        assert match.totals == (0, 25)
        assert match.phase == phase


# --- draw at the start of the turn ---------------------------------------------------


def test_draw_start_the_first_mover_draws_as_the_hand_is_dealt() -> None:
    match = start_match(stock="2S")
    pos = match.position
    assert pos.turn == 0
    assert pos.hands[0] == (*CHAIN.split(), "2S")
    assert len(pos.hands[1]) == 7
    assert len(pos.stock) == 52 - 14 - 4 - 1


def test_draw_start_the_drawn_card_can_be_played_that_turn() -> None:
    match = start_match(stock="9D")
    assert match.position.hands[0][-1] == "9D"
    assert "9D>N" in texts(legal_actions(match.position))
    text = "N=10C E=- S=- W=- NE=- SE=- SW=- NW=- ; hands 2C / 3C ; stock 9D ; turn 1 ; dealer 0"
    pos = play(position(text, draw="start"), "end")
    assert pos.turn == 0
    assert pos.hands[0] == ("2C", "9D")
    assert "9D>N" in texts(legal_actions(pos))
    assert pile(play(pos, "9D>N"), "N") == ("10C", "9D")


def test_draw_start_ending_the_turn_draws_for_the_next_seat_not_the_ender() -> None:
    match = start_match(stock="2S JD")
    before = match.position
    after = match.apply(END_TURN).position
    assert after.hands[0] == before.hands[0]
    assert after.hands[1] == (*before.hands[1], "JD")
    assert after.turn == 1


def test_draw_start_the_hand_still_ends_at_once_when_a_hand_is_emptied() -> None:
    match = start_match(stock="2S JD")
    match = play_match(match, *(f"{c}>N" for c in [*CHAIN.split(), "2S"]))
    result = match.position.result
    assert result is not None
    assert result.reason == "emptied"
    assert result.out == 0
    assert match.position.hands[1] == ("2C", "3C", "4C", "5C", "6C", "7C", "8C")
    assert match.position.stock[0] == "JD"


def test_draw_start_no_card_is_drawn_from_an_empty_stock() -> None:
    text = "N=10C E=- S=- W=- NE=- SE=- SW=- NW=- ; hands 2C / 3C ; stock - ; turn 0 ; dealer 1"
    pos = play(position(text, draw="start"), "end")
    assert pos.hands == (("2C",), ("3C",))


def test_draw_start_the_hand_blocks_after_a_full_round_on_an_empty_stock() -> None:
    text = "N=10C E=- S=- W=- NE=- SE=- SW=- NW=- ; hands 2C / 3C ; stock KD ; turn 0 ; dealer 1"
    pos = play(position(text, draw="start"), "end")
    assert pos.hands[1] == ("3C", "KD")
    assert pos.stock == ()
    pos = play(pos, "end")
    assert pos.passes == 1
    pos = play(pos, "end")
    assert pos.result is not None
    assert pos.result.reason == "blocked"
    assert pos.result.penalties == (1, 11)


# --- kings first ----------------------------------------------------------------------

KING = "N=10C E=- S=- W=- NE=- SE=- SW=- NW=- ; hands KH,2C / 3C ; stock 4C,5C ; turn 0 ; dealer 1"


def test_kings_first_a_turn_cannot_end_holding_a_king_while_a_corner_is_empty() -> None:
    pos = position(KING, kings_first=True)
    assert "end" not in texts(legal_actions(pos))
    with pytest.raises(MustPlayKing) as error:
        apply(pos, END_TURN)
    assert error.value.code == "must_play_king"
    assert pos == position(KING, kings_first=True)


def test_kings_first_the_turn_ends_once_the_king_is_in_a_corner() -> None:
    pos = play(position(KING, kings_first=True), "KH>SW", "end")
    assert pos.turn == 1
    assert pile(pos, "SW") == ("KH",)


def test_kings_first_a_king_placed_on_a_side_space_also_frees_the_turn() -> None:
    pos = play(position(KING, kings_first=True), "KH>E", "end")
    assert pos.turn == 1


def test_kings_first_a_held_king_always_has_an_empty_corner_to_go_to() -> None:
    # Corners only ever hold king-based piles, so with a king in hand at most three are
    # full: under kings_first a turn can never end with a king in hand.
    text = "N=10C E=- S=- W=- NE=KS SE=KD SW=KC NW=- ; hands KH,2C / 3C ; turn 0 ; dealer 1"
    pos = position(text, kings_first=True)
    legal = texts(legal_actions(pos))
    assert legal == ["KH>E", "2C>E", "KH>S", "2C>S", "KH>W", "2C>W", "KH>NW"]
    assert "end" in texts(legal_actions(play(pos, "KH>NW")))


def test_kings_first_a_seat_without_a_king_ends_its_turn_freely() -> None:
    text = KING.replace("KH,2C", "QH,2C")
    assert "end" in texts(legal_actions(position(text, kings_first=True)))


def test_kings_first_a_king_drawn_at_the_end_of_a_turn_must_be_played_next_turn() -> None:
    text = "N=10C E=- S=- W=- NE=- SE=- SW=- NW=- ; hands 2C / 3C ; stock KD ; turn 0 ; dealer 1"
    pos = play(position(text, kings_first=True), "end", "end")
    assert pos.turn == 0
    assert "end" not in texts(legal_actions(pos))


def test_kings_first_is_off_by_default() -> None:
    assert Options().kings_first is False
    assert "end" in texts(legal_actions(position(KING)))


# --- validation -------------------------------------------------------------------------


def test_default_options_are_four_seats_target_25_draw_at_end_no_kings_first() -> None:
    assert Options().to_dict() == {"seats": 4, "target": 25, "draw": "end", "kings_first": False}


def test_options_round_trip_through_their_dict_form() -> None:
    options = Options(seats=3, target=40, draw="start", kings_first=True)
    assert Options.from_dict(options.to_dict()) == options


@pytest.mark.parametrize(
    "bad",
    [
        {"seats": 1},
        {"seats": 5},
        {"seats": "4"},
        {"target": 0},
        {"target": 501},
        {"target": "25"},
        {"target": 25.0},
        {"target": True},
        {"seats": True},
        {"draw": "middle"},
        {"kings_first": "yes"},
        {"kings_first": 1},
        {"colour": "red"},
    ],
)
def test_bad_options_are_refused_with_bad_options(bad: dict[str, Any]) -> None:
    with pytest.raises(BadOptions) as error:
        Options.from_dict(bad)
    assert error.value.code == "bad_options"
    assert error.value.client_fault
