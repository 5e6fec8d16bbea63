"""Ratings of people: OpenSkill's Plackett-Luce model over a match's final order, and the
fair-play rules of who counts against whom (docs/ratings.md states them for players).

Plackett-Luce rates free-for-all games of any number of players from their finishing order,
ties included, in one update, and the library is maintained and pure Python. Every seat is
a one-player team. A bot seat is a player with the fixed rating of its level
(:data:`protocol.bots.calibration.LEVEL_RATINGS`): it counts in the update, but its own
rating never changes.

Each person is rated on their own view of the match (:func:`outcomes`): the seats counted
for them, ranked by total (under ``scoring: corners``, a one-hand match, by the match's
places: corners collected, then penalty; the caller passes those places as the totals). Not
counted for a person: seats abandoned by someone else or finished by a bot for someone
kicked (no one gets a win nobody played for), another person unless both of them are
established (a new identity costs nothing, so it moves nobody and nobody moves it: bots
alone place a provisional player), and an opponent :data:`OUTCLASSED` or more below them
that they beat (a win that tells nothing). A person who abandoned takes the last place
against everyone who played.

Then the move is bounded, in this order: one match moves a rating by at most :data:`MOVE`
shown points (:func:`bounded`); a last place, and a kick, never raise it; and no match
lifts it past :data:`LIFT` above the person's *bot rating*, the rating the same rules give
them from their results against bots alone (which no number of identities can raise, and
which results against bots raise as well). So what people give each other is bounded by
what each showed against bots, and a pyramid of identities cannot stack.

What people see is :func:`display`, the model's ``mu`` scaled to a familiar number (a new
player starts at 1000); it carries a provisional mark for the first
:data:`PROVISIONAL_MATCHES` rated matches. No I/O here.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from openskill.models import PlackettLuce

from protocol.bots.calibration import LEVEL_RATINGS

#: ``(mu, sigma)`` of a player.
Skill = tuple[float, float]
MODEL = PlackettLuce()
#: A new player's rating: the model's defaults (25, 25/3).
DEFAULT: Skill = (MODEL.mu, MODEL.sigma)
#: Rated matches after which a rating is established: until then it is provisional, only
#: bots count for it, it counts for nobody else and it is not on the "Top players" board.
PROVISIONAL_MATCHES = 10
#: The rated matches a player needs to be listed on the "Top players" board.
MIN_MATCHES = PROVISIONAL_MATCHES
#: The shown rating is ``BASE + SCALE * (mu - DEFAULT mu)``: 1000 to start.
BASE = 1000
SCALE = 40
#: An opponent this far below you in ``mu`` (400 shown points, Elo's ten-to-one odds)
#: that you finish ahead of does not count for you.
OUTCLASSED = 10.0
#: The most one match moves a rating, in shown points. A move the model makes up to
#: :data:`BEND` is kept as it is; past it, the rest is squeezed so the whole stays within
#: ``MOVE`` (smoothly: a better place still moves the rating more).
MOVE = 100
BEND = 50
#: No match lifts a rating more than this many shown points above the person's bot
#: rating (200: Elo's three-to-one odds).
LIFT = 200

Reason = Literal["placed", "abandoned", "no_opponents"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """One person's result in the rating: their new skill, the place they were rated at
    among the ``of`` seats counted for them, why, and their new bot rating (``bots``:
    the same rules over the bots counted for them only)."""

    skill: Skill
    place: int
    of: int
    reason: Reason
    bots: Skill

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


def bounded(before: float, after: float) -> float:
    """``after`` (a ``mu``) with its move from ``before`` bounded by :data:`MOVE` shown
    points: kept up to :data:`BEND`, the part past it squeezed (``tanh``) into the rest."""
    step = (after - before) * SCALE
    size = abs(step)
    if size > BEND:
        size = BEND + (MOVE - BEND) * math.tanh((size - BEND) / (MOVE - BEND))
    return before + math.copysign(size, step) / SCALE


def counted_for(
    seat: int,
    skills: Sequence[Skill],
    totals: Sequence[int],
    people: Collection[int],
    abandoned: Collection[int],
    provisional: Collection[int],
    kicked: Collection[int] = (),
) -> list[int]:
    """The other seats whose results count for the person in ``seat`` (see the module)."""
    out = []
    for other in range(len(totals)):
        if other == seat or other in abandoned or other in kicked:
            continue
        if seat in abandoned:
            out.append(other)  # a leaver loses to everyone who played
            continue
        if other in people and (seat in provisional or other in provisional):
            continue  # people count for each other once both are established
        if totals[seat] < totals[other] and skills[seat][0] - skills[other][0] >= OUTCLASSED:
            continue
        out.append(other)
    return out


def _settled(
    seat: int,
    start: Skill,
    skills: Sequence[Skill],
    totals: Sequence[int],
    others: list[int],
    leaver: bool,
    kicked: bool,
) -> tuple[Skill, list[int]]:
    """``start`` rated against ``others`` (the seat's place among them, last for a
    leaver), its move bounded, never raised by a last place or a kick; and the ranks."""
    if leaver:
        ranks = [len(others) + 1, *places([totals[o] for o in others])]
    else:
        ranks = places([totals[s] for s in [seat, *others]])
    model = rate([start, *(skills[o] for o in others)], ranks)[0]
    mu = bounded(start[0], model[0])
    last = ranks[0] == max(ranks) and ranks.count(ranks[0]) < len(ranks)
    if (last or kicked) and mu > start[0]:
        mu = start[0]  # a last place never raises a rating, nor does a kick
    return (mu, model[1]), ranks


def outcomes(
    skills: Sequence[Skill],
    totals: Sequence[int],
    people: Collection[int],
    abandoned: Collection[int],
    provisional: Collection[int],
    kicked: Collection[int] = (),
    bots: Mapping[int, Skill] | None = None,
) -> dict[int, Outcome]:
    """Each person's outcome of a finished match.

    ``skills`` and ``totals`` are per seat (bots at their level's rating; ``totals`` is
    whatever orders the seats, lower first: penalty totals, or places), ``people`` the
    seats rated (people with an identity), ``abandoned`` those of them who abandoned the
    match, ``kicked`` those kicked out of it (a bot finished their seat), ``provisional``
    those whose rating is not yet established, and ``bots`` each person's bot rating
    (their rating where not given).
    """
    out: dict[int, Outcome] = {}
    for seat in people:
        before = skills[seat]
        mine = (bots or {}).get(seat, before)
        others = counted_for(seat, skills, totals, people, abandoned, provisional, kicked)
        if not others:
            out[seat] = Outcome(before, 1, 1, "no_opponents", mine)
            continue
        leaver, was_kicked = seat in abandoned, seat in kicked
        after, ranks = _settled(seat, before, skills, totals, others, leaver, was_kicked)
        against_bots = [o for o in others if o not in people]
        if against_bots:
            mine, _ = _settled(seat, mine, skills, totals, against_bots, leaver, was_kicked)
        ceiling = mine[0] + LIFT / SCALE
        if after[0] > max(before[0], ceiling):
            after = (max(before[0], ceiling), after[1])  # people lift no one past it
        reason: Reason = "abandoned" if leaver else "placed"
        out[seat] = Outcome(after, ranks[0], len(ranks), reason, mine)
    return out


__all__ = [
    "BASE",
    "BEND",
    "DEFAULT",
    "LIFT",
    "MIN_MATCHES",
    "MODEL",
    "MOVE",
    "OUTCLASSED",
    "PROVISIONAL_MATCHES",
    "SCALE",
    "Outcome",
    "Reason",
    "Skill",
    "board_score",
    "bot_skill",
    "bounded",
    "counted_for",
    "display",
    "outcomes",
    "places",
    "rate",
]
