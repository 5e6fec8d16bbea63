"""Ending a turn, going out, and the blocked hand."""

from __future__ import annotations

import pytest

from protocol.engine import END_TURN, apply, legal_actions
from protocol.errors import HandOver

from .support import play, position, texts

THREE = (
    "N=9C E=8C S=5H W=JD NE=- SE=- SW=- NW=- ; hands 2C,AH / 3D,4D / 6S,7S ; "
    "stock 8H,QS,10D ; turn 0 ; dealer 2"
)
EMPTY_STOCK = (
    "N=9C E=8C S=5H W=JD NE=- SE=- SW=- NW=- ; hands 2C,AH,8H,QS,KS / 3D,4D / 4S,7S ; "
    "stock - ; turn 0 ; dealer 2"
)


def test_ending_the_turn_draws_the_top_card_of_the_stock() -> None:
    after = play(position(THREE), "end")
    assert after.hands[0] == ("2C", "AH", "8H")
    assert after.stock == ("QS", "10D")


def test_turns_pass_to_the_left() -> None:
    pos = position(THREE)
    seen = []
    for _ in range(4):
        seen.append(pos.turn)
        pos = play(pos, "end")
    assert seen == [0, 1, 2, 0]


def test_a_new_turn_starts_with_no_move_made() -> None:
    text = "N=9C E=- S=- W=- NE=- SE=- SW=- NW=- ; hands 8D,2C / 3D ; turn 0 ; dealer 1"
    pos = play(position(text), "8D>N")
    assert pos.moved
    pos = play(pos, "end")
    assert pos.turn == 1
    assert not pos.moved


def test_the_drawn_card_waits_until_the_drawers_next_turn() -> None:
    # Seat 0 draws 8H, which fits on 9C; the turn passes at once, so 8H cannot be played now.
    pos = play(position(THREE), "end")
    assert pos.turn == 1
    assert "8H>N" not in texts(legal_actions(pos))
    pos = play(pos, "end", "end")
    assert pos.turn == 0
    assert "8H>N" in texts(legal_actions(pos))


def test_ending_the_turn_on_an_empty_stock_draws_nothing() -> None:
    pos = position(EMPTY_STOCK)
    after = play(pos, "end")
    assert after.hands[0] == pos.hands[0]
    assert after.stock == ()
    assert after.turn == 1


def test_ending_the_turn_needs_no_move_first() -> None:
    pos = position(THREE)
    assert not pos.moved
    assert "end" in texts(legal_actions(pos))


def test_no_one_has_to_play_a_king() -> None:
    text = "N=9C E=8C S=5H W=JD NE=- SE=- SW=- NW=- ; hands KH,2C / 3D ; turn 0 ; dealer 1"
    pos = position(text)
    assert "KH>NE" in texts(legal_actions(pos))
    assert play(pos, "end").turn == 1


# --- going out ------------------------------------------------------------------------

OUT = (
    "N=9C E=8C S=5H W=JD NE=- SE=- SW=- NW=- ; hands 8H / KS,QD,2C / 6S,7S ; "
    "stock 10D,3C ; turn 0 ; dealer 2"
)


def test_the_hand_ends_the_moment_a_hand_is_emptied() -> None:
    after = play(position(OUT), "8H>N")
    assert after.over
    assert after.result is not None
    assert after.result.reason == "emptied"
    assert after.result.out == 0


def test_the_seat_that_goes_out_does_not_draw() -> None:
    pos = position(OUT)
    after = play(pos, "8H>N")
    assert after.hands[0] == ()
    assert after.stock == pos.stock


def test_nothing_can_be_done_once_the_hand_is_over() -> None:
    after = play(position(OUT), "8H>N")
    assert legal_actions(after) == []
    for seat in (0, 1, None):
        with pytest.raises(HandOver) as error:
            apply(after, END_TURN, seat)
        assert error.value.code == "hand_over"


def test_going_out_scores_zero_and_the_others_pay_for_what_they_hold() -> None:
    after = play(position(OUT), "8H>N")
    assert after.result is not None
    assert after.result.penalties == (0, 12, 2)
    assert after.result.left == ((), ("KS", "QD", "2C"), ("6S", "7S"))


# --- the blocked hand ----------------------------------------------------------------


def test_the_hand_is_blocked_when_every_seat_in_a_row_ends_a_turn_without_moving() -> None:
    pos = position(EMPTY_STOCK)
    pos = play(pos, "end", "end")
    assert pos.result is None
    assert pos.passes == 2
    pos = play(pos, "end")
    assert pos.result is not None
    assert pos.result.reason == "blocked"
    assert pos.result.out is None


def test_a_blocked_hand_makes_every_seat_pay_for_its_cards() -> None:
    pos = play(position(EMPTY_STOCK), "end", "end", "end")
    assert pos.result is not None
    assert pos.result.penalties == (14, 2, 2)
    assert pos.result.left == pos.hands


def test_a_move_restarts_the_count_of_turns_without_a_move() -> None:
    pos = play(position(EMPTY_STOCK), "end", "end")
    assert pos.passes == 2
    pos = play(pos, "4S>S")
    assert pos.passes == 0
    pos = play(pos, "end", "end", "end")
    assert pos.result is None
    assert pos.passes == 2
    pos = play(pos, "end")
    assert pos.result is not None
    assert pos.result.reason == "blocked"


def test_turns_do_not_count_towards_a_block_while_the_stock_holds_cards() -> None:
    pos = position(THREE)
    for _ in range(3):
        pos = play(pos, "end")
        assert pos.passes == 0
    assert pos.stock == ()
    assert pos.result is None


def test_drawing_the_last_card_of_the_stock_is_not_a_pass() -> None:
    text = THREE.replace("stock 8H,QS,10D", "stock 8H")
    pos = play(position(text), "end")
    assert pos.stock == ()
    assert pos.passes == 0
    pos = play(pos, "end", "end")
    assert pos.passes == 2
    assert pos.result is None
    pos = play(pos, "end")
    assert pos.result is not None
    assert pos.result.reason == "blocked"


def test_two_seats_block_after_two_turns_without_a_move() -> None:
    text = "N=9C E=8C S=5H W=JD NE=- SE=- SW=- NW=- ; hands KS / QD ; stock - ; turn 1 ; dealer 0"
    pos = play(position(text), "end")
    assert pos.result is None
    pos = play(pos, "end")
    assert pos.result is not None
    assert pos.result.penalties == (10, 1)
