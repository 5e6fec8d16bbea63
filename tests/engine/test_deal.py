"""Shuffling and dealing: the order of RULES.md, seeds, stacked decks, the first mover."""

from __future__ import annotations

import pytest

from protocol.engine import DECK, END_TURN, Options, deal, new_match, shuffled_deck
from protocol.engine.deal import first_dealer
from protocol.errors import BadOptions

from .support import pile, stacked_deck


@pytest.mark.parametrize(("seats", "in_hands", "in_stock"), [(2, 14, 34), (3, 21, 27), (4, 28, 20)])
def test_seven_cards_each_four_on_the_table_the_rest_in_the_stock(
    seats: int, in_hands: int, in_stock: int
) -> None:
    pos = deal(DECK, Options(seats=seats), dealer=0)
    assert [len(h) for h in pos.hands] == [7] * seats
    assert sum(len(h) for h in pos.hands) == in_hands
    assert [len(p) for p in pos.piles] == [1, 1, 1, 1, 0, 0, 0, 0]
    assert len(pos.stock) == in_stock


@pytest.mark.parametrize(("seats", "dealer"), [(n, d) for n in (2, 3, 4) for d in range(n)])
def test_cards_are_dealt_one_at_a_time_clockwise_from_the_dealers_left(
    seats: int, dealer: int
) -> None:
    pos = deal(DECK, Options(seats=seats), dealer=dealer)
    for k in range(7 * seats):
        seat = (dealer + 1 + k) % seats
        assert pos.hands[seat][k // seats] == DECK[k]


def test_four_seats_dealer_0_gives_seat_1_the_top_card_and_every_fourth() -> None:
    pos = deal(DECK, Options(seats=4), dealer=0)
    assert pos.hands[1] == (DECK[0], DECK[4], DECK[8], DECK[12], DECK[16], DECK[20], DECK[24])
    assert pos.hands[2][0] == DECK[1]
    assert pos.hands[3][0] == DECK[2]
    assert pos.hands[0][0] == DECK[3]
    assert pos.hands[0][-1] == DECK[27]


def test_three_seats_dealer_2_deals_seat_0_first_then_1_then_2() -> None:
    pos = deal(DECK, Options(seats=3), dealer=2)
    assert pos.hands[0][:3] == (DECK[0], DECK[3], DECK[6])
    assert pos.hands[1][:3] == (DECK[1], DECK[4], DECK[7])
    assert pos.hands[2][:3] == (DECK[2], DECK[5], DECK[8])
    assert pos.hands[2][-1] == DECK[20]
    assert pile(pos, "N") == (DECK[21],)
    assert pos.stock[0] == DECK[25]


def test_the_next_four_cards_go_face_up_on_n_e_s_w_in_that_order() -> None:
    pos = deal(DECK, Options(seats=4), dealer=2)
    assert [pile(pos, name) for name in ("N", "E", "S", "W")] == [
        (DECK[28],),
        (DECK[29],),
        (DECK[30],),
        (DECK[31],),
    ]


def test_corners_start_empty() -> None:
    pos = deal(DECK, Options(seats=3), dealer=1)
    assert [pile(pos, name) for name in ("NE", "SE", "SW", "NW")] == [(), (), (), ()]


def test_the_rest_is_the_stock_in_deck_order_from_its_top() -> None:
    pos = deal(DECK, Options(seats=2), dealer=0)
    assert pos.stock == DECK[18:]
    assert pos.stock[0] == DECK[18]


def test_the_first_card_drawn_is_the_one_after_the_side_cards() -> None:
    match = new_match(Options(seats=2), decks=[DECK], dealer=0)
    first = match.position.turn
    after = match.apply(END_TURN).position
    assert after.hands[first][-1] == DECK[18]
    assert len(after.stock) == 33


@pytest.mark.parametrize(("seats", "dealer", "first"), [(2, 0, 1), (2, 1, 0), (3, 2, 0), (4, 1, 2)])
def test_the_seat_left_of_the_dealer_moves_first(seats: int, dealer: int, first: int) -> None:
    pos = deal(DECK, Options(seats=seats), dealer=dealer)
    assert pos.dealer == dealer
    assert pos.turn == first
    assert not pos.moved
    assert pos.passes == 0
    assert pos.result is None


def test_a_stacked_deck_is_dealt_exactly_with_index_0_on_top() -> None:
    deck = stacked_deck(
        ["KS QD 2C 5H 6H 7H 8H", "AS AH AD AC 2S 2H 2D"],
        "9C 9D 9H 9S",
        dealer=1,
        stock="KH",
    )
    match = new_match(Options(seats=2), decks=[deck], dealer=1)
    pos = match.position
    assert pos.hands == (
        ("KS", "QD", "2C", "5H", "6H", "7H", "8H"),
        ("AS", "AH", "AD", "AC", "2S", "2H", "2D"),
    )
    assert pos.piles[:4] == (("9C",), ("9D",), ("9H",), ("9S",))
    assert pos.stock[0] == "KH"
    assert pos.turn == 0
    assert deck[0] == "KS"


def test_the_same_stacked_deck_gives_the_same_deal_everywhere() -> None:
    deck = list(reversed(DECK))
    one = new_match(Options(seats=3), decks=[deck], dealer=2)
    two = new_match(Options(seats=3), decks=[tuple(deck)], dealer=2)
    assert one.position == two.position


def test_the_same_seed_always_gives_the_same_deals() -> None:
    one = new_match(Options(seats=4), seed="daily-2024-05-01")
    two = new_match(Options(seats=4), seed="daily-2024-05-01")
    assert one == two
    assert shuffled_deck("s", 3) == shuffled_deck("s", 3)


def test_different_seeds_and_hands_give_different_shuffles() -> None:
    assert shuffled_deck("a", 0) != shuffled_deck("b", 0)
    assert shuffled_deck("a", 0) != shuffled_deck("a", 1)
    assert new_match(seed="a").position != new_match(seed="b").position


def test_a_shuffle_is_a_permutation_of_the_deck() -> None:
    for hand in range(5):
        deck = shuffled_deck("perm", hand)
        assert sorted(deck) == sorted(DECK)


def test_an_integer_seed_is_the_same_as_its_text() -> None:
    assert new_match(seed=7).position == new_match(seed="7").position


def test_the_first_dealer_is_drawn_from_the_seed() -> None:
    assert new_match(Options(seats=4), seed="x").first_dealer == first_dealer("x", 4)
    dealers = {first_dealer(f"seed-{i}", 4) for i in range(60)}
    assert dealers == {0, 1, 2, 3}


def test_a_given_dealer_overrides_the_seed() -> None:
    for dealer in range(3):
        match = new_match(Options(seats=3), seed="x", dealer=dealer)
        assert match.first_dealer == dealer
        assert match.position.dealer == dealer
        assert match.position.turn == (dealer + 1) % 3


@pytest.mark.parametrize(
    "deck",
    [
        list(DECK[:51]),
        [*DECK[:51], "AC"],
        [*DECK[:51], "1C"],
        [*DECK, "AC"],
    ],
    ids=["51 cards", "duplicate", "unknown code", "53 cards"],
)
def test_a_stacked_deck_must_hold_each_card_once(deck: list[str]) -> None:
    with pytest.raises(BadOptions) as refused:
        new_match(Options(seats=2), decks=[deck], dealer=0)
    assert refused.value.code == "bad_options"


@pytest.mark.parametrize("dealer", [-1, 2, 4])
def test_the_dealer_must_be_a_seat(dealer: int) -> None:
    with pytest.raises(BadOptions):
        new_match(Options(seats=2), seed="x", dealer=dealer)
    with pytest.raises(BadOptions):
        deal(DECK, Options(seats=2), dealer=dealer)


def test_later_hands_take_the_next_stacked_deck() -> None:
    second = list(reversed(DECK))
    match = new_match(Options(seats=2, target=500), decks=[DECK, second], dealer=0)
    while match.phase == "playing":
        match = match.apply(END_TURN)
    match = match.next_hand()
    assert match.position == deal(second, Options(seats=2, target=500), dealer=1)
