"""The draw rule ``until_playable`` (RULES.md, Variants): clauses (a) to (d) and the details."""

from __future__ import annotations

import random

import pytest

from protocol.engine import (
    DRAW,
    END_TURN,
    Options,
    Play,
    apply,
    format_position,
    legal_actions,
    new_match,
    parse_position,
    replay,
)
from protocol.errors import CannotDraw, MustPlayCard, MustPlayKing

from .support import pile, play, position, texts

UNTIL = "until_playable"
#: Every side full: 8D fits on 9C; 2C, 3D, AS and 2S fit nowhere; the king pile S may go to
#: a corner (a move, which never counts as a play).
FULL = "N=9C E=5D S=KS W=QS NE=- SE=- SW=- NW=-"


# --- (a) no draw at the end; ending needs a card played, or an empty stock ----------------


def test_a_turn_cannot_end_before_a_card_of_the_hand_is_played() -> None:
    pos = position(f"{FULL} ; hands 8D,2C / 4D ; stock 7S,6H ; turn 0 ; dealer 1", draw=UNTIL)
    legal = texts(legal_actions(pos))
    assert "end" not in legal and "draw" not in legal
    with pytest.raises(MustPlayCard) as error:
        apply(pos, END_TURN)
    assert error.value.code == "must_play_card"
    played = play(pos, "8D>N")
    assert played.played
    assert texts(legal_actions(played))[-1] == "end"


def test_ending_the_turn_draws_nothing() -> None:
    pos = position(f"{FULL} ; hands 8D,2C / 4D ; stock 7S,6H ; turn 0 ; dealer 1", draw=UNTIL)
    after = play(pos, "8D>N", "end")
    assert after.turn == 1
    assert after.hands == (("2C",), ("4D",))
    assert after.stock == ("7S", "6H")
    assert not after.played and not after.moved


def test_a_pile_move_does_not_count_as_playing_a_card() -> None:
    pos = position(f"{FULL} ; hands 8D,2C / 4D ; stock 7S ; turn 0 ; dealer 1", draw=UNTIL)
    moved = play(pos, "S>NE")
    assert moved.moved and not moved.played
    assert "end" not in texts(legal_actions(moved))


def test_on_an_empty_stock_the_turn_may_end_without_a_play() -> None:
    pos = position(f"{FULL} ; hands 8D,2C / 4D ; stock - ; turn 0 ; dealer 1", draw=UNTIL)
    legal = texts(legal_actions(pos))
    assert legal[-1] == "end" and "draw" not in legal
    assert play(pos, "end").turn == 1


def test_nobody_draws_as_the_hand_is_dealt() -> None:
    match = new_match(Options(seats=2, draw=UNTIL), seed="until")
    assert [len(h) for h in match.position.hands] == [7, 7]
    assert len(match.position.stock) == 34


# --- (b) drawing while nothing can be played -------------------------------------------


def test_a_seat_with_no_playable_card_draws_until_one_can_be_played() -> None:
    pos = position(f"{FULL} ; hands 2C,3D / 4D ; stock AS,2S,8D,7S ; turn 0 ; dealer 1", draw=UNTIL)
    assert texts(legal_actions(pos)) == ["S>NE", "S>SE", "S>SW", "S>NW", "draw"]
    for drawn, card in enumerate(("AS", "2S"), start=1):
        pos = apply(pos, DRAW)
        assert pos.hands[0][-1] == card
        assert len(pos.stock) == 4 - drawn
        assert texts(legal_actions(pos))[-1] == "draw"
    pos = apply(pos, DRAW)
    assert pos.hands[0] == ("2C", "3D", "AS", "2S", "8D")
    assert pos.stock == ("7S",)
    assert (pos.turn, pos.moved, pos.played) == (0, False, False)
    legal = texts(legal_actions(pos))
    assert legal[0] == "8D>N"
    assert "draw" not in legal and "end" not in legal


def test_a_draw_is_refused_with_its_reason() -> None:
    playable = position(f"{FULL} ; hands 8D,2C / 4D ; stock 7S ; turn 0 ; dealer 1", draw=UNTIL)
    with pytest.raises(CannotDraw) as error:
        apply(playable, DRAW)
    assert error.value.code == "cannot_draw"
    assert error.value.params == {"reason": "playable", "card": "8D", "pile": "N"}
    empty = position(f"{FULL} ; hands 2C / 4D ; stock - ; turn 0 ; dealer 1", draw=UNTIL)
    with pytest.raises(CannotDraw) as error:
        apply(empty, DRAW)
    assert error.value.params == {"reason": "stock_empty"}
    for rule in ("end", "start"):
        other = position(f"{FULL} ; hands 2C / 4D ; stock 7S ; turn 0 ; dealer 1", draw=rule)
        assert "draw" not in texts(legal_actions(other))
        with pytest.raises(CannotDraw) as error:
            apply(other, DRAW)
        assert error.value.params == {"reason": "rule"}


def test_an_empty_side_space_makes_every_card_playable_so_no_draw() -> None:
    pos = position(
        "N=9C E=- S=KS W=QS NE=- SE=- SW=- NW=- ; hands 2C,3D / 4D ; stock 7S ; turn 0",
        draw=UNTIL,
    )
    legal = texts(legal_actions(pos))
    assert "2C>E" in legal and "3D>E" in legal
    assert "draw" not in legal and "end" not in legal


def test_a_king_with_an_empty_corner_is_playable_so_no_draw() -> None:
    pos = position(f"{FULL} ; hands KH,2C / 4D ; stock 7S ; turn 0 ; dealer 1", draw=UNTIL)
    legal = texts(legal_actions(pos))
    assert "KH>NE" in legal
    assert "draw" not in legal


def test_a_seat_stuck_again_after_a_play_may_draw_again_or_end() -> None:
    pos = position(f"{FULL} ; hands 8D,2C,3D / 4D ; stock AS,7C ; turn 0 ; dealer 1", draw=UNTIL)
    stuck = play(pos, "8D>N")
    assert texts(legal_actions(stuck))[-2:] == ["draw", "end"]
    drew = play(stuck, "draw")
    assert drew.hands[0] == ("2C", "3D", "AS")
    assert texts(legal_actions(drew))[-2:] == ["draw", "end"]
    drew = play(drew, "draw")  # 7C fits on the 8D just played
    legal = texts(legal_actions(drew))
    assert "7C>N" in legal and "draw" not in legal and legal[-1] == "end"


def test_drawing_the_stocks_last_card_lets_a_stuck_seat_end() -> None:
    pos = position(f"{FULL} ; hands 2C / 4D ; stock AS ; turn 0 ; dealer 1", draw=UNTIL)
    drew = apply(pos, DRAW)
    assert drew.stock == ()
    legal = texts(legal_actions(drew))
    assert legal[-1] == "end" and "draw" not in legal


# --- (c) the last card ------------------------------------------------------------------

ONE_SIDE_FREE = "N=9C E=- S=KS W=QS NE=- SE=- SW=- NW=-"


def test_a_last_card_beside_an_empty_side_space_draws_three_and_the_turn_goes_on() -> None:
    pos = position(f"{ONE_SIDE_FREE} ; hands 8D / 4D ; stock 7S,6H,5C,4C ; turn 0", draw=UNTIL)
    after = apply(pos, Play("8D", "N"))
    assert after.result is None
    assert after.hands[0] == ("7S", "6H", "5C")  # top first
    assert after.stock == ("4C",)
    assert (after.turn, after.played) == (0, True)
    legal = texts(legal_actions(after))
    assert "7S>N" in legal and legal[-1] == "end"


def test_the_refill_takes_what_is_left_of_the_stock() -> None:
    pos = position(f"{ONE_SIDE_FREE} ; hands 8D / 4D ; stock 7S,6H ; turn 0", draw=UNTIL)
    after = apply(pos, Play("8D", "N"))
    assert after.result is None
    assert after.hands[0] == ("7S", "6H")
    assert after.stock == ()
    assert texts(legal_actions(after))[-1] == "end"


def test_a_last_card_onto_the_only_empty_side_space_goes_out() -> None:
    pos = position(f"{ONE_SIDE_FREE} ; hands 8D / 4D ; stock 7S,6H,5C ; turn 0", draw=UNTIL)
    after = apply(pos, Play("8D", "E"))
    assert after.result is not None
    assert (after.result.reason, after.result.out) == ("emptied", 0)
    assert after.stock == ("7S", "6H", "5C")
    assert legal_actions(after) == []


@pytest.mark.parametrize(
    ("table", "stock"),
    [(FULL, "7S,6H,5C"), (ONE_SIDE_FREE, "-")],
    ids=["no-empty-side", "empty-stock"],
)
def test_a_last_card_goes_out_without_an_empty_side_space_or_without_stock(
    table: str, stock: str
) -> None:
    pos = position(f"{table} ; hands 8D / 4D ; stock {stock} ; turn 0", draw=UNTIL)
    after = apply(pos, Play("8D", "N"))
    assert after.result is not None
    assert after.result.out == 0
    assert after.result.penalties == (0, 1)


def test_a_refill_is_part_of_its_play_in_the_log_and_replays() -> None:
    rng = random.Random("refill")
    for n in range(200):
        match = new_match(Options(seats=2, draw=UNTIL, target=500), seed=f"refill-{n}")
        while match.position.result is None:
            pos = match.position
            action = rng.choice(legal_actions(pos))
            after = match.apply(action)
            grown = len(after.position.hands[pos.turn]) - len(pos.hands[pos.turn])
            if isinstance(action, Play) and grown > -1:
                assert grown == min(3, len(pos.stock)) - 1
                assert after.log[-1] == action.text()
                assert replay(after.record()) == after
                if len(pos.stock) > 3:
                    return
            match = after
    raise AssertionError("no refill of three cards in 200 random hands")


# --- (d) the blocked end -----------------------------------------------------------------


def test_the_hand_blocks_after_a_full_round_without_a_move_on_an_empty_stock() -> None:
    pos = position(f"{FULL} ; hands 2C,3D / 4D ; stock - ; turn 0 ; dealer 1", draw=UNTIL)
    pos = play(pos, "end")
    assert pos.passes == 1
    pos = play(pos, "end")
    assert pos.result is not None
    assert pos.result.reason == "blocked"
    assert pos.result.penalties == (2, 1)


def test_a_card_drawn_during_the_turn_does_not_spoil_a_pass() -> None:
    pos = position(f"{FULL} ; hands 2C,3D / 4D ; stock AS ; turn 0 ; dealer 1", draw=UNTIL)
    pos = play(pos, "draw", "end")
    assert pos.passes == 1 and pos.stock == ()
    pos = play(pos, "end")
    assert pos.result is not None
    assert pos.result.reason == "blocked"
    assert pos.result.penalties == (3, 1)


def test_a_turn_with_a_play_is_no_pass() -> None:
    pos = position(f"{FULL} ; hands 8D,2C / 4D ; stock - ; turn 0 ; passes 1", draw=UNTIL)
    assert play(pos, "8D>N", "end").passes == 0


# --- with kings first --------------------------------------------------------------------


def test_with_kings_first_both_conditions_for_ending_must_hold() -> None:
    text = "N=9C E=5D S=QD W=JS NE=- SE=- SW=- NW=- ; hands KH,8D,2C / 4D ; stock 7S ; turn 0"
    pos = position(text, draw=UNTIL, kings_first=True)
    with pytest.raises(MustPlayKing):  # the king's rule is named first: its play frees both
        apply(pos, END_TURN)
    played = play(pos, "8D>N")
    assert "end" not in texts(legal_actions(played))
    with pytest.raises(MustPlayKing):
        apply(played, END_TURN)
    assert texts(legal_actions(play(played, "KH>NE")))[-1] == "end"
    king_only = play(pos, "KH>NE")
    assert king_only.played and texts(legal_actions(king_only))[-1] == "end"


# --- the option and the notation ------------------------------------------------------------


def test_the_option_is_accepted_and_round_trips() -> None:
    options = Options(seats=3, draw=UNTIL, kings_first=True)
    assert Options.from_dict(options.to_dict()) == options
    assert options.to_dict()["draw"] == UNTIL


def test_the_notation_keeps_whether_a_card_was_played() -> None:
    pos = position(f"{FULL} ; hands 8D,2C / 4D ; stock 7S ; turn 0 ; dealer 1", draw=UNTIL)
    played = play(pos, "8D>N")
    text = format_position(played)
    assert "played 1" in text
    again = parse_position(text, played.options)
    assert again == played
    assert texts(legal_actions(again))[-1] == "end"
    assert "played" not in format_position(pos)
    assert pile(played, "N") == ("9C", "8D")
