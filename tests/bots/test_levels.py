"""Every level plays only legal actions, reproducibly, and the factory guards its names."""

from __future__ import annotations

import pytest

from protocol.bots import LEVELS, Bot, hint, make_bot
from protocol.engine import Options, new_match, seat_view
from protocol.errors import BadOptions

from .helpers import playout_views

REQUIRED = ("random", "heuristic", "easy", "medium", "hard", "expert")


def test_levels_include_the_issue_levels() -> None:
    assert set(REQUIRED) <= set(LEVELS)


def test_unknown_level_is_bad_options() -> None:
    with pytest.raises(BadOptions):
        make_bot("grandmaster")


@pytest.mark.parametrize("level", LEVELS)
def test_make_bot_gives_a_bot_of_that_level(level: str) -> None:
    bot = make_bot(level, seed=1)
    assert isinstance(bot, Bot)
    assert bot.level == level


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(
    "options",
    [
        Options(seats=2),
        Options(seats=3, kings_first=True),
        Options(seats=4),
        Options(seats=4, draw="start", kings_first=True),
        Options(seats=2, draw="until_playable"),
        Options(seats=3, draw="until_playable", kings_first=True),
    ],
    ids=[
        "2",
        "3-kings-first",
        "4",
        "4-draw-start-kings-first",
        "2-until-playable",
        "3-until-playable-kings-first",
    ],
)
def test_every_choice_is_legal_in_seeded_playouts(level: str, options: Options) -> None:
    seats = options.seats
    for game in range(3):
        bots = [make_bot(level, seed=f"{game}:{s}", budget_ms=None) for s in range(seats)]
        actions = 0
        for _, view, action in playout_views(bots, f"legal:{level}:{game}", options):
            assert action in view["legal"]
            actions += 1
        assert actions > seats


@pytest.mark.parametrize("level", LEVELS)
def test_the_same_seed_gives_the_same_game(level: str) -> None:
    def log(seed: str) -> list[str]:
        bots = [make_bot(level, seed=f"{seed}:{s}", budget_ms=None) for s in range(3)]
        return [a for _, _, a in playout_views(bots, "repeat", Options(seats=3))]

    assert log("x") == log("x")


def test_different_seeds_change_the_random_bot() -> None:
    def log(seed: str) -> list[str]:
        bots = [make_bot("random", seed=f"{seed}:{s}") for s in range(2)]
        return [a for _, _, a in playout_views(bots, "repeat", Options(seats=2))]

    assert log("a") != log("b")


def test_hint_is_legal_for_the_seat_to_move() -> None:
    match = new_match(Options(seats=4), seed="hint")
    for _ in range(12):
        seat = match.position.turn
        view = seat_view(match, seat)
        suggestion = hint(view)
        assert suggestion.text() in view["legal"]
        match = match.apply(suggestion, seat)
        if match.phase != "playing":
            break


def test_choose_refuses_a_view_off_turn() -> None:
    match = new_match(Options(seats=2), seed="off-turn")
    off = 1 - match.position.turn
    with pytest.raises(ValueError):
        make_bot("hard").choose(seat_view(match, off))
