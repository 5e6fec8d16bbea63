"""A bot rebuilt for every decision from its level, seed and memory (what the server's bot
workers do) decides exactly as one bot object asked in order."""

from __future__ import annotations

import pickle

import pytest

from protocol.bots import LEVELS, Memory, RememberingBot, decide, follow_plan, make_bot
from protocol.engine import Options, new_match, seat_view


@pytest.mark.parametrize("level", LEVELS)
def test_decide_with_memory_answers_like_one_bot_object(level: str) -> None:
    options = Options(seats=3)
    match = new_match(options, seed=f"memory:{level}")
    objects = [make_bot(level, seed=f"seat{s}", budget_ms=None) for s in range(3)]
    memories: list[Memory | None] = [None, None, None]
    decisions = 0
    followed = 0
    while match.phase != "finished" and decisions < 150:
        if match.phase == "hand_over":
            match = match.next_hand()
            continue
        seat = match.position.turn
        view = seat_view(match, seat)
        expected = objects[seat].choose(view)
        # The memory crosses a process boundary in the server: it must survive pickling.
        carried = pickle.loads(pickle.dumps(memories[seat]))
        thought = decide(level, f"seat{seat}", carried, view, budget_ms=None)
        # The server plays the rest of a planned turn without a worker: the same answer.
        quick = follow_plan(carried, view)
        if quick is not None:
            assert quick == thought
            followed += 1
        action, memories[seat] = thought
        assert action == expected, f"decision {decisions} of seat {seat}"
        decisions += 1
        match = match.apply(action, seat)
    assert decisions >= 100
    if level != "random":
        assert followed > 10  # the planned rest of a turn was carried, not re-planned


def test_without_its_memory_a_bot_answers_differently() -> None:
    """The memory is not decoration: the random level draws from its stream every time."""
    match = new_match(Options(seats=2), seed="forget")
    memories: list[Memory | None] = [None, None]
    differed = 0
    for _ in range(40):
        if match.phase != "playing":
            break
        seat = match.position.turn
        view = seat_view(match, seat)
        action, memories[seat] = decide("random", seat, memories[seat], view)
        differed += decide("random", seat, None, view)[0] != action
        match = match.apply(action, seat)
    assert differed > 0


def test_every_level_gives_a_bot_that_remembers() -> None:
    for level in LEVELS:
        assert isinstance(make_bot(level, seed=1), RememberingBot)
