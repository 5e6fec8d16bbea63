"""Ratings of people: OpenSkill's Plackett-Luce model over a match's final order, and the
fair-play rules of who counts against whom (docs/ratings.md states them for players).

Plackett-Luce rates free-for-all games of any number of players from their finishing order,
ties included, in one update, and the library is maintained and pure Python. Every seat is
a one-player team. A bot seat is a player with the fixed rating of its level
(:data:`protocol.bots.calibration.LEVEL_RATINGS`): it counts in the update, but its own
rating never changes.

Each person is rated on their own view of the match (:func:`outcomes`): the seats counted
for them, ranked by total. Not counted for a person: seats abandoned by someone else (no one
gets a win nobody played for), a provisional person when they are established (a new
identity costs nothing, so it moves nobody who has settled), and an opponent
:data:`OUTCLASSED` or more below them that they beat (a win that tells nothing). A person
who abandoned takes the last place against everyone who played. A last place never raises
a rating.

What people see is :func:`display`, the model's ``mu`` scaled to a familiar number (a new
player starts at 1000); it carries a provisional mark for the first
:data:`PROVISIONAL_MATCHES` rated matches. No I/O here.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

from openskill.models import PlackettLuce

from protocol.bots.calibration import LEVEL_RATINGS

#: ``(mu, sigma)`` of a player.
Skill = tuple[float, float]
MODEL = PlackettLuce()
#: A new player's rating: the model's defaults (25, 25/3).
DEFAULT: Skill = (MODEL.mu, MODEL.sigma)
#: Rated matches after which a rating is established: until then it is provisional, it is
#: not on the "Top players" board and it moves no established player.
PROVISIONAL_MATCHES = 10
#: The rated matches a player needs to be listed on the "Top players" board.
MIN_MATCHES = PROVISIONAL_MATCHES
#: The shown rating is ``BASE + SCALE * (mu - DEFAULT mu)``: 1000 to start.
BASE = 1000
SCALE = 40
#: An opponent this far below you in ``mu`` (400 shown points, Elo's ten-to-one odds)
#: that you finish ahead of does not count for you.
OUTCLASSED = 10.0

Reason = Literal["placed", "abandoned", "no_opponents"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """One person's result in the rating: their new skill, the place they were rated at
    among the ``of`` seats counted for them, and why."""

    skill: Skill
    place: int
    of: int
    reason: Reason

    @property
    def moved(self) -> bool:
        """Whether this match counts as a rated match of theirs (someone was counted)."""
        return self.reason != "no_opponents"


def display(skill: Skill) -> int:
    """The rating people see (1000 for a new player)."""
    return round(BASE + SCALE * (skill[0] - DEFAULT[0]))


def board_score(skill: Skill) -> float:
    """What the "Top players" board orders by (higher is better)."""
    return skill[0]


def bot_skill(level: str | None) -> Skill:
    """The fixed rating of a bot level (an unknown level counts as a new player)."""
    return LEVEL_RATINGS.get(level or "", DEFAULT)


def places(totals: Sequence[int]) -> list[int]:
    """Each total's place (1 is best, ties share one): the lowest total is first."""
    return [1 + sum(1 for other in totals if other < total) for total in totals]


def rate(skills: Sequence[Skill], ranks: Sequence[int]) -> list[Skill]:
    """Every seat's new rating after a match that ended in ``ranks`` (1 is best)."""
    teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in skills]
    rated = MODEL.rate(teams, ranks=list(ranks))
    return [(team[0].mu, team[0].sigma) for team in rated]


def counted_for(
    seat: int,
    skills: Sequence[Skill],
    totals: Sequence[int],
    people: Collection[int],
    abandoned: Collection[int],
    provisional: Collection[int],
) -> list[int]:
    """The other seats whose results count for the person in ``seat`` (see the module)."""
    out = []
    for other in range(len(totals)):
        if other == seat or other in abandoned:
            continue
        if seat in abandoned:
            out.append(other)  # a leaver loses to everyone who played
            continue
        if other in people and other in provisional and seat not in provisional:
            continue
        if totals[seat] < totals[other] and skills[seat][0] - skills[other][0] >= OUTCLASSED:
            continue
        out.append(other)
    return out


def outcomes(
    skills: Sequence[Skill],
    totals: Sequence[int],
    people: Collection[int],
    abandoned: Collection[int],
    provisional: Collection[int],
) -> dict[int, Outcome]:
    """Each person's outcome of a finished match.

    ``skills`` and ``totals`` are per seat (bots at their level's rating), ``people`` the
    seats rated (people with an identity), ``abandoned`` those of them who abandoned the
    match, ``provisional`` those whose rating is not yet established.
    """
    out: dict[int, Outcome] = {}
    for seat in people:
        before = skills[seat]
        others = counted_for(seat, skills, totals, people, abandoned, provisional)
        if not others:
            out[seat] = Outcome(before, 1, 1, "no_opponents")
            continue
        counted = [seat, *others]
        if seat in abandoned:
            ranks = [len(counted), *places([totals[o] for o in others])]
            reason: Reason = "abandoned"
        else:
            ranks = places([totals[s] for s in counted])
            reason = "placed"
        after = rate([skills[s] for s in counted], ranks)[0]
        last = ranks[0] == max(ranks) and ranks.count(ranks[0]) < len(ranks)
        if last and after[0] > before[0]:
            after = (before[0], after[1])  # a last place never raises a rating
        out[seat] = Outcome(after, ranks[0], len(counted), reason)
    return out


__all__ = [
    "BASE",
    "DEFAULT",
    "MIN_MATCHES",
    "MODEL",
    "OUTCLASSED",
    "PROVISIONAL_MATCHES",
    "SCALE",
    "Outcome",
    "Reason",
    "Skill",
    "board_score",
    "bot_skill",
    "counted_for",
    "display",
    "outcomes",
    "places",
    "rate",
]
