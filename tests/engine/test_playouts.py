"""Seeded random playouts: thousands of hands, every invariant checked after every action.

Set ``KC_PLAYOUT_HANDS`` to play more (or fewer) hands per configuration than the default.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.engine import (
    CORNERS,
    DECK,
    DRAW,
    END_TURN,
    PILES,
    Action,
    Draw,
    EndTurn,
    Match,
    Move,
    Options,
    Play,
    Position,
    apply,
    format_position,
    legal_actions,
    new_match,
    parse_position,
    replay,
    view,
)
from protocol.engine.cards import IS_KING
from protocol.errors import IllegalAction
from protocol.options_table import DrawRule

from .support import assert_cards_conserved, assert_piles_well_formed, cards_in

HANDS_PER_CONFIG = int(os.environ.get("KC_PLAYOUT_HANDS", "170"))
#: Views are checked after every action of every VIEW_EVERY-th hand, and at every hand's end.
VIEW_EVERY = 8
#: The notation round trip is checked at every NOTATION_EVERY-th position (and by hypothesis).
NOTATION_EVERY = 5
MAX_ACTIONS_PER_HAND = 5000

CONFIGS = [
    Options(seats=seats, draw=draw, kings_first=kings_first)
    for seats in (2, 3, 4)
    for draw in ("end", "start", "until_playable")
    for kings_first in (False, True)
]

#: Every action a client could name, plus a few that name nothing real.
CANDIDATES: list[Action] = [
    *(Play(card, pile) for card in DECK for pile in PILES),
    *(Move(src, dst) for src in PILES for dst in PILES),
    END_TURN,
    DRAW,
    Play("1H", "N"),
    Play("7H", "X"),
    Move("X", "N"),
    Move("N", "C"),
]
REFUSAL_CODES = {
    "not_in_hand",
    "does_not_fit",
    "corner_needs_king",
    "no_such_pile",
    "cannot_move_pile",
    "must_play_king",
    "must_play_card",
    "cannot_draw",
    "bad_action",
}


def config_id(options: Options) -> str:
    kings = "-kings_first" if options.kings_first else ""
    return f"{options.seats}seats-draw_{options.draw}{kings}"


# --- the invariants ---------------------------------------------------------------------


def check_position(pos: Position, *, notation: bool = True) -> None:
    assert_cards_conserved(pos)
    assert_piles_well_formed(pos)
    assert 0 <= pos.turn < pos.seats
    assert 0 <= pos.passes <= pos.seats
    if pos.passes:
        assert not pos.stock
    if pos.result is None:
        assert pos.passes < pos.seats
        assert all(pos.hands)
        if notation:
            assert parse_position(format_position(pos), pos.options) == pos
    else:
        assert legal_actions(pos) == []
        assert pos.result.left == pos.hands
        if pos.result.reason == "emptied":
            assert pos.result.out is not None
            assert pos.hands[pos.result.out] == ()
            assert pos.result.penalties[pos.result.out] == 0
        else:
            assert pos.result.out is None
            assert pos.passes == pos.seats
            assert not pos.stock


def check_legal_list(pos: Position) -> None:
    legal = legal_actions(pos)
    assert legal, "a hand in progress always offers an action"
    assert len(set(legal)) == len(legal)
    hand = pos.hands[pos.turn]
    kings_in_hand = any(IS_KING[c] for c in hand)
    until_playable = pos.options.draw == "until_playable"
    # A held king always has an empty corner (corners rest on kings), so it must go.
    kings_allow = not (pos.options.kings_first and kings_in_hand)
    draws_allow = not until_playable or pos.played or not pos.stock
    assert (END_TURN in legal) is (kings_allow and draws_allow)
    has_play = any(isinstance(a, Play) for a in legal)
    assert (DRAW in legal) is (until_playable and bool(pos.stock) and not has_play)
    for action in legal:
        if isinstance(action, Play):
            assert action.card in hand
        elif isinstance(action, Move):
            assert action.src not in CORNERS


def check_every_legal_action_applies(pos: Position) -> None:
    for action in legal_actions(pos):
        after = apply(pos, action)
        assert len(after.all_cards()) == 52
        if isinstance(action, Play):
            i = PILES.index(action.pile)
            assert after.piles[i] == (*pos.piles[i], action.card)
            left = tuple(c for c in pos.hands[pos.turn] if c != action.card)
            refill = pos.stock[: len(pos.stock) - len(after.stock)]
            assert after.hands[pos.turn] == left + refill
            if refill:  # until_playable: the last card, beside an empty side space
                assert pos.options.draw == "until_playable" and not left
                assert len(refill) == min(3, len(pos.stock))
                assert any(not after.piles[k] for k in range(4))
            assert after.turn == pos.turn
            assert after.played
        elif isinstance(action, Move):
            src, dst = PILES.index(action.src), PILES.index(action.dst)
            assert after.piles[dst] == pos.piles[dst] + pos.piles[src]
            assert after.piles[src] == ()
            assert after.hands == pos.hands
            assert after.turn == pos.turn
        elif isinstance(action, Draw):
            assert after.hands[pos.turn] == (*pos.hands[pos.turn], pos.stock[0])
            assert after.stock == pos.stock[1:]
            assert (after.turn, after.moved, after.played) == (pos.turn, pos.moved, pos.played)
        elif after.result is None:
            assert after.turn == (pos.turn + 1) % pos.seats
            drawn = len(pos.stock) - len(after.stock)
            assert drawn in (0, 1)
            if pos.options.draw == "end":
                assert after.hands[pos.turn] == pos.hands[pos.turn] + pos.stock[:drawn]
            elif pos.options.draw == "until_playable":
                assert drawn == 0
                assert after.hands == pos.hands
            else:
                assert after.hands[after.turn] == pos.hands[after.turn] + pos.stock[:drawn]


def check_refusals(match: Match, rng: random.Random, tries: int = 2) -> None:
    """Random illegal actions raise a precise refusal and leave the match equal."""
    pos = match.position
    legal = legal_actions(pos)
    copy = replace(match, position=replace(pos))
    for _ in range(tries):
        action = rng.choice(CANDIDATES)
        if action in legal:
            continue
        try:
            match.apply(action)
        except IllegalAction as refused:
            assert refused.code in REFUSAL_CODES, refused.code
        else:
            raise AssertionError(f"{action.text()} was accepted")
        assert match == copy
        assert legal_actions(match.position) is legal
    other = (pos.turn + 1) % pos.seats
    try:
        match.apply(legal[0], seat=other)
    except IllegalAction as refused:
        assert refused.code == "not_your_turn"
    else:
        raise AssertionError("a seat moved out of turn")
    assert match == copy


def check_views(match: Match) -> None:
    pos = match.position
    public = {c for p in pos.piles for c in p}
    if pos.result is not None:
        public |= {c for hand in pos.result.left for c in hand}
    spectator = view(match, None)
    assert "hand" not in spectator
    assert cards_in(spectator) <= public
    assert spectator["stock"] == len(pos.stock)
    for seat in range(pos.seats):
        seen = view(match, seat)
        assert seen["hand"] == list(pos.hands[seat])
        assert seen["stock"] == len(pos.stock)
        assert cards_in(seen) <= public | set(pos.hands[seat])
        if pos.result is None and seat == pos.turn:
            assert seen["legal"] == [a.text() for a in legal_actions(pos)]
        else:
            assert seen["legal"] == []


# --- the playouts -----------------------------------------------------------------------


def play_hand(match: Match, rng: random.Random, *, views: bool) -> Match:
    """Play the current hand to its end with random legal actions, checking everything."""
    for step in range(MAX_ACTIONS_PER_HAND):
        pos = match.position
        check_position(pos, notation=step % NOTATION_EVERY == 0)
        if pos.result is not None:
            check_views(match)
            return match
        check_legal_list(pos)
        check_every_legal_action_applies(pos)
        check_refusals(match, rng)
        if views:
            check_views(match)
        match = match.apply(rng.choice(legal_actions(pos)), seat=pos.turn)
    raise AssertionError(f"hand did not end within {MAX_ACTIONS_PER_HAND} actions")


def matches(options: Options, rng: random.Random) -> Iterator[Match]:
    """Endless seeded matches, each a fresh seed drawn from ``rng``."""
    while True:
        yield new_match(options, seed=f"playout-{rng.getrandbits(48):x}")


@pytest.mark.parametrize("options", CONFIGS, ids=config_id)
def test_random_playouts_keep_every_invariant(options: Options) -> None:
    rng = random.Random(f"playouts:{config_id(options)}")
    hands = 0
    outcomes: set[str] = set()
    for match in matches(options, rng):
        while True:
            match = play_hand(match, rng, views=hands % VIEW_EVERY == 0)
            hands += 1
            result = match.position.result
            assert result is not None
            outcomes.add(result.reason)
            assert match.totals == tuple(
                sum(r.penalties[s] for r in match.results) for s in range(options.seats)
            )
            if match.phase == "finished":
                assert max(match.totals) >= options.target
                assert match.winners
                assert all(match.totals[w] == min(match.totals) for w in match.winners)
                break
            assert max(match.totals) < options.target
            match = match.next_hand()
        again = replay(match.record())
        assert again == match
        assert again.totals == match.totals
        if hands >= HANDS_PER_CONFIG:
            break
    assert hands >= HANDS_PER_CONFIG
    assert "emptied" in outcomes


def test_random_playouts_reach_blocked_hands() -> None:
    # Blocked hands need a long game; a small target would stop most matches first.
    rng = random.Random("blocked")
    blocked = 0
    for match in matches(Options(seats=2, target=500), rng):
        for _ in range(20):
            match = play_hand(match, rng, views=False)
            assert match.position.result is not None
            blocked += match.position.result.reason == "blocked"
            if match.phase == "finished":
                break
            match = match.next_hand()
        assert replay(match.record()) == match
        if blocked >= 3:
            break
    assert blocked >= 3


# --- properties -------------------------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.text(max_size=12),
    options=st.sampled_from(CONFIGS),
    choices=st.lists(st.integers(min_value=0, max_value=10_000), max_size=300),
)
def test_any_seed_and_any_choice_of_legal_actions_keeps_the_invariants(
    seed: str, options: Options, choices: list[int]
) -> None:
    match = new_match(options, seed=seed)
    for choice in choices:
        pos = match.position
        check_position(pos)
        if match.phase == "finished":
            break
        if pos.result is not None:
            match = match.next_hand()
            continue
        legal = legal_actions(pos)
        match = match.apply(legal[choice % len(legal)])
    check_position(match.position)
    check_views(match)
    assert replay(match.record()) == match


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(min_value=0, max_value=2**32),
    seats=st.integers(min_value=2, max_value=4),
    draw=st.sampled_from(["end", "start", "until_playable"]),
    steps=st.integers(min_value=0, max_value=120),
    data=st.data(),
)
def test_any_reachable_position_round_trips_through_its_notation(
    seed: int, seats: int, draw: DrawRule, steps: int, data: st.DataObject
) -> None:
    match = new_match(Options(seats=seats, draw=draw), seed=seed)
    for _ in range(steps):
        legal = legal_actions(match.position)
        if not legal:
            break
        match = match.apply(data.draw(st.sampled_from(legal)))
    pos = match.position
    if pos.result is None:
        assert parse_position(format_position(pos), pos.options) == pos
    else:
        # The notation states hands in progress; the result is not written.
        again = parse_position(format_position(pos), pos.options)
        assert (again.hands, again.piles, again.stock) == (pos.hands, pos.piles, pos.stock)


@pytest.mark.parametrize("draw", ["end", "until_playable"])
def test_end_turn_is_the_only_action_that_passes_the_turn(draw: DrawRule) -> None:
    rng = random.Random("turns")
    for seed in range(20):
        match = new_match(Options(seats=3, draw=draw), seed=seed)
        while match.position.result is None:
            before = match.position
            action = rng.choice(legal_actions(before))
            match = match.apply(action)
            if match.position.result is not None:
                break
            if isinstance(action, EndTurn):
                assert match.position.turn == (before.turn + 1) % 3
            else:
                assert match.position.turn == before.turn
