"""Calibration tooling: fit every bot level onto one OpenSkill rating scale from arena matches.

Not part of any bot's decisions (the bots never import it); it is the only place that needs
``openskill``. Input is the ``--games`` JSON lines of ``kings-corner arena`` runs (who sat
where and the match totals). Each match is one Plackett-Luce game, seats ranked by their
totals (lowest first, ties share a rank). A level in several seats of one match is rated as
that many players with the level's rating; the level takes the sum of their ``mu`` changes
and the smallest of their ``sigma``. Everyone starts at the model's defaults (``mu`` 25,
``sigma`` 25/3); the matches are rated in 20 seeded shuffled orders and averaged (:func:`fit`)::

    python -m protocol.bots.calibrate games.jsonl [more.jsonl ...]

prints a markdown table and the ``LEVEL_RATINGS`` literal for :mod:`.calibration`.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from .levels import LEVELS


def ranks_of(totals: Sequence[int]) -> list[int]:
    """Competition ranks of match totals, lowest total first (1, 1, 3 for 5, 5, 9)."""
    return [1 + sum(1 for other in totals if other < t) for t in totals]


def fit_once(records: Sequence[dict[str, Any]], seed: int) -> dict[str, tuple[float, float]]:
    """One online pass of OpenSkill's Plackett-Luce model over ``records`` in a seeded order."""
    from openskill.models import PlackettLuce  # calibration tooling only

    model = PlackettLuce()
    order = list(records)
    random.Random(seed).shuffle(order)
    ratings: dict[str, tuple[float, float]] = {}
    for record in order:
        levels: list[str] = record["levels"]
        for level in levels:
            ratings.setdefault(level, (model.mu, model.sigma))
        teams = [[model.rating(*ratings[level])] for level in levels]
        rated = model.rate(teams, ranks=[float(r) for r in ranks_of(record["totals"])])
        delta: dict[str, float] = {}
        sigma: dict[str, float] = {}
        for level, team in zip(levels, rated, strict=True):
            delta[level] = delta.get(level, 0.0) + team[0].mu - ratings[level][0]
            sigma[level] = min(sigma.get(level, ratings[level][1]), team[0].sigma)
        for level, change in delta.items():
            ratings[level] = (ratings[level][0] + change, sigma[level])
    return ratings


def fit(
    games: Iterable[dict[str, Any]], seed: int = 0, orders: int = 20
) -> dict[str, tuple[float, float]]:
    """``level -> (mu, sigma)`` fitted from match records (``levels``, ``totals``).

    An online rating depends on the order the matches come in, so the fit is ``orders``
    passes in seeded shuffled orders: ``mu`` is their mean, ``sigma`` combines the model's
    own ``sigma`` with the spread of ``mu`` across the orders.
    """
    records = [g for g in games if len(set(g["levels"])) > 1]
    if not records:
        return {}
    passes = [fit_once(records, seed * 1000 + k) for k in range(orders)]
    out: dict[str, tuple[float, float]] = {}
    for level in passes[0]:
        mus = [p[level][0] for p in passes]
        mean = sum(mus) / len(mus)
        spread = sum((m - mean) ** 2 for m in mus) / len(mus)
        model_var = sum(p[level][1] ** 2 for p in passes) / len(passes)
        out[level] = (mean, math.sqrt(model_var + spread))
    return out


def read_games(paths: Sequence[str]) -> list[dict[str, Any]]:
    """Every match record in the given JSON-lines files."""
    out: list[dict[str, Any]] = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            out.extend(json.loads(line) for line in f if line.strip())
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m protocol.bots.calibrate", description=__doc__)
    parser.add_argument("games", nargs="+", help="JSON-lines files written by arena --games")
    parser.add_argument("--seed", type=int, default=0, help="order in which matches are rated")
    parser.add_argument("--seats", type=int, default=4, help="rate matches of this many seats")
    args = parser.parse_args(argv)
    games = [g for g in read_games(args.games) if len(g["levels"]) == args.seats]
    ratings = fit(games, args.seed)
    played = {level: 0 for level in ratings}
    for g in games:
        for level in set(g["levels"]):
            played[level] += len(set(g["levels"])) > 1
    order = sorted(ratings, key=lambda lv: (LEVELS.index(lv) if lv in LEVELS else 99, lv))
    print(f"{len(games)} matches")
    print("| level | mu | sigma | mu - 3 sigma | matches |")
    print("|---|---|---|---|---|")
    for level in order:
        mu, sigma = ratings[level]
        print(f"| {level} | {mu:.2f} | {sigma:.2f} | {mu - 3 * sigma:.2f} | {played[level]} |")
    print("LEVEL_RATINGS = {")
    for level in order:
        mu, sigma = ratings[level]
        print(f'    "{level}": ({mu:.2f}, {sigma:.2f}),')
    print("}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
