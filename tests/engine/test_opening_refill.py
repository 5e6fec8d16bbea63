"""The ``opening_refill`` variant (RULES.md, Variants): clauses (a) to (e), the effects the
table log reads, views, notation and replay."""

from __future__ import annotations

import pytest

from protocol.engine import (
    END_TURN,
    Move,
    Options,
    apply,
    effects,
    format_position,
    legal_actions,
    new_match,
    parse_position,
    public_view,
    replay,
    seat_view,
)
from protocol.errors import MustPlayKing

from .support import cards_in, pile, play, play_match, position, stacked_deck, texts

REFILL = {"opening_refill": True}
#: 8C fits on 9D (N onto E); S is a king pile that may go to a corner; W takes nothing.
TABLE = "N=8C E=9D S=KS W=2C NE=- SE=- SW=- NW=-"
FIRST = f"{TABLE} ; hands 4D,QH / 3C ; stock 5D,6C,JH ; turn 0 ; dealer 1 ; opening 1"


# --- (a) a move that empties a side space refills it from the top of the stock ------------


def test_a_side_pile_moved_onto_another_pile_is_replaced_by_the_top_of_the_stock() -> None:
    pos = position(FIRST, **REFILL)
    after = play(pos, "N>E")
    assert pile(after, "E") == ("9D", "8C")
    assert pile(after, "N") == ("5D",)
    assert after.stock == ("6C", "JH")


def test_a_king_pile_moved_into_a_corner_is_replaced_by_the_top_of_the_stock() -> None:
    after = play(position(FIRST, **REFILL), "S>NE")
    assert pile(after, "NE") == ("KS",)
    assert pile(after, "S") == ("5D",)
    assert after.stock == ("6C", "JH")


def test_with_the_stock_empty_the_side_space_stays_empty() -> None:
    pos = position(FIRST.replace("stock 5D,6C,JH", "stock -"), **REFILL)
    after = play(pos, "N>E")
    assert pile(after, "N") == ()
    assert after.stock == ()


def test_without_the_variant_the_side_space_stays_empty() -> None:
    pos = position(FIRST, opening_refill=False)
    assert pile(play(pos, "N>E"), "N") == ()


# --- (b) one action, the refilled card public ----------------------------------------------


def test_the_refill_is_part_of_the_move_and_the_effects_name_the_card() -> None:
    match = new_match(Options(seats=2, **REFILL), decks=[opening_deck()], dealer=1)
    before = match.position
    after = match.apply(Move("N", "E"))
    assert after.log == ("N>E",)
    assert effects(before, Move("N", "E"), after.position).refill == "5D"
    assert public_view(after)["piles"]["N"] == ["5D"]


def test_a_move_without_a_refill_has_no_effects() -> None:
    pos = position(FIRST, **REFILL)
    moved = play(pos, "QH>S")
    assert effects(moved, Move("N", "E"), play(moved, "N>E")).refill is None


# --- (c) the first card played from the hand closes the window; a draw does not ------------


def test_playing_a_card_from_the_hand_closes_the_window() -> None:
    pos = position(FIRST, **REFILL)
    assert pos.refill_open
    played = play(pos, "QH>S")
    assert not played.refill_open
    after = play(played, "N>E")
    assert pile(after, "N") == ()
    assert after.stock == ("5D", "6C", "JH")


def test_every_later_turn_is_standard() -> None:
    pos = position(FIRST, **REFILL)
    second = play(pos, "end")
    assert not second.opening and not second.refill_open
    back = play(second, "end")
    assert not back.refill_open
    after = play(back, "N>E")
    assert pile(after, "N") == ()


@pytest.mark.parametrize("draw", ["end", "start", "until_playable"])
def test_the_window_is_the_first_turn_of_every_hand(draw: str) -> None:
    match = new_match(Options(seats=2, draw=draw, target=500, **REFILL), seed="refill")
    assert match.position.refill_open
    while match.phase == "playing":
        legal = legal_actions(match.position)
        match = match.apply(END_TURN if END_TURN in legal else legal[0])
        if "end" in match.log:
            assert not match.position.opening and not match.position.refill_open
    match = match.next_hand()
    assert match.position.opening and match.position.refill_open


def test_a_draw_on_request_does_not_close_the_window() -> None:
    # until_playable: 4D fits nowhere and no side is empty, so the seat may draw.
    table = "N=8C E=9D S=KS W=QH NE=- SE=- SW=- NW=-"
    text = f"{table} ; hands 4D / 3C ; stock 5D,6C,JH ; turn 0 ; dealer 1 ; opening 1"
    pos = position(text, draw="until_playable", **REFILL)
    assert "draw" in texts(legal_actions(pos))
    drawn = play(pos, "draw")
    assert drawn.hands[0] == ("4D", "5D") and drawn.refill_open
    after = play(drawn, "N>E")
    assert pile(after, "N") == ("6C",)


def test_with_draw_start_the_refill_takes_the_card_after_the_start_draw() -> None:
    match = new_match(Options(seats=2, draw="start", **REFILL), decks=[opening_deck()], dealer=1)
    assert match.position.hands[0][-1] == "5D"
    after = match.apply(Move("N", "E")).position
    assert pile(after, "N") == ("6C",)


def test_until_playable_three_cards_after_the_last_card_close_the_window() -> None:
    table = "N=8C E=9D S=KS W=- NE=- SE=- SW=- NW=-"
    text = f"{table} ; hands 4D / 3C ; stock 5D,6C,JH,7S ; turn 0 ; dealer 1 ; opening 1"
    pos = position(text, draw="until_playable", **REFILL)
    # 4D onto W would go out with no side empty... S>NE first empties S: it refills (5D).
    after = play(pos, "S>NE")
    assert pile(after, "S") == ("5D",)
    out = play(after, "4D>W")
    assert out.result is not None and out.result.out == 0


# --- (d) only the emptied side space refills; a refilled pile may move and refill again ----


def test_the_destination_never_refills_and_only_the_emptied_side_does() -> None:
    after = play(position(FIRST, **REFILL), "N>E")
    assert [pile(after, name) for name in ("E", "S", "W")] == [("9D", "8C"), ("KS",), ("2C",)]
    assert after.piles[4:] == ((), (), (), ())


def test_a_refilled_pile_may_move_again_and_refills_again() -> None:
    text = f"{TABLE} ; hands 4D,QH / 3C ; stock 7D,6S,JH ; turn 0 ; dealer 1 ; opening 1"
    pos = position(text, **REFILL)
    once = play(pos, "N>E")
    assert pile(once, "N") == ("7D",)
    twice = play(once, "N>E")
    assert pile(twice, "E") == ("9D", "8C", "7D")
    assert pile(twice, "N") == ("6S",)
    thrice = play(twice, "N>E")
    assert pile(thrice, "N") == ("JH",) and thrice.stock == ()
    last = play(thrice, "S>NE")
    assert pile(last, "S") == () and pile(last, "NE") == ("KS",)


def test_a_side_pile_moved_onto_a_corner_pile_refills_too() -> None:
    table = "N=QH E=9D S=4S W=2C NE=KS SE=- SW=- NW=-"
    text = f"{table} ; hands 4D / 3C ; stock 5D ; turn 0 ; dealer 1 ; opening 1"
    after = play(position(text, **REFILL), "N>NE")
    assert pile(after, "NE") == ("KS", "QH") and pile(after, "N") == ("5D",)


# --- (e) combinations --------------------------------------------------------------------


def test_with_kings_first_the_king_still_holds_the_turn_and_the_window_stays() -> None:
    text = f"{TABLE} ; hands 4D,KH / 3C ; stock 5D,6C,JH ; turn 0 ; dealer 1 ; opening 1"
    pos = position(text, kings_first=True, **REFILL)
    with pytest.raises(MustPlayKing):
        apply(pos, END_TURN)
    moved = play(pos, "S>NE")
    assert pile(moved, "S") == ("5D",)
    placed = play(moved, "KH>SE")
    assert not placed.refill_open and "end" in texts(legal_actions(placed))


@pytest.mark.parametrize("draw", ["end", "start", "until_playable"])
@pytest.mark.parametrize("kings_first", [False, True])
def test_the_refill_combines_with_every_draw_rule(draw: str, kings_first: bool) -> None:
    options = Options(seats=2, draw=draw, kings_first=kings_first, **REFILL)
    match = new_match(options, decks=[opening_deck()], dealer=1)
    start = len(match.position.stock)
    after = match.apply(Move("N", "E"))
    assert len(after.position.stock) == start - 1
    assert pile(after.position, "N") == (("6C",) if draw == "start" else ("5D",))
    assert replay(after.record()).position == after.position


# --- views, notation, replay ---------------------------------------------------------------


def test_views_say_whether_the_window_is_open_and_never_show_the_stock() -> None:
    match = new_match(Options(seats=2, **REFILL), decks=[opening_deck()], dealer=1)
    stock = set(match.position.stock)
    assert public_view(match)["refill_open"] is True
    after = match.apply(Move("N", "E"))
    for seat in (None, 0, 1):
        seen = public_view(after) if seat is None else seat_view(after, seat)
        shown = cards_in(seen)
        assert shown & stock == {"5D"}  # the refilled card, public from now on
        assert not shown & set(after.position.stock)
    assert public_view(play_match(after, "QH>S"))["refill_open"] is False
    plain = new_match(Options(seats=2), decks=[opening_deck()], dealer=1)
    assert "refill_open" not in public_view(plain)


def test_the_notation_keeps_the_opening_turn() -> None:
    pos = position(FIRST, **REFILL)
    text = format_position(pos)
    assert "opening 1" in text
    assert parse_position(text, pos.options) == pos


def test_a_recorded_match_replays_with_its_refills() -> None:
    match = new_match(Options(seats=2, **REFILL), decks=[opening_deck()], dealer=1)
    match = play_match(match, "N>E", "S>NE", "QH>NE", "end")
    record = match.record()
    assert record["options"]["opening_refill"] is True
    assert replay(record) == match
    assert "opening_refill" not in new_match(Options(seats=2)).record()["options"]


def opening_deck() -> list[str]:
    """Seat 0 (first to move, dealer 1) holds 4D, which fits nowhere; the table is
    :data:`TABLE`'s, the stock starts 5D, 6C, JH."""
    return stacked_deck(
        ["4D QH 3S 10H 10S JS 2H", "3C 7C 9C JC QC 4H 6H"],
        "8C 9D KS 2C",
        dealer=1,
        stock="5D 6C JH",
    )
