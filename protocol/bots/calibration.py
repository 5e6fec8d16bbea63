"""Each bot level's place on the rating scale people are rated on.

The values are OpenSkill Plackett–Luce ratings (``mu``, ``sigma``; a new person starts at 25,
25/3) fitted from round-robin arena tables (docs/bots.md says how). Ratings of people treat a
bot seat as a player with this fixed rating, so a match against bots moves a person's rating by
what beating that level is worth.
"""

from __future__ import annotations

#: ``level -> (mu, sigma)``. Provisional until the arena calibration replaces them.
LEVEL_RATINGS: dict[str, tuple[float, float]] = {
    "random": (10.0, 2.0),
    "heuristic": (22.0, 2.0),
    "easy": (19.0, 2.0),
    "medium": (24.0, 2.0),
    "hard": (27.0, 2.0),
    "expert": (29.0, 2.0),
}

__all__ = ["LEVEL_RATINGS"]
