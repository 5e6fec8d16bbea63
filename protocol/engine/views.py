"""What one viewer may see: a seat sees its own hand, a spectator sees no hand at all.

Views are JSON-ready dictionaries computed from the match. No view ever holds another
seat's card or the stock order; the hands left at the end of a hand are public (RULES.md),
so they appear in ``result`` once the hand is over.
"""

from __future__ import annotations

from typing import Any

from .match import Match
from .position import HandResult
from .rules import legal_actions
from .table import PILES


def result_dict(result: HandResult) -> dict[str, Any]:
    """A finished hand's result in JSON form."""
    return {
        "reason": result.reason,
        "out": result.out,
        "penalties": list(result.penalties),
        "left": [list(hand) for hand in result.left],
    }


def public_view(match: Match) -> dict[str, Any]:
    """The view of a spectator: everything public, no hand."""
    pos = match.position
    phase = match.phase
    return {
        "phase": phase,
        "hand_no": match.hand_index + 1,
        "seats": pos.seats,
        "dealer": pos.dealer,
        "turn": pos.turn,
        "moved": pos.moved,
        "piles": {name: list(pile) for name, pile in zip(PILES, pos.piles, strict=True)},
        "stock": len(pos.stock),
        "counts": [len(hand) for hand in pos.hands],
        "target": match.options.target,
        "totals": list(match.totals),
        "scores": [list(r.penalties) for r in match.results],
        "result": result_dict(pos.result) if pos.result is not None else None,
        "winners": list(match.winners) if phase == "finished" else None,
    } | _variant_fields(match)


def _variant_fields(match: Match) -> dict[str, Any]:
    """The public fields only a variant has (left out otherwise, so a view of the standard
    game stays as it always was): under ``opening_refill``, ``refill_open`` (the window is open:
    a pile move emptying a side space refills it from the stock); under ``scoring:
    corners``, ``collected`` (corners per seat) and, once finished, ``places``."""
    options, pos = match.options, match.position
    out: dict[str, Any] = {}
    if options.opening_refill:
        out["refill_open"] = pos.refill_open
    if options.scoring == "corners":
        out["collected"] = list(pos.collected)
        out["places"] = list(match.places) if match.phase == "finished" else None
    return out


def seat_view(match: Match, seat: int, public: dict[str, Any] | None = None) -> dict[str, Any]:
    """The public view plus the seat's own hand and, on its turn, its legal actions.

    ``public`` may pass this match's :func:`public_view` when computing several seats'
    views of one state, so the shared part is built once.
    """
    view = dict(public) if public is not None else public_view(match)
    pos = match.position
    view["you"] = seat
    view["hand"] = list(pos.hands[seat])
    on_turn = pos.turn == seat and pos.result is None
    view["legal"] = [a.text() for a in legal_actions(pos)] if on_turn else []
    return view


def view(match: Match, seat: int | None) -> dict[str, Any]:
    """The view of ``seat``, or of a spectator when ``seat`` is None."""
    return public_view(match) if seat is None else seat_view(match, seat)
