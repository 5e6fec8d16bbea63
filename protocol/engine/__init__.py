"""The Kings in the Corner rules engine: pure Python, standard library only, no I/O.

Typical use::

    from protocol.engine import Options, new_match, legal_actions, view

    match = new_match(Options(seats=2), seed="demo")
    actions = legal_actions(match.position)
    match = match.apply(actions[0])
    print(view(match, seat=0))
"""

from .actions import (
    DRAW,
    END_TURN,
    Action,
    Draw,
    EndTurn,
    Move,
    Play,
    action_from_text,
    action_from_wire,
    move_of,
    play_of,
)
from .cards import DECK, FITS_ON, fits, penalty
from .deal import deal, shuffled_deck
from .effects import Effects, effects
from .match import NEXT_HAND, Match, Phase, new_match, replay
from .notation import format_position, parse_position
from .options import Options
from .position import HandResult, Position
from .rules import CORNER_COMPLETE, REFILL, apply, explain, is_legal, legal_actions
from .table import CORNERS, PILES, SIDES
from .views import public_view, seat_view, view

__all__ = [
    "CORNERS",
    "CORNER_COMPLETE",
    "DECK",
    "DRAW",
    "END_TURN",
    "FITS_ON",
    "NEXT_HAND",
    "PILES",
    "REFILL",
    "SIDES",
    "Action",
    "Draw",
    "Effects",
    "EndTurn",
    "HandResult",
    "Match",
    "Move",
    "Options",
    "Phase",
    "Play",
    "Position",
    "action_from_text",
    "action_from_wire",
    "apply",
    "deal",
    "effects",
    "explain",
    "fits",
    "format_position",
    "is_legal",
    "legal_actions",
    "move_of",
    "new_match",
    "parse_position",
    "penalty",
    "play_of",
    "public_view",
    "replay",
    "seat_view",
    "shuffled_deck",
    "view",
]
