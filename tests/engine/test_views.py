"""Views: a seat sees its own hand, a spectator no hand, nobody the stock order."""

from __future__ import annotations

import json

from protocol.engine import END_TURN, Match, Options, new_match, public_view, seat_view, view

from .support import cards_in, play_match, stacked_deck

CHAIN = "9H 8S 7H 6S 5H 4S 3H"
OTHER = "KS QD 2C 3C 4C 5C 6C"
SIDES = "10C AD AC AH"
DECK = stacked_deck([OTHER, CHAIN], SIDES, dealer=0, stock="JD QS")


def start(target: int = 30) -> Match:
    return new_match(Options(seats=2, target=target), decks=[DECK], dealer=0)


def test_a_seat_view_shows_its_own_hand_and_nobody_elses() -> None:
    match = start()
    mine = seat_view(match, 0)
    assert mine["you"] == 0
    assert mine["hand"] == OTHER.split()
    assert cards_in(mine).isdisjoint(CHAIN.split())
    theirs = seat_view(match, 1)
    assert theirs["hand"] == CHAIN.split()
    assert cards_in(theirs).isdisjoint(OTHER.split())


def test_a_spectator_view_holds_no_hand_at_all() -> None:
    match = start()
    public = view(match, None)
    assert public == public_view(match)
    assert "hand" not in public
    assert "you" not in public
    assert cards_in(public) == set(SIDES.split())


def test_the_stock_shows_only_its_size() -> None:
    match = start()
    for viewer in (None, 0, 1):
        shown = view(match, viewer)
        assert shown["stock"] == 34
        assert cards_in(shown).isdisjoint(match.position.stock)


def test_views_show_how_many_cards_each_seat_holds() -> None:
    match = start()
    match = match.apply(END_TURN)
    assert view(match, None)["counts"] == [7, 8]


def test_views_show_the_public_state_of_the_hand() -> None:
    match = start()
    shown = view(match, 0)
    assert shown["phase"] == "playing"
    assert shown["hand_no"] == 1
    assert shown["seats"] == 2
    assert shown["dealer"] == 0
    assert shown["turn"] == 1
    assert shown["moved"] is False
    assert shown["piles"] == {
        "N": ["10C"],
        "E": ["AD"],
        "S": ["AC"],
        "W": ["AH"],
        "NE": [],
        "SE": [],
        "SW": [],
        "NW": [],
    }
    assert shown["target"] == 30
    assert shown["totals"] == [0, 0]
    assert shown["scores"] == []
    assert shown["result"] is None
    assert shown["winners"] is None


def test_only_the_seat_to_move_sees_its_legal_actions() -> None:
    match = start()
    assert view(match, 1)["legal"] == ["9H>N", "end"]
    assert view(match, 0)["legal"] == []
    assert "legal" not in view(match, None)


def test_the_hands_left_become_public_once_the_hand_is_over() -> None:
    match = start()
    match = play_match(match, *(f"{c}>N" for c in CHAIN.split()))
    public = view(match, None)
    assert public["phase"] == "hand_over"
    assert public["result"] == {
        "reason": "emptied",
        "out": 1,
        "penalties": [16, 0],
        "left": [OTHER.split(), []],
    }
    assert public["scores"] == [[16, 0]]
    assert public["totals"] == [16, 0]
    assert set(OTHER.split()) <= cards_in(view(match, 1))
    assert cards_in(public).isdisjoint(match.position.stock)


def test_the_winners_appear_once_the_match_is_finished() -> None:
    match = start(target=16)
    match = play_match(match, *(f"{c}>N" for c in CHAIN.split()))
    public = view(match, None)
    assert public["phase"] == "finished"
    assert public["winners"] == [1]


def test_views_are_plain_json() -> None:
    match = start()
    for viewer in (None, 0, 1):
        shown = view(match, viewer)
        assert json.loads(json.dumps(shown)) == shown
