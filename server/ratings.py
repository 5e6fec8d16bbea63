"""Ratings of people: OpenSkill's Plackett-Luce model over a match's final order.

Plackett-Luce rates free-for-all games of any number of players from their finishing order,
ties included, in one update (no pairwise approximation), and the library is maintained and
pure Python. Every seat is a one-player team. A bot seat is a player with the fixed rating
of its level (:data:`protocol.bots.calibration.LEVEL_RATINGS`): it counts in the update, but
its own rating never changes.

What people see is :func:`display`, the conservative estimate ``mu - 3 sigma`` scaled to a
familiar number (a new player starts at 1000): it only climbs as the model grows sure of a
player, so a newcomer's lucky first wins cannot top the board. No I/O here.
"""

from __future__ import annotations

from collections.abc import Sequence

from openskill.models import PlackettLuce

from protocol.bots.calibration import LEVEL_RATINGS

#: ``(mu, sigma)`` of a player.
Skill = tuple[float, float]
MODEL = PlackettLuce()
#: A new player's rating: the model's defaults (25, 25/3).
DEFAULT: Skill = (MODEL.mu, MODEL.sigma)
#: Rated matches a player needs to be listed on the "Top players" board.
MIN_MATCHES = 3
#: The shown rating is ``BASE + SCALE * (mu - 3 sigma)``.
BASE = 1000
SCALE = 40


def conservative(skill: Skill) -> float:
    """``mu - 3 sigma``: the skill the model is fairly sure a player has at least."""
    mu, sigma = skill
    return mu - 3 * sigma


def display(skill: Skill) -> int:
    """The rating people see (1000 for a new player)."""
    return round(BASE + SCALE * conservative(skill))


def bot_skill(level: str | None) -> Skill:
    """The fixed rating of a bot level (an unknown level counts as a new player)."""
    return LEVEL_RATINGS.get(level or "", DEFAULT)


def places(totals: Sequence[int], abandoned: frozenset[int] | set[int]) -> list[int]:
    """Each seat's place (1 is best, ties share one): the lowest total is first; every
    abandoned seat comes after all the others, tied with each other."""
    played = [t for seat, t in enumerate(totals) if seat not in abandoned]
    last = len(played) + 1
    return [
        last if seat in abandoned else 1 + sum(1 for other in played if other < total)
        for seat, total in enumerate(totals)
    ]


def rate(skills: Sequence[Skill], ranks: Sequence[int]) -> list[Skill]:
    """Every seat's new rating after a match that ended in ``ranks`` (1 is best)."""
    teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in skills]
    rated = MODEL.rate(teams, ranks=list(ranks))
    return [(team[0].mu, team[0].sigma) for team in rated]


__all__ = [
    "BASE",
    "DEFAULT",
    "MIN_MATCHES",
    "MODEL",
    "SCALE",
    "Skill",
    "bot_skill",
    "conservative",
    "display",
    "places",
    "rate",
]
