"""What the rule variants add to a game view, worded for both terminal modes: the corners
each seat collected and the places under ``scoring: corners``, and the opening refill's
window under ``opening_refill`` (RULES.md, *Variants*; docs/engine.md, *Views*). A view of
the standard game has none of these fields, and then nothing here says anything."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from clients.i18n import texts


@dataclass(frozen=True, slots=True)
class Standing:
    """One seat's line of a corners match's result: its place (1 first, shared on a tie),
    the corners it collected and the penalty it was left with."""

    place: int
    seat: int
    corners: int
    penalty: int


def collected(game: Mapping[str, Any]) -> list[int] | None:
    """The corners each seat collected (None: not corners scoring)."""
    value = game.get("collected")
    return list(value) if value is not None else None


def standings(game: Mapping[str, Any]) -> list[Standing]:
    """A corners match's seats, best first: the server's ``places`` once the match is over,
    else (while it is played) the same order computed from the view, by more corners and
    then the lower penalty, ties sharing a place (1, 2, 2, 4). Empty outside corners
    scoring."""
    corners = collected(game)
    if corners is None:
        return []
    result = game.get("result") or {}
    penalties = list(result.get("penalties") or game.get("totals") or [0] * len(corners))
    places = game.get("places")
    if places is None:
        key = [(-corners[i], penalties[i]) for i in range(len(corners))]
        places = [1 + sum(1 for other in key if other < mine) for mine in key]
    rows = [Standing(places[i], i, corners[i], penalties[i]) for i in range(len(corners))]
    return sorted(rows, key=lambda row: (row.place, row.seat))


def refill_note(game: Mapping[str, Any], lang: str) -> str | None:
    """While the opening refill's window is open, what it does (None otherwise)."""
    if not game.get("refill_open") or game.get("phase") != "playing":
        return None
    words = texts(lang)
    return words.get("tui.status.refill_open") or words["status.refill_open"]


def place_lines(game: Mapping[str, Any], names: Callable[[int], str], lang: str) -> list[str]:
    """Under corners scoring, how the places are given, then each seat's place, corners
    collected and penalty, best first (``names`` names a seat); none otherwise."""
    rows = standings(game)
    if not rows:
        return []
    words = texts(lang)
    template = words["tui.place_row"]
    out = [words["result.by_corners"]]
    for row in rows:
        line = template.format(place=row.place, name=names(row.seat), n=row.corners, p=row.penalty)
        out.append("  " + line)
    return out


__all__ = ["Standing", "collected", "place_lines", "refill_note", "standings"]
