"""Every refusal has its stable code, is the client's fault, and changes nothing."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from protocol import errors
from protocol.engine import (
    END_TURN,
    Match,
    Options,
    action_from_text,
    action_from_wire,
    explain,
    legal_actions,
    new_match,
)
from protocol.errors import ClientError, IllegalAction, KingsCornerError

from .support import cards, play_match, stacked_deck

# Seat 1 moves first, holding the chain below plus a king; N is 10C, the corners are empty.
HAND = "9H 8S 7H 6S 5H 4S KD"
OTHER = "2C 3C 4C 5C 6C 7C 8C"
DECK = stacked_deck([OTHER, HAND], "10C AD 3S AH", dealer=0, stock="JD QS")


def start(kings_first: bool = False) -> Match:
    return new_match(Options(seats=2, kings_first=kings_first), decks=[DECK], dealer=0)


CHAIN = "9H 8S 7H 6S 5H 4S 3H"


def hand_played_out(target: int) -> Match:
    """Seat 1 goes out at once; seat 0 pays 7."""
    deck = stacked_deck([OTHER, CHAIN], "10C AD 3S AH", dealer=0)
    match = new_match(Options(seats=2, target=target), decks=[deck], dealer=0)
    return play_match(match, *(f"{card}>N" for card in cards(CHAIN)))


def finished() -> Match:
    return hand_played_out(target=7)


def between_hands() -> Match:
    return hand_played_out(target=8)


Attempt = Callable[[Match], object]


def act(text: str, seat: int | None = None) -> Attempt:
    return lambda match: match.apply(action_from_text(text), seat)


def act_wire(data: dict[str, object]) -> Attempt:
    return lambda match: match.apply(action_from_wire(data))


CASES: list[tuple[str, Callable[[], Match], Attempt]] = [
    ("not_your_turn", start, act("end", seat=0)),
    ("not_in_hand", start, act("2C>E")),
    ("not_in_hand", start, act("9D>N")),
    ("does_not_fit", start, act("8S>N")),
    ("does_not_fit", start, act("9H>E")),
    ("corner_needs_king", start, act("9H>NE")),
    ("corner_needs_king", start, act("N>SE")),
    ("no_such_pile", start, act("9H>C")),
    ("no_such_pile", start, act("N>NN")),
    ("cannot_move_pile", start, act("N>N")),
    ("cannot_move_pile", start, act("NE>N")),
    ("must_play_king", lambda: start(kings_first=True), act("end")),
    ("hand_over", between_hands, act("end")),
    ("hand_over", finished, act("end", seat=1)),
    ("bad_action", start, act_wire({"type": "play", "card": "1H", "pile": "N"})),
    ("hand_in_progress", start, lambda match: match.next_hand()),
    ("match_over", finished, lambda match: match.next_hand()),
]


@pytest.mark.parametrize(("code", "build", "attempt"), CASES, ids=[c[0] for c in CASES])
def test_a_refusal_carries_its_code_and_changes_nothing(
    code: str, build: Callable[[], Match], attempt: Attempt
) -> None:
    match = build()
    legal = list(legal_actions(match.position))
    with pytest.raises(IllegalAction) as error:
        attempt(match)
    assert error.value.code == code
    assert error.value.client_fault
    assert match == build()
    assert legal_actions(match.position) == legal


def test_bad_options_is_a_client_error_but_not_an_illegal_action() -> None:
    with pytest.raises(ClientError) as error:
        Options(seats=7)
    assert error.value.code == "bad_options"
    assert not isinstance(error.value, IllegalAction)


def test_every_refusal_code_of_the_rules_exists() -> None:
    codes = {
        cls.code
        for cls in vars(errors).values()
        if isinstance(cls, type) and issubclass(cls, KingsCornerError)
    }
    assert {
        "not_your_turn",
        "not_in_hand",
        "does_not_fit",
        "corner_needs_king",
        "no_such_pile",
        "cannot_move_pile",
        "must_play_king",
        "hand_over",
        "bad_action",
        "hand_in_progress",
        "match_over",
        "bad_options",
    } <= codes


def test_error_codes_are_unique() -> None:
    classes = [
        cls
        for cls in vars(errors).values()
        if isinstance(cls, type) and issubclass(cls, KingsCornerError)
    ]
    assert len({cls.code for cls in classes}) == len(classes)


def test_a_refusal_has_a_readable_message() -> None:
    match = start()
    with pytest.raises(IllegalAction) as error:
        match.apply(action_from_text("8S>N"))
    # The cards are in params; the English message names only the pile.
    assert error.value.params == {"card": "8S", "pile": "N", "onto": "10C"}
    assert error.value.message.startswith("That card does not fit on the top of N")
    assert str(error.value) == error.value.message


def test_explain_only_words_refusals_the_legal_list_decides() -> None:
    match = start()
    pos = match.position
    assert isinstance(explain(pos, END_TURN), IllegalAction)
    assert END_TURN in legal_actions(pos)
    assert match.apply(END_TURN).position.turn == 0


def test_the_seat_to_move_may_name_itself() -> None:
    match = start()
    assert match.apply(END_TURN, seat=1).position.turn == 0
