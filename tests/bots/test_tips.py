"""The arena's ``tips`` opponent: legal, plain, kings first, every fitting card, pile moves."""

from __future__ import annotations

import pytest

from protocol.bots.arena import main as arena_main
from protocol.bots.levels import ARENA_LEVELS, LEVELS, make_bot
from protocol.bots.model import CARD_ID, EMPTY, MOVE, PILE_ID, PLAY, do_move, turn_moves
from protocol.bots.tips import TipsBot, tips_step
from protocol.engine import Options
from protocol.errors import BadOptions

from .helpers import playout_views


def _hand(*cards: str) -> int:
    return sum(1 << CARD_ID[c] for c in cards)


def _piles(**tops: str | tuple[str, str]) -> tuple[int, ...]:
    out = [EMPTY] * 8
    for name, cards in tops.items():
        base, top = (cards, cards) if isinstance(cards, str) else cards
        out[PILE_ID[name]] = CARD_ID[base] << 6 | CARD_ID[top]
    return tuple(out)


def _turn(
    hand: int, piles: tuple[int, ...]
) -> tuple[int, tuple[int, ...], list[tuple[int, int, int]]]:
    path = []
    while hand:
        step = tips_step(hand, piles, {})
        if step is None:
            break
        assert step in set(turn_moves(hand, piles))
        hand, piles = do_move(hand, piles, step)
        path.append(step)
    return hand, piles, path


def test_tips_is_an_arena_level_not_a_room_level() -> None:
    assert "tips" in ARENA_LEVELS and "tips" not in LEVELS
    assert set(LEVELS) <= set(ARENA_LEVELS)
    assert isinstance(make_bot("tips", 1, arena=True), TipsBot)
    with pytest.raises(BadOptions):
        make_bot("tips", 1)


def test_a_king_goes_to_an_open_corner_before_anything_else() -> None:
    piles = _piles(N="8C", E="5H", S="QD", W="2S")
    step = tips_step(_hand("7H", "KS", "4C"), piles, {})
    assert step == (PLAY, CARD_ID["KS"], PILE_ID["NE"])


def test_a_king_based_side_pile_moves_to_an_open_corner_first() -> None:
    piles = _piles(N=("KC", "QH"), E="5H", S="9D", W="2S")
    assert tips_step(_hand("4C", "8S"), piles, {}) == (MOVE, PILE_ID["N"], PILE_ID["NE"])


def test_every_fitting_card_is_played_highest_first() -> None:
    piles = _piles(N="8C", E="5H", S="QD", W="2S", NE=("KS", "KS"), SE="KH", SW="KD", NW="KC")
    hand, _, path = _turn(_hand("7H", "6C", "4C", "JC", "9D"), piles)
    assert path[:4] == [
        (PLAY, CARD_ID["JC"], PILE_ID["S"]),
        (PLAY, CARD_ID["7H"], PILE_ID["N"]),
        (PLAY, CARD_ID["6C"], PILE_ID["N"]),
        (PLAY, CARD_ID["4C"], PILE_ID["E"]),
    ]
    # then 5H-4C moves onto 6C and QD-JC onto KS, and the space opened takes the last card
    assert path[4:] == [
        (MOVE, PILE_ID["E"], PILE_ID["N"]),
        (MOVE, PILE_ID["S"], PILE_ID["NE"]),
        (PLAY, CARD_ID["9D"], PILE_ID["E"]),
    ]
    assert hand == 0


def test_piles_move_to_open_a_space_which_is_then_filled() -> None:
    piles = _piles(N=("8C", "7H"), E="9D", S="3S", W="2D", NE="KS", SE="KH", SW="KD", NW="KC")
    hand, after, path = _turn(_hand("5C", "10S"), piles)
    assert path[:2] == [(MOVE, PILE_ID["N"], PILE_ID["E"]), (MOVE, PILE_ID["W"], PILE_ID["S"])]
    # the highest card fills the first space, the pile now fitting on it moves, 5C fills
    assert path[2:] == [
        (PLAY, CARD_ID["10S"], PILE_ID["N"]),
        (MOVE, PILE_ID["E"], PILE_ID["N"]),
        (PLAY, CARD_ID["5C"], PILE_ID["E"]),
    ]
    assert hand == 0 and after[PILE_ID["N"]] == CARD_ID["10S"] << 6 | CARD_ID["7H"]


@pytest.mark.parametrize(
    "options",
    [Options(seats=2), Options(seats=4, kings_first=True), Options(seats=3, draw="until_playable")],
    ids=["2", "4-kings-first", "3-until-playable"],
)
def test_every_choice_is_legal_and_reproducible(options: Options) -> None:
    runs = []
    for _ in range(2):
        bots = [make_bot("tips", f"t:{s}", arena=True) for s in range(options.seats)]
        actions = []
        for _, view, action in playout_views(bots, "tips-legal", options):
            assert action in view["legal"]
            actions.append(action)
        runs.append(actions)
    assert runs[0] == runs[1] and len(runs[0]) > options.seats


def test_the_arena_accepts_tips_opponents(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        arena_main(
            [
                "--candidate",
                "heuristic",
                "--opponents",
                "tips",
                "--matches",
                "2",
                "--seats",
                "2",
                "--budget-ms",
                "0",
                "--json",
            ]
        )
        == 0
    )
    assert '"opponents": ["tips"]' in capsys.readouterr().out
