"""Which code wins when an action is wrong in several ways (docs/engine.md, *Which code wins*).

``faults`` below is an oracle written from RULES.md alone: it lists every fault an action
has, each found on its own. The rules must refuse with the code of the first fault in
``PRECEDENCE`` (and accept exactly the actions without a fault).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from protocol.engine import (
    CORNERS,
    DECK,
    END_TURN,
    PILES,
    SIDES,
    EndTurn,
    HandResult,
    Move,
    Options,
    Play,
    Position,
    apply,
    explain,
    fits,
    legal_actions,
    new_match,
)
from protocol.engine.cards import CARDS, IS_KING
from protocol.errors import IllegalAction

from .support import position

#: Every fault, first to last: the documented precedence. Play and move faults never mix,
#: so one list orders both.
PRECEDENCE = [
    "not_an_action",  # bad_action
    "hand_over",
    "not_your_turn",
    "must_play_king",
    "no_card_code",  # bad_action
    "no_such_pile",  # a play's pile
    "no_such_source",  # no_such_pile
    "no_such_destination",  # no_such_pile
    "not_in_hand",
    "empty_source",  # cannot_move_pile
    "onto_itself",  # cannot_move_pile
    "onto_empty_side",  # cannot_move_pile
    "corner_needs_king",
    "corner_to_corner",  # cannot_move_pile
    "does_not_fit",
]
CODE = {
    "not_an_action": "bad_action",
    "no_card_code": "bad_action",
    "no_such_source": "no_such_pile",
    "no_such_destination": "no_such_pile",
    "empty_source": "cannot_move_pile",
    "onto_itself": "cannot_move_pile",
    "onto_empty_side": "cannot_move_pile",
    "corner_to_corner": "cannot_move_pile",
}
#: What the message says for the faults that share a code with another.
WORDING = {
    "empty_source": "is empty",
    "onto_itself": "onto itself",
    "onto_empty_side": "empty side",
    "corner_to_corner": "another empty corner",
    "not_an_action": "not an action",
    "no_card_code": "not a card code",
}


def code_of(fault: str) -> str:
    return CODE.get(fault, fault)


def faults(pos: Position, action: object, seat: int | None = None) -> list[str]:
    """Every fault of ``action`` by ``seat`` in ``pos``, in PRECEDENCE order."""
    found: list[str] = []
    if not isinstance(action, (Play, Move, EndTurn)):
        found.append("not_an_action")
    if pos.result is not None:
        found.append("hand_over")
    if seat is not None and seat != pos.turn:
        found.append("not_your_turn")
    hand = pos.hands[pos.turn]
    piles = dict(zip(PILES, pos.piles, strict=True))

    def is_pile(name: object) -> bool:
        return isinstance(name, str) and name in piles

    if isinstance(action, EndTurn):
        if (
            pos.options.kings_first
            and any(IS_KING[c] for c in hand)
            and any(not piles[c] for c in CORNERS)
        ):
            found.append("must_play_king")
    elif isinstance(action, Play):
        card, name = action.card, action.pile
        is_card = isinstance(card, str) and card in CARDS
        if not is_card:
            found.append("no_card_code")
        if not is_pile(name):
            found.append("no_such_pile")
        if card not in hand:
            found.append("not_in_hand")
        if is_card and is_pile(name):
            target = piles[name]
            if not target and name in CORNERS and not IS_KING[card]:
                found.append("corner_needs_king")
            if target and not fits(card, target[-1]):
                found.append("does_not_fit")
    elif isinstance(action, Move):
        src, dst = action.src, action.dst
        if not is_pile(src):
            found.append("no_such_source")
        if not is_pile(dst):
            found.append("no_such_destination")
        if is_pile(src) and not piles[src]:
            found.append("empty_source")
        if is_pile(src) and src == dst:
            found.append("onto_itself")
        if is_pile(dst) and not piles[dst] and dst in SIDES:
            found.append("onto_empty_side")
        if is_pile(src) and is_pile(dst) and piles[src]:
            base, target = piles[src][0], piles[dst]
            if not target and dst in CORNERS:
                if not IS_KING[base]:
                    found.append("corner_needs_king")
                elif src in CORNERS:
                    found.append("corner_to_corner")
            if target and not fits(base, target[-1]):
                found.append("does_not_fit")
    return sorted(found, key=PRECEDENCE.index)


def refusal(pos: Position, action: Any, seat: int | None = None) -> IllegalAction:
    """The refusal of ``action``; ``pos`` must not change."""
    before = replace(pos)
    with pytest.raises(IllegalAction) as error:
        apply(pos, action, seat)
    assert pos == before
    return error.value


# Seat 0 to move, under kings_first (it holds KD and SE is empty). N ends in 9C, E is the
# pile 8C-7H, S is empty, W is the king pile KS-QD, NE holds KH; SE, SW and NW are empty.
LIVE_TEXT = (
    "N=9C E=8C,7H S=- W=KS,QD NE=KH SE=- SW=- NW=- ; hands 8H,4S,3H,KD,QC / 2C,5D ; "
    "turn 0 ; dealer 1"
)
LIVE = position(LIVE_TEXT, kings_first=True)
#: The same table once the hand has ended (the results are not what is tested here).
OVER = replace(LIVE, result=HandResult.score("blocked", None, LIVE.hands))

ACTION_FAULTS: list[tuple[str, Any]] = [
    ("must_play_king", END_TURN),
    ("no_card_code", Play("1H", "N")),
    ("no_such_pile", Play("8H", "X")),
    ("not_in_hand", Play("5D", "S")),
    ("corner_needs_king", Play("QC", "SE")),
    ("does_not_fit", Play("4S", "N")),
    ("no_such_source", Move("X", "N")),
    ("no_such_destination", Move("N", "X")),
    ("empty_source", Move("SE", "N")),
    ("onto_itself", Move("N", "N")),
    ("onto_empty_side", Move("E", "S")),
    ("corner_needs_king", Move("E", "SE")),
    ("corner_to_corner", Move("NE", "SE")),
    ("does_not_fit", Move("E", "N")),
    ("does_not_fit", Move("W", "E")),  # a king-based pile onto a pile
]

#: (winner, loser, position, action, seat): both faults apply, the winner's code is given.
PAIRS: list[tuple[str, str, Position, Any, int | None]] = [
    # Not an action at all beats everything.
    ("not_an_action", "hand_over", OVER, None, None),
    ("not_an_action", "hand_over", OVER, "end", 1),
    ("not_an_action", "not_your_turn", LIVE, {"type": "end_turn"}, 1),
    ("not_an_action", "not_your_turn", LIVE, "7H>N", 1),
    # The hand being over beats the seat and every fault of the action itself.
    ("hand_over", "not_your_turn", OVER, END_TURN, 1),
    *(("hand_over", fault, OVER, action, None) for fault, action in ACTION_FAULTS),
    # The wrong seat beats every fault of the action itself.
    *(("not_your_turn", fault, LIVE, action, 1) for fault, action in ACTION_FAULTS),
    # A play.
    ("no_card_code", "no_such_pile", LIVE, Play("1H", "X"), None),
    ("no_card_code", "not_in_hand", LIVE, Play("1H", "N"), None),
    ("no_such_pile", "not_in_hand", LIVE, Play("5D", "X"), None),
    ("not_in_hand", "corner_needs_king", LIVE, Play("QS", "SE"), None),
    ("not_in_hand", "does_not_fit", LIVE, Play("5D", "N"), None),
    # A move.
    ("no_such_source", "no_such_destination", LIVE, Move("X", "Y"), None),
    ("no_such_destination", "empty_source", LIVE, Move("SE", "X"), None),
    ("empty_source", "onto_itself", LIVE, Move("SE", "SE"), None),
    ("empty_source", "onto_empty_side", LIVE, Move("S", "S"), None),
    ("empty_source", "onto_empty_side", LIVE, Move("SW", "S"), None),
    ("onto_itself", "does_not_fit", LIVE, Move("N", "N"), None),
    ("onto_itself", "does_not_fit", LIVE, Move("NE", "NE"), None),  # king-based
    ("onto_itself", "does_not_fit", LIVE, Move("W", "W"), None),  # king-based side pile
]


def pair_id(case: tuple[str, str, Position, Any, int | None]) -> str:
    winner, loser, pos, action, seat = case
    shown = action.text() if isinstance(action, (Play, Move, EndTurn)) else repr(action)
    where = "over" if pos.result is not None else "live"
    return f"{winner}>{loser}:{where}:{shown}" + ("" if seat is None else f":seat{seat}")


def test_the_precedence_list_names_every_code_of_the_rules() -> None:
    assert {code_of(f) for f in PRECEDENCE} == {
        "bad_action",
        "hand_over",
        "not_your_turn",
        "must_play_king",
        "no_such_pile",
        "not_in_hand",
        "cannot_move_pile",
        "corner_needs_king",
        "does_not_fit",
    }


@pytest.mark.parametrize(("fault", "action"), ACTION_FAULTS, ids=[f for f, _ in ACTION_FAULTS])
def test_each_fault_of_an_action_gives_its_code(fault: str, action: Any) -> None:
    # The first fault: a made-up card is not in the hand either, a pile onto itself
    # does not fit on its own top either (both pairs are tested below).
    assert faults(LIVE, action)[0] == fault
    error = refusal(LIVE, action)
    assert error.code == code_of(fault)
    assert explain(LIVE, action).code == code_of(fault)
    if fault in WORDING:
        assert WORDING[fault] in error.message


@pytest.mark.parametrize(
    ("winner", "loser", "pos", "action", "seat"), PAIRS, ids=map(pair_id, PAIRS)
)
def test_the_first_fault_gives_the_code(
    winner: str, loser: str, pos: Position, action: Any, seat: int | None
) -> None:
    found = faults(pos, action, seat)
    assert winner in found and loser in found, found
    assert PRECEDENCE.index(winner) < PRECEDENCE.index(loser)
    assert found[0] == winner
    error = refusal(pos, action, seat)
    assert error.code == code_of(winner)
    if winner in WORDING:
        assert WORDING[winner] in error.message
    if winner == "no_such_source":
        assert error.params["pile"] == action.src  # in params: messages name no card
    if seat is None or winner != "not_your_turn":
        # explain has no seat: apart from not_your_turn it names the same fault.
        assert explain(pos, action).code == code_of(winner)


def test_explain_without_a_seat_names_the_next_fault() -> None:
    assert explain(LIVE, Play("4S", "N")).code == "does_not_fit"
    assert refusal(LIVE, Play("4S", "N"), seat=1).code == "not_your_turn"


def test_the_seat_to_move_naming_itself_is_no_fault() -> None:
    assert faults(LIVE, Play("4S", "N"), seat=0) == ["does_not_fit"]
    assert refusal(LIVE, Play("4S", "N"), seat=0).code == "does_not_fit"
    assert refusal(OVER, END_TURN, seat=0).code == "hand_over"


# --- the precedence over many positions of real play ----------------------------------

ODD_PILES = [*PILES, "X"]
EVERY_ACTION: list[Any] = [
    *(Play(card, pile) for card in [*DECK, "1H"] for pile in ODD_PILES),
    *(Move(src, dst) for src in ODD_PILES for dst in ODD_PILES),
    END_TURN,
    None,
    "end",
    {"type": "end_turn"},
]


def played_positions(options: Options, seed: int, every: int) -> Iterator[Position]:
    """Every ``every``-th position of a seeded random hand, and the ended hand."""
    rng = random.Random(seed)
    match = new_match(options, seed=f"precedence:{seed}")
    step = 0
    while match.position.result is None:
        if step % every == 0:
            yield match.position
        match = match.apply(rng.choice(legal_actions(match.position)))
        step += 1
    yield match.position


@pytest.mark.parametrize(
    "options",
    [Options(seats=2), Options(seats=3, draw="start"), Options(seats=4, kings_first=True)],
    ids=["2-seats", "3-seats-draw-start", "4-seats-kings-first"],
)
def test_every_action_is_refused_with_its_first_fault_or_accepted(options: Options) -> None:
    positions = [p for seed in range(2) for p in played_positions(options, seed, every=9)]
    assert len(positions) > 6 and any(p.result is not None for p in positions)
    for pos in positions:
        legal = legal_actions(pos)
        other = (pos.turn + 1) % pos.seats
        for action in EVERY_ACTION:
            for seat in (None, pos.turn, other):
                found = faults(pos, action, seat)
                # Legality ignores who asks: the seat is checked by apply alone.
                assert (action in legal) == (set(found) <= {"not_your_turn"})
                if not found:
                    apply(pos, action, seat)
                    continue
                with pytest.raises(IllegalAction) as error:
                    apply(pos, action, seat)
                assert error.value.code == code_of(found[0]), (action, seat, found)
