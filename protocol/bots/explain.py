"""Why a suggested action is good, as a stable reason code and its parameters.

:func:`explain` names the seed's strategy tip an action follows (kings to the corners
early, merge piles to open side spaces, keep cards that follow each other, mind what the
next player may dump on an empty space), so a client can say it in the player's language.
Cards are card codes (``"6S"``), piles are pile names (``"N"``, ``"NE"``).

Codes and their params (``explain`` returns one of :data:`CODES`):

* ``goes_out`` (``card``, ``pile``): the last card; the hand ends and you score 0.
* ``king_to_corner`` (``card``, ``pile``): a king starts an empty corner.
* ``sheds_king`` (``card``, ``pile``): a king (10 points in hand) leaves on a side space.
* ``opens_space`` (``pile``, ``onto``): moving pile ``pile`` onto ``onto`` frees a side space.
* ``fills_space`` (``card``, ``pile``): a card on an empty side space, before the next player
  dumps one there.
* ``sets_up_follow`` (``card``, ``pile``, ``next``): ``next``, in the hand, will fit on ``card``.
* ``plays_card`` (``card``, ``pile``, ``top``): one card fewer, on the ``top`` of ``pile``.
* ``keeps_follow`` (``card``, ``target``, ``pile``): ending keeps ``card``, which fits the
  ``target`` on ``pile``, for later.
* ``end_nothing_fits`` (no params): no card in the hand fits on a pile.
* ``draw_nothing_fits`` (no params): nothing in the hand can be played: draw a card
  (``draw: until_playable``).
* ``refills`` (``card``, ``pile``): the last card, a side space still empty afterwards: the
  seat draws three and plays on (``draw: until_playable``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, get_args

from protocol.engine import DECK, FITS_ON, PILES, Action, Draw, Move, Play
from protocol.engine.table import SIDES
from protocol.messages import HintCode

#: Every reason code :func:`explain` can return, as the wire's hint reply types them.
CODES: tuple[str, ...] = get_args(HintCode)

_ORDER = {card: i for i, card in enumerate(DECK)}

Reason = tuple[str, dict[str, str | int]]


def _is_king(card: str) -> bool:
    return card.startswith("K")


def explain(view: Mapping[str, Any], action: Action, draw: str = "end") -> Reason:
    """The reason code and parameters for ``action`` in the seat view ``view`` (one of
    :data:`CODES`); ``action`` is normally the expert's hint for that view, ``draw`` the
    room's draw rule (the view does not name it).

    Pure: it looks at the view, the action and the rule only.
    """
    piles: Mapping[str, list[str]] = view["piles"]
    hand: list[str] = list(view["hand"])
    if isinstance(action, Move):
        return "opens_space", {"pile": action.src, "onto": action.dst}
    if isinstance(action, Draw):
        return "draw_nothing_fits", {}
    if isinstance(action, Play):
        card, pile = action.card, action.pile
        if len(hand) == 1:
            space_left = any(not piles[side] for side in SIDES if side != pile)
            if draw == "until_playable" and space_left and view["stock"]:
                return "refills", {"card": card, "pile": pile}
            return "goes_out", {"card": card, "pile": pile}
        target = piles[pile]
        if not target:
            if _is_king(card):
                code = "sheds_king" if pile in SIDES else "king_to_corner"
                return code, {"card": card, "pile": pile}
            return "fills_space", {"card": card, "pile": pile}
        follows = sorted((c for c in FITS_ON[card] if c in hand), key=_ORDER.__getitem__)
        if follows:
            return "sets_up_follow", {"card": card, "pile": pile, "next": follows[0]}
        return "plays_card", {"card": card, "pile": pile, "top": target[-1]}
    for name in PILES:
        cards = piles[name]
        if not cards:
            continue
        fitting = sorted((c for c in FITS_ON[cards[-1]] if c in hand), key=_ORDER.__getitem__)
        if fitting:
            return "keeps_follow", {"card": fitting[0], "target": cards[-1], "pile": name}
    return "end_nothing_fits", {}


__all__ = ["CODES", "Reason", "explain"]
