"""A turn: playing cards, starting corners, filling side spaces and moving whole piles."""

from __future__ import annotations

import pytest

from protocol.engine import (
    CORNERS,
    EndTurn,
    action_from_text,
    apply,
    format_position,
    is_legal,
    legal_actions,
)
from protocol.engine.actions import Move, Play
from protocol.errors import IllegalAction

from .support import pile, play, position, texts

# Seat 0 to move with 8H, 4S, 3H, KD, QH; N ends in 9C, E is the pile 8C-7H, S is 9D,
# W is the king pile KS-QD; the corners are empty except NE, which holds KH.
TABLE = (
    "N=9C E=8C,7H S=9D W=KS,QD NE=KH SE=- SW=- NW=- ; hands 8H,4S,3H,KD,QC / 2C,5D ; "
    "turn 0 ; dealer 1"
)


def refused(pos_text: str, action: str) -> str:
    """The code of the refusal of ``action``; the position must not change."""
    pos = position(pos_text)
    before = format_position(pos)
    with pytest.raises(IllegalAction) as error:
        apply(pos, action_from_text(action))
    assert format_position(pos) == before
    assert pos == position(pos_text)
    assert not is_legal(pos, action_from_text(action))
    return error.value.code


# --- playing a card -----------------------------------------------------------------


def test_a_card_plays_onto_a_pile_whose_top_it_fits() -> None:
    after = play(position(TABLE), "8H>N")
    assert pile(after, "N") == ("9C", "8H")
    assert "8H" not in after.hands[0]
    assert after.turn == 0
    assert after.moved


def test_a_card_that_is_not_one_rank_lower_and_opposite_colour_does_not_fit() -> None:
    assert refused(TABLE, "8H>S") == "does_not_fit"
    assert refused(TABLE, "4S>N") == "does_not_fit"


def test_nothing_plays_onto_an_ace() -> None:
    ace = "N=AH E=- S=- W=- NE=- SE=- SW=- NW=- ; hands 2S,KD / 2C ; turn 0 ; dealer 1"
    assert not any(isinstance(a, Play) and a.pile == "N" for a in legal_actions(position(ace)))
    assert refused(ace, "2S>N") == "does_not_fit"


def test_a_king_starts_an_empty_corner() -> None:
    after = play(position(TABLE), "KD>SE")
    assert pile(after, "SE") == ("KD",)
    assert "KD" not in after.hands[0]


def test_a_king_may_start_any_empty_corner() -> None:
    legal = texts(legal_actions(position(TABLE)))
    assert {"KD>SE", "KD>SW", "KD>NW"} <= set(legal)
    assert "KD>NE" not in legal


def test_only_a_king_may_start_an_empty_corner() -> None:
    assert refused(TABLE, "QC>SE") == "corner_needs_king"
    assert refused(TABLE, "3H>NW") == "corner_needs_king"


def test_a_queen_of_the_other_colour_plays_onto_a_corner_king() -> None:
    after = play(position(TABLE), "QC>NE")
    assert pile(after, "NE") == ("KH", "QC")


def test_any_card_fills_an_empty_side_space() -> None:
    empty_n = TABLE.replace("N=9C", "N=-")
    for card in ("8H", "4S", "3H", "KD", "QC"):
        after = play(position(empty_n), f"{card}>N")
        assert pile(after, "N") == (card,)


def test_a_card_not_in_your_hand_is_refused_as_not_in_hand() -> None:
    assert refused(TABLE, "8D>N") == "not_in_hand"
    assert refused(TABLE, "2C>N") == "not_in_hand"


def test_a_play_onto_an_unknown_pile_is_refused_as_no_such_pile() -> None:
    assert refused(TABLE, "8H>X") == "no_such_pile"
    assert refused(TABLE, "8H>n") == "no_such_pile"


def test_a_play_of_an_unknown_card_code_is_refused_as_bad_action() -> None:
    pos = position(TABLE)
    with pytest.raises(IllegalAction) as error:
        apply(pos, Play("1H", "N"))
    assert error.value.code == "bad_action"


def test_a_seat_may_make_many_moves_in_one_turn() -> None:
    after = play(position(TABLE), "8H>N", "KD>SE", "QC>SE", "E>S")
    assert pile(after, "N") == ("9C", "8H")
    assert pile(after, "SE") == ("KD", "QC")
    assert pile(after, "S") == ("9D", "8C", "7H")
    assert after.turn == 0
    assert after.hands[0] == ("4S", "3H")


def test_a_card_on_the_table_is_never_taken_back() -> None:
    pos = play(position(TABLE), "8H>N")
    assert all(not (isinstance(a, Play) and a.card == "8H") for a in legal_actions(pos))


# --- moving piles -------------------------------------------------------------------


def test_a_whole_pile_moves_when_its_base_fits_on_the_destination_top() -> None:
    after = play(position(TABLE), "E>S")
    assert pile(after, "S") == ("9D", "8C", "7H")
    assert pile(after, "E") == ()
    assert after.moved


def test_a_pile_moves_by_its_base_not_its_top() -> None:
    # The top 7S would fit on 8D, but the base 8C does not, so E cannot go onto S.
    text = "N=9C E=8C,7S S=8D W=- NE=- SE=- SW=- NW=- ; hands 2C / 3C ; turn 0 ; dealer 1"
    assert "E>S" not in texts(legal_actions(position(text)))
    assert refused(text, "E>S") == "does_not_fit"


def test_a_pile_never_splits() -> None:
    pos = position(TABLE)
    for action in legal_actions(pos):
        if isinstance(action, Move):
            after = apply(pos, action)
            assert pile(after, action.dst) == pile(pos, action.dst) + pile(pos, action.src)
            assert pile(after, action.src) == ()


def test_a_king_side_pile_moves_whole_into_an_empty_corner() -> None:
    after = play(position(TABLE), "W>NW")
    assert pile(after, "NW") == ("KS", "QD")
    assert pile(after, "W") == ()


def test_the_side_space_freed_by_a_king_pile_takes_any_card() -> None:
    after = play(position(TABLE), "W>SW", "3H>W")
    assert pile(after, "W") == ("3H",)


def test_a_pile_never_moves_onto_an_empty_side_space() -> None:
    empty_n = TABLE.replace("N=9C", "N=-")
    assert refused(empty_n, "E>N") == "cannot_move_pile"
    assert refused(empty_n, "W>N") == "cannot_move_pile"
    assert not any(isinstance(a, Move) and a.dst == "N" for a in legal_actions(position(empty_n)))


def test_a_non_king_pile_never_moves_into_an_empty_corner() -> None:
    assert refused(TABLE, "E>SE") == "corner_needs_king"


def test_a_corner_pile_never_moves_onto_another_empty_corner() -> None:
    assert refused(TABLE, "NE>SE") == "cannot_move_pile"


def test_king_pile_never_moves_onto_queen() -> None:
    queen = "N=QC E=- S=- W=KH NE=KD SE=- SW=- NW=- ; hands 2C / 3C ; turn 0 ; dealer 1"
    assert refused(queen, "W>N") == "does_not_fit"
    assert refused(queen, "NE>N") == "does_not_fit"


def test_a_corner_pile_never_moves_at_all() -> None:
    corners = "N=QC E=JD S=5H W=KH NE=KD SE=KS,QH SW=- NW=- ; hands 2C / 3C ; turn 0 ; dealer 1"
    moves = [a for a in legal_actions(position(corners)) if isinstance(a, Move)]
    assert moves
    assert not any(m.src in CORNERS for m in moves)


def test_a_pile_moves_onto_a_corner_whose_top_its_base_fits() -> None:
    text = "N=JC,10H E=- S=- W=- NE=KS,QH SE=- SW=- NW=- ; hands 2C / 3C ; turn 0 ; dealer 1"
    after = play(position(text), "N>NE")
    assert pile(after, "NE") == ("KS", "QH", "JC", "10H")


def test_a_pile_cannot_move_onto_itself() -> None:
    assert refused(TABLE, "E>E") == "cannot_move_pile"


def test_an_empty_pile_cannot_move() -> None:
    assert refused(TABLE, "SE>N") == "cannot_move_pile"


def test_a_move_to_or_from_an_unknown_pile_is_refused_as_no_such_pile() -> None:
    assert refused(TABLE, "E>Q") == "no_such_pile"
    pos = position(TABLE)
    with pytest.raises(IllegalAction) as error:
        apply(pos, Move("X", "N"))
    assert error.value.code == "no_such_pile"


# --- the worked example of seed 000 ---------------------------------------------------

EXAMPLE = "N=8C,7H E=9D S=8D W=5C NE=- SE=- SW=- NW=- ; hands 4S,3H,JC / QD,2C ; turn 0 ; dealer 1"


def test_worked_example_moves_8c_7h_onto_9d_then_fills_the_side_with_4s_and_3h() -> None:
    pos = position(EXAMPLE)
    after = play(pos, "N>E", "4S>N", "3H>N")
    assert pile(after, "E") == ("9D", "8C", "7H")
    assert pile(after, "N") == ("4S", "3H")
    assert after.hands[0] == ("JC",)
    assert after.result is None
    drawn = play(after, "end")
    assert drawn.hands[0] == ("JC", pos.stock[0])
    assert drawn.turn == 1


def test_worked_example_7h_alone_never_goes_onto_8d() -> None:
    pos = position(EXAMPLE)
    assert "N>S" not in texts(legal_actions(pos))
    assert refused(EXAMPLE, "N>S") == "does_not_fit"
    assert refused(EXAMPLE, "7H>S") == "not_in_hand"


def test_worked_example_with_3h_as_last_card_stops_without_drawing() -> None:
    last = EXAMPLE.replace("4S,3H,JC", "4S,3H")
    pos = position(last)
    after = play(pos, "N>E", "4S>N", "3H>N")
    assert after.result is not None
    assert after.result.reason == "emptied"
    assert after.result.out == 0
    assert after.stock == pos.stock
    assert after.hands[0] == ()


# --- the order of the legal actions -------------------------------------------------


def test_legal_actions_list_plays_then_moves_then_end() -> None:
    legal = legal_actions(position(TABLE))
    order = [0 if isinstance(a, Play) else 1 if isinstance(a, Move) else 2 for a in legal]
    assert order == sorted(order)
    assert set(order) == {0, 1, 2}
    assert isinstance(legal[-1], EndTurn)


def test_legal_actions_are_the_same_list_every_time() -> None:
    pos = position(TABLE)
    assert legal_actions(pos) == legal_actions(position(TABLE))
    assert legal_actions(pos) is legal_actions(pos)


def test_exact_legal_actions_of_a_small_position() -> None:
    text = "N=9C E=8C,7H S=- W=KS NE=- SE=- SW=- NW=- ; hands 8H,KD / 2C ; turn 0 ; dealer 1"
    assert texts(legal_actions(position(text))) == [
        "8H>N",
        "8H>S",
        "KD>S",
        "KD>NE",
        "KD>SE",
        "KD>SW",
        "KD>NW",
        "W>NE",
        "W>SE",
        "W>SW",
        "W>NW",
        "end",
    ]
