"""The rating fit behind LEVEL_RATINGS orders levels by how they finish, and the table
holds one (mu, sigma) per level."""

from __future__ import annotations

from protocol.bots import LEVELS
from protocol.bots.calibrate import fit, ranks_of
from protocol.bots.calibration import LEVEL_RATINGS


def test_ranks_share_ties_and_put_the_lowest_total_first() -> None:
    assert ranks_of([5, 5, 9]) == [1, 1, 3]
    assert ranks_of([30, 4, 12, 4]) == [4, 1, 3, 1]


def test_a_level_that_finishes_ahead_is_rated_above() -> None:
    games = []
    for k in range(60):
        # "strong" finishes first 2 matches in 3, in whichever seat it sits.
        seat = k % 4
        levels = ["weak"] * 4
        levels[seat] = "strong"
        totals = [10 + s for s in range(4)]
        if k % 3 == 2:
            totals[seat] = 40
        else:
            totals[seat] = 0
        games.append({"levels": levels, "totals": totals})
    ratings = fit(games)
    assert ratings["strong"][0] > ratings["weak"][0] + 2
    assert ratings["strong"][1] < 25 / 3


def test_mirror_matches_teach_nothing() -> None:
    games = [{"levels": ["a"] * 4, "totals": [0, 5, 9, 30]}] * 10
    assert fit([*games, {"levels": ["a", "b"], "totals": [0, 30]}])["a"][0] > 25
    assert fit(games) == {}


def test_every_level_has_a_rating_in_the_order_of_strength() -> None:
    assert set(LEVEL_RATINGS) == set(LEVELS)
    for _, sigma in LEVEL_RATINGS.values():
        assert 0 < sigma < 25 / 3
    mu = {level: rating[0] for level, rating in LEVEL_RATINGS.items()}
    # What the arena shows: the search levels all finish ahead of the plain script, which
    # is far ahead of the careless player, who is ahead of random moves.
    assert mu["random"] < mu["easy"] < mu["heuristic"] < min(mu["medium"], mu["hard"], mu["expert"])
