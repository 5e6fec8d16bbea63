"""The ``scoring: corners`` variant (RULES.md, Variants): clauses (a) to (e), the effects the
table log reads, views, places and replay."""

from __future__ import annotations

from dataclasses import replace

import pytest

from protocol.engine import (
    Match,
    Options,
    Play,
    effects,
    format_position,
    legal_actions,
    new_match,
    parse_position,
    public_view,
    replay,
    seat_view,
)
from protocol.engine.position import HandResult
from protocol.errors import MatchOver

from .support import cards_in, pile, play, position, texts

CORNERS = {"scoring": "corners"}
RUN = "KS,QH,JC,10D,9S,8H,7C,6D,5S,4H,3C,2D"
#: NE holds the run from KS down to 2D: AS or AC completes it.
ALMOST = f"N=9C E=5D S=JH W=QS NE={RUN} SE=- SW=- NW=-"


# --- (a) a completed corner is collected by the seat that completed it --------------------


def test_an_ace_played_on_a_corner_collects_it() -> None:
    pos = position(f"{ALMOST} ; hands AS,4D / 3H ; stock * ; turn 0 ; dealer 1", **CORNERS)
    after = play(pos, "AS>NE")
    assert pile(after, "NE") == ()
    assert after.collected == (1, 0)
    assert len(after.all_cards()) == 52 - 13
    assert effects(pos, Play("AS", "NE"), after).collected == "NE"


def test_a_pile_moved_onto_a_corner_that_completes_it_collects_it() -> None:
    run = RUN.rsplit(",", 1)[0]  # down to 3C
    text = f"N=2D,AC E=5D S=JH W=QS NE={run} SE=- SW=- NW=- ; hands 4D / 3H ; stock * ; turn 1"
    pos = position(text, **CORNERS)
    after = play(pos, "N>NE")
    assert pile(after, "NE") == () and pile(after, "N") == ()
    assert after.collected == (0, 1)


def test_a_king_to_ace_side_pile_moved_into_a_corner_is_collected_at_once() -> None:
    text = f"N={RUN},AC E=5D S=JH W=QS NE=- SE=- SW=- NW=- ; hands 4D / 3H ; stock *"
    after = play(position(text, **CORNERS), "N>NE")
    assert after.piles == ((), ("5D",), ("JH",), ("QS",), (), (), (), ())
    assert after.collected == (1, 0)


def test_a_collected_corner_accepts_a_king_again() -> None:
    pos = position(f"{ALMOST} ; hands AS,KD / 3H ; stock * ; turn 0", **CORNERS)
    after = play(pos, "AS>NE")
    assert "KD>NE" in texts(legal_actions(after))
    assert pile(play(after, "KD>NE"), "NE") == ("KD",)


def test_side_piles_are_never_collected() -> None:
    text = "N=KS,QH,JC,10D,9S,8H,7C,6D,5S,4H,3C,2D E=5D S=JH W=QS ; hands AS,4D / 3H ; stock *"
    after = play(position(text, **CORNERS), "AS>N")
    assert len(pile(after, "N")) == 13 and after.collected == (0, 0)


def test_under_penalty_scoring_nothing_is_collected() -> None:
    pos = position(f"{ALMOST} ; hands AS,4D / 3H ; stock * ; turn 0 ; dealer 1")
    after = play(pos, "AS>NE")
    assert len(pile(after, "NE")) == 13 and after.collected == ()
    assert effects(pos, Play("AS", "NE"), after).collected is None


def test_the_last_card_collects_and_goes_out() -> None:
    pos = position(f"{ALMOST} ; hands AS / 3H,KD ; stock * ; turn 0", **CORNERS)
    after = play(pos, "AS>NE")
    assert after.collected == (1, 0)
    assert after.result is not None and after.result.out == 0


# --- (b) a match is one hand ---------------------------------------------------------------


@pytest.mark.parametrize("draw", ["end", "start", "until_playable"])
def test_a_match_is_one_hand_whatever_the_target(draw: str) -> None:
    match = new_match(Options(seats=3, target=500, draw=draw, **CORNERS), seed="one-hand")
    while match.phase == "playing":
        match = match.apply(legal_actions(match.position)[0])
    assert match.phase == "finished" and max(match.totals) < 500
    assert match.winners and match.places
    with pytest.raises(MatchOver):
        match.next_hand()


# --- (c) places: corners, then penalty, then shared ----------------------------------------


def finished(collected: tuple[int, ...], penalties: tuple[int, ...], **options: object) -> Match:
    """A finished match of ``len(collected)`` seats with these counts and penalties."""
    seats = len(collected)
    match = new_match(Options(seats=seats, **options), seed="places")  # type: ignore[arg-type]
    result = HandResult("blocked", None, penalties, match.position.hands)
    pos = replace(match.position, result=result, collected=collected)
    return replace(match, position=pos, results=(result,), totals=penalties)


def test_places_count_corners_first_then_the_lower_penalty_then_share() -> None:
    match = finished((2, 1, 1, 0), (9, 3, 3, 0), **CORNERS)
    assert match.places == (1, 2, 2, 4)
    assert match.winners == (0,)
    assert finished((1, 1, 0, 0), (5, 2, 0, 0), **CORNERS).places == (2, 1, 3, 3)
    tied = finished((1, 1, 0), (4, 4, 0), **CORNERS)
    assert tied.places == (1, 1, 3) and tied.winners == (0, 1)


def test_under_penalty_scoring_places_follow_the_totals() -> None:
    match = finished((0, 0, 0, 0), (30, 3, 3, 0), target=25)
    assert match.places == (4, 2, 2, 1) and match.winners == (3,)


def test_places_are_read_only_once_the_match_is_finished() -> None:
    match = new_match(Options(seats=2, **CORNERS), seed="x")
    assert match.places == () and match.winners == ()


# --- (d) collected counts are public at every moment -----------------------------------------


def test_every_view_shows_each_seats_collected_corners() -> None:
    match = new_match(Options(seats=2, **CORNERS), seed="views")
    for seat in (None, 0, 1):
        seen = public_view(match) if seat is None else seat_view(match, seat)
        assert seen["collected"] == [0, 0] and seen["places"] is None
        assert not cards_in(seen) & set(match.position.stock)
    assert "collected" not in public_view(new_match(Options(seats=2), seed="views"))
    done = finished((1, 0), (3, 0), **CORNERS)
    assert public_view(done)["places"] == [1, 2]
    assert public_view(done)["collected"] == [1, 0]


def test_the_notation_keeps_the_collected_counts() -> None:
    pos = play(position(f"{ALMOST} ; hands AS,4D / 3H ; stock * ; turn 0", **CORNERS), "AS>NE")
    text = format_position(pos)
    assert "collected 1,0" in text
    assert parse_position(text, pos.options) == pos


# --- (e) combinations --------------------------------------------------------------------


@pytest.mark.parametrize("draw", ["end", "start", "until_playable"])
@pytest.mark.parametrize("kings_first", [False, True])
@pytest.mark.parametrize("opening_refill", [False, True])
def test_collection_combines_with_every_rule(
    draw: str, kings_first: bool, opening_refill: bool
) -> None:
    text = f"N={RUN},AC E=5D S=JH W=QS NE=- SE=- SW=- NW=- ; hands 4D,KH / 3H ; stock 8S"
    options = {"draw": draw, "kings_first": kings_first, "opening_refill": opening_refill}
    pos = position(text + (" ; opening 1" if opening_refill else ""), **options, **CORNERS)
    after = play(pos, "N>NE")
    assert after.collected == (1, 0) and pile(after, "NE") == ()
    assert pile(after, "N") == (("8S",) if opening_refill else ())
    assert "KH>NE" in texts(legal_actions(after))


def test_a_recorded_corners_match_replays_identically() -> None:
    match = new_match(Options(seats=2, **CORNERS), seed="replay")
    while match.phase == "playing":
        match = match.apply(legal_actions(match.position)[0])
    record = match.record()
    assert record["options"]["scoring"] == "corners"
    again = replay(record)
    assert again == match and again.places == match.places
