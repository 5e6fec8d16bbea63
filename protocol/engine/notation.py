"""A one-line position notation, so tests and logs can state positions as text.

Example (two seats, seat 0 to move, the unlisted cards in the stock)::

    N=8C,7H E=9D S=- W=KS NE=- SE=- SW=- NW=- ; hands 4S,3H / QD,2C ; stock * ; turn 0 ; dealer 1

Fields are separated by `` ; ``. ``hands`` lists each seat's hand (``-`` when empty);
``stock`` lists the stock from its top, or ``*`` for every card not named elsewhere in
canonical order. Optional fields: ``moved 1``, ``played 1`` (a card from the hand was played
this turn), ``passes N``, ``opening 1`` (the hand's first turn under ``opening_refill``) and
``collected 1,0`` (corners collected per seat under ``scoring: corners``). Piles are base
first.
"""

from __future__ import annotations

from dataclasses import replace

from .cards import CARDS, DECK
from .options import Options
from .position import Position
from .table import PILES


def _cards(text: str) -> tuple[str, ...]:
    if text == "-":
        return ()
    cards = tuple(text.split(","))
    for card in cards:
        if card not in CARDS:
            raise ValueError(f"not a card code: {card!r}")
    return cards


def _join(cards: tuple[str, ...]) -> str:
    return ",".join(cards) if cards else "-"


def format_position(position: Position) -> str:
    """The notation of ``position`` (the inverse of :func:`parse_position`)."""
    piles = " ".join(f"{name}={_join(p)}" for name, p in zip(PILES, position.piles, strict=True))
    hands = " / ".join(_join(h) for h in position.hands)
    fields = [
        piles,
        f"hands {hands}",
        f"stock {_join(position.stock)}",
        f"turn {position.turn}",
        f"dealer {position.dealer}",
    ]
    if position.moved:
        fields.append("moved 1")
    if position.played:
        fields.append("played 1")
    if position.passes:
        fields.append(f"passes {position.passes}")
    if position.opening:
        fields.append("opening 1")
    if position.collected:
        fields.append(f"collected {','.join(str(n) for n in position.collected)}")
    return " ; ".join(fields)


def parse_position(text: str, options: Options | None = None) -> Position:
    """Build a position from its notation. ``options.seats`` follows the number of hands."""
    fields = [f.strip() for f in text.split(";")]
    piles: dict[str, tuple[str, ...]] = {}
    for item in fields[0].split():
        name, _, cards = item.partition("=")
        if name not in PILES:
            raise ValueError(f"not a pile: {name!r}")
        piles[name] = _cards(cards)
    values: dict[str, str] = {}
    for field in fields[1:]:
        key, _, value = field.partition(" ")
        values[key] = value.strip()
    hands = tuple(_cards(h.strip()) for h in values["hands"].split("/"))
    named = [c for h in hands for c in h] + [c for p in piles.values() for c in p]
    if values.get("stock", "*") == "*":
        seen = set(named)
        stock = tuple(c for c in DECK if c not in seen)
    else:
        stock = _cards(values["stock"])
    if len(set(named) | set(stock)) != len(named) + len(stock):
        raise ValueError("a card appears twice")
    options = replace(options or Options(seats=len(hands)), seats=len(hands))
    return Position(
        options=options,
        hands=hands,
        piles=tuple(piles.get(name, ()) for name in PILES),
        stock=stock,
        dealer=int(values.get("dealer", "0")),
        turn=int(values.get("turn", "0")),
        moved=values.get("moved", "0") == "1",
        passes=int(values.get("passes", "0")),
        played=values.get("played", "0") == "1",
        opening=values.get("opening", "0") == "1",
        collected=_counts(values.get("collected"), len(hands), options.scoring == "corners"),
    )


def _counts(text: str | None, seats: int, corners: bool) -> tuple[int, ...]:
    """The ``collected`` field: given counts, else none collected under ``scoring:
    corners`` and no counts otherwise."""
    if text is not None:
        counts = tuple(int(n) for n in text.split(","))
        if len(counts) != seats:
            raise ValueError("collected needs one count per seat")
        return counts
    return (0,) * seats if corners else ()
