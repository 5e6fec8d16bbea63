"""Room options: the number of seats and the variants of RULES.md, as declared in
protocol/options_table.py (their bounds, defaults and refusals come from there)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from protocol.errors import BadOptions
from protocol.options_table import RULES, DrawRule, Scoring, option

__all__ = ["DrawRule", "Options", "Scoring"]


@dataclass(frozen=True, slots=True)
class Options:
    """Rules of one match; never changed inside it.

    ``target``: the match ends when a total reaches it (1..500).
    ``draw``: ``end`` draws to end a turn, ``start`` draws when a turn begins,
    ``until_playable`` draws on request while nothing can be played (and a turn ends only
    after a play, or on an empty stock).
    ``kings_first``: a turn cannot end while the seat holds a king and a corner is empty.
    ``opening_refill``: in the first turn of a hand, until the mover plays a card from its
    hand, a pile move that empties a side space refills it from the top of the stock.
    ``scoring``: ``penalty`` adds penalties over hands up to ``target``; ``corners`` collects
    each corner completed from king to ace for the seat that completed it, the match being
    one hand placed by corners collected, then by the lower penalty.
    """

    seats: int = option("seats").default
    target: int = option("target").default
    draw: DrawRule = option("draw").default
    kings_first: bool = option("kings_first").default
    opening_refill: bool = option("opening_refill").default
    scoring: Scoring = option("scoring").default

    def __post_init__(self) -> None:
        for spec in RULES:
            if not spec.accepts(getattr(self, spec.name)):
                raise BadOptions(spec.explain(), reason=spec.name)

    def to_dict(self) -> dict[str, Any]:
        """The rules by name, as a match record keeps them (:meth:`from_dict` reads them
        back): a rule declared ``omit_default`` is left out at its default, so the records
        of matches that do not use it stay as they were before it existed."""
        out = asdict(self)
        for spec in RULES:
            if spec.omit_default and out[spec.name] == spec.default:
                del out[spec.name]
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Options:
        unknown = set(data) - {spec.name for spec in RULES}
        if unknown:
            names = sorted(unknown)
            raise BadOptions(
                f"Unknown options: {', '.join(names)}.", reason="unknown", unknown=names
            )
        return cls(**data)
