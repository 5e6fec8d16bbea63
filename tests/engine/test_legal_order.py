"""The exact order of legal_actions, as docs/engine.md (*The order of the legal actions*) states it.

Plays pile by pile in PILES order (onto a non-empty pile in DECK order, onto an empty side
every card and onto an empty corner every king in hand order), then pile moves source by
source in PILES order (a king side pile to the empty corners in PILES order, any other pile
onto its destinations in DECK order of their tops), then ``end``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from protocol.engine import (
    CORNERS,
    DECK,
    PILES,
    Action,
    Draw,
    EndTurn,
    Move,
    Options,
    Play,
    Position,
    legal_actions,
    new_match,
)

from .support import position, texts

# --- plays onto one pile ------------------------------------------------------------


@pytest.mark.parametrize("hand", ["7H,7D,2C", "7D,7H,2C", "2C,7H,7D"])
def test_plays_onto_a_black_top_come_diamond_then_heart_whatever_the_hand_order(
    hand: str,
) -> None:
    pos = position(f"N=8C E=2S S=2H W=2D NE=KH SE=KD SW=KC NW=KS ; hands {hand} / 3C ; turn 0")
    assert texts(legal_actions(pos)) == ["7D>N", "7H>N", "end"]


@pytest.mark.parametrize("hand", ["7S,7C,2D", "7C,7S,2D", "2D,7S,7C"])
def test_plays_onto_a_red_top_come_club_then_spade_whatever_the_hand_order(hand: str) -> None:
    pos = position(f"N=8H E=2S S=2H W=2C NE=KH SE=KD SW=KC NW=KS ; hands {hand} / 3C ; turn 0")
    assert texts(legal_actions(pos)) == ["7C>N", "7S>N", "end"]


def test_plays_onto_a_non_empty_corner_are_in_deck_order_too() -> None:
    pos = position("N=2C E=2S S=2H W=2D NE=KH SE=- SW=- NW=- ; hands QS,QC / 3C ; turn 0")
    assert texts(legal_actions(pos))[:2] == ["QC>NE", "QS>NE"]


def test_plays_onto_an_empty_side_pile_come_in_hand_order() -> None:
    pos = position("N=- E=2S S=2H W=2D NE=KH SE=KD SW=KC NW=KS ; hands 5S,3C,JD,9H / 4C ; turn 0")
    assert texts(legal_actions(pos)) == ["5S>N", "3C>N", "JD>N", "9H>N", "end"]


def test_kings_onto_an_empty_corner_come_in_hand_order() -> None:
    pos = position("N=2C E=2S S=2H W=2D NE=- SE=- SW=- NW=- ; hands KS,3C,KC,KH / 4C ; turn 0")
    assert texts(legal_actions(pos)) == [
        "KS>NE",
        "KC>NE",
        "KH>NE",
        "KS>SE",
        "KC>SE",
        "KH>SE",
        "KS>SW",
        "KC>SW",
        "KH>SW",
        "KS>NW",
        "KC>NW",
        "KH>NW",
        "end",
    ]


def test_plays_go_pile_by_pile_in_piles_order() -> None:
    # NW holds a king with QD on hand; N is empty; E ends in 8S; SE is empty.
    pos = position("N=- E=9D,8S S=2H W=2D NE=KS SE=- SW=KC NW=KH ; hands QC,7H,KD / 4C ; turn 0")
    assert texts(legal_actions(pos)) == [
        "QC>N",
        "7H>N",
        "KD>N",
        "7H>E",
        "KD>SE",
        "QC>NW",
        "end",
    ]


def test_the_engine_doc_order_example() -> None:
    pos = position("N=8C E=- S=9D W=5S NE=KH SE=- SW=- NW=- ; hands 7H,KD,7D,KC / 2C ; turn 0")
    assert texts(legal_actions(pos)) == [
        "7D>N",
        "7H>N",
        "7H>E",
        "KD>E",
        "7D>E",
        "KC>E",
        "KD>SE",
        "KC>SE",
        "KD>SW",
        "KC>SW",
        "KD>NW",
        "KC>NW",
        "N>S",
        "end",
    ]


# --- pile moves ---------------------------------------------------------------------


def test_a_red_based_pile_moves_onto_the_club_top_then_the_spade_top() -> None:
    # The spade top is on N, the club top on W: DECK order of the tops, not PILES order.
    pos = position("N=9D,8S E=7H,6S S=2H W=9H,8C NE=KD SE=KC SW=KS NW=KH ; hands 2D / 3C ; turn 0")
    assert texts(legal_actions(pos)) == ["E>W", "E>N", "end"]


def test_a_black_based_pile_moves_onto_the_diamond_top_then_the_heart_top() -> None:
    pos = position("N=9S,8H E=7C,6H S=2H W=9C,8D NE=KD SE=KC SW=KS NW=KH ; hands 2D / 3C ; turn 0")
    assert texts(legal_actions(pos)) == ["E>W", "E>N", "end"]


def test_a_king_side_pile_moves_to_each_empty_corner_in_piles_order() -> None:
    pos = position("N=2C E=KS,QH S=2H W=2D NE=- SE=KD SW=- NW=- ; hands 3C / 4C ; turn 0")
    assert texts(legal_actions(pos)) == ["E>NE", "E>SW", "E>NW", "end"]


def test_pile_moves_go_source_by_source_in_piles_order() -> None:
    # W (base 8C) fits on N's 9D and on SE's 9H; S is a king pile; the corners never move.
    pos = position(
        "N=10C,9D E=2S S=KC,QD W=8C,7H NE=KS SE=KH,QS,JD,10S,9H SW=- NW=- ; hands 2D / 3C ; turn 0"
    )
    moves = [a.text() for a in legal_actions(pos) if isinstance(a, Move)]
    assert moves == ["S>SW", "S>NW", "W>N", "W>SE"]


def test_draw_comes_after_the_moves_and_before_end() -> None:
    text = "N=9C E=5D S=KS W=QS NE=- SE=- SW=- NW=- ; hands 2C,3D / 4D ; turn 0 ; played 1"
    pos = position(text, draw="until_playable")
    assert texts(legal_actions(pos)) == ["S>NE", "S>SE", "S>SW", "S>NW", "draw", "end"]


def test_plays_come_before_moves_and_end_comes_last() -> None:
    pos = position("N=8C E=9D S=KS W=- NE=- SE=- SW=- NW=- ; hands 7H,KD / 2C ; turn 0")
    assert texts(legal_actions(pos)) == [
        "7H>N",
        "7H>W",
        "KD>W",
        "KD>NE",
        "KD>SE",
        "KD>SW",
        "KD>NW",
        "N>E",
        "S>NE",
        "S>SE",
        "S>SW",
        "S>NW",
        "end",
    ]


# --- the documented order, in positions from real play -------------------------------


def documented_key(pos: Position, action: Action) -> tuple[int, int, int]:
    """Where docs/engine.md puts ``action`` among the legal actions of ``pos``."""
    piles = dict(zip(PILES, pos.piles, strict=True))
    hand = pos.hands[pos.turn]
    if isinstance(action, Play):
        target = piles[action.pile]
        within = DECK.index(action.card) if target else hand.index(action.card)
        return (0, PILES.index(action.pile), within)
    if isinstance(action, Move):
        target = piles[action.dst]
        within = DECK.index(target[-1]) if target else CORNERS.index(action.dst)
        return (1, PILES.index(action.src), within)
    if isinstance(action, Draw):
        return (2, 0, 0)
    assert isinstance(action, EndTurn)
    return (3, 0, 0)


def positions_from_play(seed: int, options: Options, hands: int) -> Iterator[Position]:
    rng = random.Random(seed)
    match = new_match(options, seed=f"order:{seed}")
    for _ in range(hands):
        while match.position.result is None:
            yield match.position
            match = match.apply(rng.choice(legal_actions(match.position)))
        if match.phase == "finished":
            return
        match = match.next_hand()


@pytest.mark.parametrize(
    "options",
    [
        Options(seats=2),
        Options(seats=3, draw="start"),
        Options(seats=4, kings_first=True),
        Options(seats=3, draw="until_playable", kings_first=True),
    ],
    ids=["2-seats", "3-seats-draw-start", "4-seats-kings-first", "3-seats-until-playable"],
)
def test_legal_actions_follow_the_documented_order_in_played_positions(options: Options) -> None:
    seen = 0
    for seed in range(3):
        for pos in positions_from_play(seed, options, hands=3):
            legal = legal_actions(pos)
            assert legal == sorted(legal, key=lambda a: documented_key(pos, a))
            assert len({documented_key(pos, a) for a in legal}) == len(legal)
            seen += 1
    assert seen > 100
