"""Cards: codes, colours, ranks, what fits on what, what a card left in hand costs."""

from __future__ import annotations

from protocol.engine import DECK, FITS_ON, fits, penalty
from protocol.engine.cards import CARDS, IS_RED, RANK, is_card


def test_the_deck_has_52_distinct_codes_rank_then_suit() -> None:
    assert len(DECK) == 52
    assert len(set(DECK)) == 52
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    assert set(DECK) == {rank + suit for rank in ranks for suit in "CDHS"}


def test_card_codes_are_ascii_with_ten_written_10() -> None:
    for code in ("AS", "2H", "10D", "JC", "QS", "KH"):
        assert is_card(code)
    for not_code in ("TD", "1D", "10", "D10", "10♦", "as", "KX", "", "KHS"):
        assert not is_card(not_code)
    assert not is_card(10)
    assert all(code.isascii() for code in DECK)


def test_ranks_run_from_ace_low_to_king_high() -> None:
    order = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS"]
    assert [RANK[c] for c in order] == list(range(1, 14))


def test_hearts_and_diamonds_are_red_clubs_and_spades_black() -> None:
    assert IS_RED["7H"] and IS_RED["7D"]
    assert not IS_RED["7C"] and not IS_RED["7S"]


def test_seven_of_hearts_fits_on_eight_of_clubs() -> None:
    assert fits("7H", "8C")
    assert fits("7H", "8S")


def test_a_card_never_fits_on_the_same_colour() -> None:
    assert not fits("7H", "8D")
    assert not fits("7C", "8S")


def test_a_card_fits_only_one_rank_lower() -> None:
    assert not fits("6H", "8C")
    assert not fits("8H", "8C")
    assert not fits("9H", "8C")
    assert not fits("8C", "7H")


def test_nothing_fits_on_an_ace() -> None:
    assert FITS_ON["AS"] == ()
    assert FITS_ON["AH"] == ()
    assert not any(fits(card, ace) for card in DECK for ace in ("AC", "AD", "AH", "AS"))


def test_a_king_fits_on_nothing() -> None:
    assert not any(fits(king, onto) for king in ("KC", "KD", "KH", "KS") for onto in DECK)


def test_exactly_two_cards_fit_on_anything_but_an_ace() -> None:
    for onto in DECK:
        expected = 0 if onto.startswith("A") else 2
        assert len(FITS_ON[onto]) == expected
        assert all(fits(card, onto) for card in FITS_ON[onto])
    assert set(FITS_ON["QD"]) == {"JC", "JS"}
    assert set(FITS_ON["2C"]) == {"AD", "AH"}


def test_a_king_left_in_hand_costs_ten_every_other_card_one() -> None:
    assert penalty("KS") == 10
    for card in CARDS - {"KC", "KD", "KH", "KS"}:
        assert penalty(card) == 1


def test_king_of_spades_queen_of_diamonds_two_of_clubs_cost_twelve() -> None:
    assert sum(penalty(c) for c in ("KS", "QD", "2C")) == 12
