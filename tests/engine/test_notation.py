"""The one-line position notation: it states positions as text and round-trips."""

from __future__ import annotations

import pytest

from protocol.engine import DECK, Options, format_position, new_match, parse_position

from .support import pile, play

EXAMPLE = (
    "N=8C,7H E=9D S=- W=KS NE=- SE=- SW=- NW=- ; hands 4S,3H / QD,2C ; stock * ; turn 0 ; dealer 1"
)


def test_the_documented_example_parses() -> None:
    pos = parse_position(EXAMPLE)
    assert pile(pos, "N") == ("8C", "7H")
    assert pile(pos, "E") == ("9D",)
    assert pile(pos, "S") == ()
    assert pile(pos, "W") == ("KS",)
    assert pos.hands == (("4S", "3H"), ("QD", "2C"))
    assert pos.turn == 0
    assert pos.dealer == 1
    assert pos.options.seats == 2
    assert not pos.moved
    assert pos.passes == 0
    assert pos.result is None


def test_a_star_stock_holds_every_card_not_named_in_canonical_order() -> None:
    pos = parse_position(EXAMPLE)
    named = {"8C", "7H", "9D", "KS", "4S", "3H", "QD", "2C"}
    assert pos.stock == tuple(c for c in DECK if c not in named)
    assert len(pos.all_cards()) == 52


def test_a_listed_stock_starts_at_its_top() -> None:
    pos = parse_position(EXAMPLE.replace("stock *", "stock JD,AS"))
    assert pos.stock == ("JD", "AS")


def test_an_empty_stock_or_hand_is_written_as_a_dash() -> None:
    pos = parse_position(EXAMPLE.replace("stock *", "stock -").replace("QD,2C", "-"))
    assert pos.stock == ()
    assert pos.hands[1] == ()
    assert "stock -" in format_position(pos)


def test_piles_are_written_base_first() -> None:
    pos = play(parse_position(EXAMPLE), "N>E")
    assert format_position(pos).startswith("N=- E=9D,8C,7H S=- W=KS ")


def test_moved_and_passes_appear_only_when_set() -> None:
    pos = parse_position(EXAMPLE)
    assert "moved" not in format_position(pos)
    assert "passes" not in format_position(pos)
    moved = parse_position(EXAMPLE + " ; moved 1 ; passes 1")
    assert moved.moved
    assert moved.passes == 1
    assert format_position(moved).endswith(" ; moved 1 ; passes 1")


def test_format_then_parse_gives_the_same_position() -> None:
    for seats in (2, 3, 4):
        for draw in ("end", "start"):
            options = Options(seats=seats, draw=draw, kings_first=draw == "start")
            match = new_match(options, seed=f"notation-{seats}-{draw}")
            pos = match.position
            assert parse_position(format_position(pos), options) == pos


def test_parse_then_format_gives_the_same_text() -> None:
    text = format_position(parse_position(EXAMPLE))
    assert format_position(parse_position(text)) == text


def test_the_number_of_hands_sets_the_number_of_seats() -> None:
    three = EXAMPLE.replace("hands 4S,3H / QD,2C", "hands 4S / 3H / QD,2C")
    pos = parse_position(three, Options(seats=4, target=40))
    assert pos.options == Options(seats=3, target=40)


@pytest.mark.parametrize(
    "text",
    [
        EXAMPLE.replace("N=8C,7H", "N=8C,8C"),
        EXAMPLE.replace("hands 4S,3H", "hands 4S,9D"),
        EXAMPLE.replace("N=8C,7H", "N=8X"),
        EXAMPLE.replace("N=8C,7H", "Q=8C"),
        EXAMPLE.replace("stock *", "stock 2C"),
    ],
    ids=["card twice in a pile", "card in hand and pile", "bad code", "bad pile", "stock twice"],
)
def test_text_that_is_no_position_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_position(text)
