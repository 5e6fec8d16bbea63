"""Each bot level's place on the rating scale people are rated on.

The values are OpenSkill Plackett-Luce ratings (``mu``, ``sigma``; a new person starts at 25,
25/3), fitted by :mod:`.calibrate` from the round-robin arena matches of docs/bots.md
(*Calibration*). Ratings of people treat a bot seat as a player with this fixed rating, so a
match against bots moves a person's rating by what beating that level is worth.
"""

from __future__ import annotations

#: ``level -> (mu, sigma)``, fitted from 4-seat arena matches (docs/bots.md says how).
LEVEL_RATINGS: dict[str, tuple[float, float]] = {
    "random": (-0.62, 1.98),
    "heuristic": (30.10, 2.19),
    "easy": (9.90, 2.04),
    "medium": (30.92, 2.00),
    "hard": (31.95, 1.96),
    "expert": (31.59, 1.88),
}

__all__ = ["LEVEL_RATINGS"]
