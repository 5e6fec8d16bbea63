"""The match: penalties add up, the dealer passes left, the lowest total at the target wins."""

from __future__ import annotations

import json

import pytest

from protocol.engine import END_TURN, Options, legal_actions, new_match, replay
from protocol.errors import HandInProgress, HandOver, MatchOver

from .support import play_match, stacked_deck

#: The first mover plays these onto N (10C) one after another and goes out.
CHAIN = "9H 8S 7H 6S 5H 4S 3H"
GO_OUT = tuple(f"{card}>N" for card in CHAIN.split())
SIDES = "10C AD AC AH"
SEVEN = "2C 3C 4C 5C 6C 7C 8C"  # costs 7
SIXTEEN = "KS 2D 3D 4D 5D 6D 7D"  # costs 16
ALSO_SEVEN = "8D 9D 10D JD QD 9C JC"  # costs 7
ALSO_SIXTEEN = "KD 2S 3S 10S JS QS 2H"  # costs 16


def out_first(seats: int, dealer: int, others: list[str]) -> list[str]:
    """A deck where the seat left of the dealer can go out at once; ``others`` hold the rest."""
    first = (dealer + 1) % seats
    rest = iter(others)
    hands = [CHAIN if seat == first else next(rest) for seat in range(seats)]
    return stacked_deck(hands, SIDES, dealer=dealer)


def test_a_seat_can_go_out_on_the_first_turn_and_the_hand_ends_there() -> None:
    match = new_match(Options(seats=2), decks=[out_first(2, 0, [SIXTEEN])], dealer=0)
    match = play_match(match, *GO_OUT)
    result = match.position.result
    assert result is not None
    assert result.reason == "emptied"
    assert result.out == 1
    assert result.penalties == (16, 0)
    assert match.phase == "hand_over"


def test_penalties_add_up_over_the_hands_of_a_match() -> None:
    decks = [out_first(3, 0, [SEVEN, SIXTEEN]), out_first(3, 1, [SEVEN, ALSO_SEVEN])]
    match = new_match(Options(seats=3, target=100), decks=decks, dealer=0)
    match = play_match(match, *GO_OUT)
    assert match.totals == (7, 0, 16)
    match = play_match(match.next_hand(), *GO_OUT)
    assert match.totals == (14, 7, 16)
    assert [r.penalties for r in match.results] == [(7, 0, 16), (7, 7, 0)]


def test_the_dealer_passes_to_the_left_after_each_hand() -> None:
    match = new_match(Options(seats=3, target=500), seed="rotate", dealer=1)
    dealers = []
    for _ in range(5):
        dealers.append(match.position.dealer)
        assert match.position.turn == (match.position.dealer + 1) % 3
        while match.phase == "playing":
            match = match.apply(END_TURN)
        match = match.next_hand()
    assert dealers == [1, 2, 0, 1, 2]


def test_each_hand_of_a_seeded_match_gets_a_fresh_shuffle() -> None:
    match = new_match(Options(seats=2, target=500), seed="fresh", dealer=0)
    first = match.position
    while match.phase == "playing":
        match = match.apply(END_TURN)
    second = match.next_hand().position
    assert first.hands != second.hands
    assert match.next_hand() == match.next_hand()


def test_the_match_goes_on_while_every_total_is_below_the_target() -> None:
    match = new_match(Options(seats=2, target=17), decks=[out_first(2, 0, [SIXTEEN])], dealer=0)
    match = play_match(match, *GO_OUT)
    assert match.totals == (16, 0)
    assert match.phase == "hand_over"
    assert match.winners == ()


def test_the_match_ends_when_a_total_reaches_the_target_exactly() -> None:
    match = new_match(Options(seats=2, target=16), decks=[out_first(2, 0, [SIXTEEN])], dealer=0)
    match = play_match(match, *GO_OUT)
    assert match.phase == "finished"


def test_the_lowest_total_wins() -> None:
    decks = [
        out_first(2, 0, [SIXTEEN]),
        out_first(2, 1, [ALSO_SIXTEEN]),
        out_first(2, 0, [SEVEN]),
    ]
    match = new_match(Options(seats=2, target=25), decks=decks, dealer=0)
    match = play_match(match, *GO_OUT)
    match = play_match(match.next_hand(), *GO_OUT)
    assert match.totals == (16, 16)
    assert match.phase == "hand_over"
    match = play_match(match.next_hand(), *GO_OUT)
    assert match.totals == (23, 16)
    assert match.phase == "hand_over"
    fourth = out_first(2, 1, [SIXTEEN])
    match = new_match(Options(seats=2, target=25), decks=[*decks, fourth], dealer=0)
    for _ in range(4):
        match = play_match(match, *GO_OUT)
        if match.phase == "hand_over":
            match = match.next_hand()
    assert match.totals == (23, 32)
    assert match.phase == "finished"
    assert match.winners == (0,)


def test_players_tied_for_the_lowest_total_share_the_win() -> None:
    decks = [out_first(3, 0, [SIXTEEN, SEVEN]), out_first(3, 1, [ALSO_SIXTEEN, ALSO_SEVEN])]
    match = new_match(Options(seats=3, target=25), decks=decks, dealer=0)
    match = play_match(match, *GO_OUT)
    assert match.totals == (16, 0, 7)
    match = play_match(match.next_hand(), *GO_OUT)
    assert match.totals == (32, 7, 7)
    assert match.phase == "finished"
    assert match.winners == (1, 2)


def test_the_next_hand_cannot_be_dealt_while_a_hand_is_in_progress() -> None:
    match = new_match(Options(seats=2), seed="busy")
    with pytest.raises(HandInProgress) as error:
        match.next_hand()
    assert error.value.code == "hand_in_progress"


def test_nothing_more_happens_once_the_match_is_over() -> None:
    match = new_match(Options(seats=2, target=1), decks=[out_first(2, 0, [SEVEN])], dealer=0)
    match = play_match(match, *GO_OUT)
    assert match.phase == "finished"
    with pytest.raises(MatchOver) as over:
        match.next_hand()
    assert over.value.code == "match_over"
    with pytest.raises(HandOver) as hand_over:
        match.apply(END_TURN)
    assert hand_over.value.code == "hand_over"


def test_no_action_is_taken_between_hands() -> None:
    match = new_match(Options(seats=2), decks=[out_first(2, 0, [SEVEN])], dealer=0)
    match = play_match(match, *GO_OUT)
    assert match.phase == "hand_over"
    with pytest.raises(HandOver):
        match.apply(END_TURN)


def test_a_match_starts_at_zero_with_no_results() -> None:
    match = new_match(Options(seats=4), seed="zero")
    assert match.totals == (0, 0, 0, 0)
    assert match.results == ()
    assert match.hand_index == 0
    assert match.phase == "playing"
    assert match.winners == ()


def test_a_record_replays_to_the_same_match() -> None:
    decks = [out_first(3, 0, [SIXTEEN, SEVEN])]
    match = new_match(Options(seats=3, target=30), decks=decks, dealer=0)
    match = play_match(match, *GO_OUT).next_hand()
    for _ in range(6):
        match = match.apply(END_TURN)
    record = json.loads(json.dumps(match.record()))
    again = replay(record)
    assert again == match
    assert again.totals == match.totals
    assert again.position == match.position
    assert record["log"][:8] == [*GO_OUT, "next"]


def test_a_seeded_match_replays_from_its_record() -> None:
    match = new_match(Options(seats=4, draw="start", kings_first=True), seed="replay-me")
    for _ in range(30):
        legal = legal_actions(match.position)
        match = match.apply(legal[len(legal) // 2])
    assert replay(match.record()) == match
