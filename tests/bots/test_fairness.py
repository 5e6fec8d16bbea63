"""A bot decides from its seat's view only: hidden cards cannot change its decision."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from protocol.bots import LEVELS, make_bot
from protocol.engine import Match, Options, Position, new_match, seat_view

from .helpers import playout_views


def reshuffle_hidden(match: Match, seat: int, rng: random.Random) -> Match:
    """The same match with every card the seat cannot see dealt again: the other hands
    (same sizes) and the stock (same size) get a fresh shuffle of those cards."""
    pos = match.position
    hidden = [c for s, hand in enumerate(pos.hands) if s != seat for c in hand]
    hidden += pos.stock
    rng.shuffle(hidden)
    hands: list[tuple[str, ...]] = []
    k = 0
    for s, hand in enumerate(pos.hands):
        if s == seat:
            hands.append(hand)
        else:
            hands.append(tuple(hidden[k : k + len(hand)]))
            k += len(hand)
    other = Position(
        pos.options,
        tuple(hands),
        pos.piles,
        tuple(hidden[k:]),
        pos.dealer,
        pos.turn,
        pos.moved,
        pos.passes,
    )
    return replace(match, position=other)


@pytest.mark.parametrize("level", LEVELS)
def test_hidden_cards_do_not_change_the_decision(level: str) -> None:
    rng = random.Random(level)
    players = [make_bot("heuristic", seed=s) for s in range(4)]
    checked = 0
    for match, view, _ in playout_views(players, f"fair:{level}", Options(seats=4), 2):
        seat = view["you"]
        if view["moved"]:
            continue
        twin = reshuffle_hidden(match, seat, rng)
        assert twin.position.hands != match.position.hands
        twin_view = seat_view(twin, seat)
        assert twin_view == view
        first = make_bot(level, seed="same", budget_ms=None).choose(view)
        second = make_bot(level, seed="same", budget_ms=None).choose(twin_view)
        assert first == second
        checked += 1
    assert checked >= 8


def test_a_cheating_read_would_be_caught() -> None:
    """The twin really differs where a cheat would look: the next seat's hand."""
    match = new_match(Options(seats=4), seed="cheat")
    seat = match.position.turn
    twin = reshuffle_hidden(match, seat, random.Random(1))
    nxt = (seat + 1) % 4
    assert set(twin.position.hands[nxt]) != set(match.position.hands[nxt])
    assert twin.position.hands[seat] == match.position.hands[seat]
