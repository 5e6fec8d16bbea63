"""Why the coach's better line is better: what its end gains over the played one, as a
reason code and the cards and piles it names (:func:`gain`), and which move of the line
shows it (:func:`reason_at`). :mod:`.review` attaches it to each turn a seat is told about;
the clients word each code (``gain.*`` in ``clients/i18n``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from protocol.engine import DECK, PILES

from .base import Seen
from .model import (
    EMPTY,
    FITS_ON_MASK,
    KING_MASK,
    PLAY,
    CardMove,
    Piles,
    cards_of,
    empty_sides,
    merges_available,
)
from .turnsearch import TurnEnd


def _pile_name(index: int) -> str:
    return PILES[index]


def _card_name(card: int) -> str:
    return DECK[card]


def _plays(path: Sequence[CardMove]) -> dict[int, int]:
    """Each card a line plays from the hand, and the pile it goes to."""
    return {move[1]: move[2] for move in path if move[0] == PLAY}


def _their_fits(piles: Piles, unseen: int) -> int:
    return sum((FITS_ON_MASK[code & 63] & unseen).bit_count() for code in piles if code != EMPTY)


def gain(seen: Seen, played: TurnEnd, better: TurnEnd, goes_out: bool) -> dict[str, Any]:
    """What the better end gains over the played one, biggest first, as a reason code and
    its parameters (cards and piles by their codes):

    * ``goes_out`` (``card``, ``pile``): the better line plays the last card; the hand ends.
    * ``saves_king`` (``card``, ``pile``): it plays a king the played end kept (10 points).
    * ``plays_more`` (``count``, ``card``, ``pile``): it ends with ``count`` cards fewer;
      ``card`` is one of them.
    * ``closes_space`` (``count``): it leaves ``count`` empty side spaces fewer for the next
      player to dump a card on.
    * ``no_merge`` (``count``): it leaves ``count`` fewer piles the next player could merge
      to open a space.
    * ``holds_back`` (``card``, ``count``): it keeps ``card`` in hand instead of playing it,
      and leaves ``count`` fewer places where the others' cards fit (one card more in hand
      costs one point; an open top for the others costs more).
    * ``keeps_follow`` (``card``, ``target``, ``pile``): it keeps ``card``, which fits the
      ``target`` on ``pile``, for a later turn.
    """
    plays_b, plays_p = _plays(better.path), _plays(played.path)
    if goes_out:
        card, pile = next((m[1], m[2]) for m in reversed(better.path) if m[0] == PLAY)
        return {"code": "goes_out", "params": {"card": _card_name(card), "pile": _pile_name(pile)}}
    kings = better.hand & KING_MASK
    saved = (played.hand & KING_MASK) & ~kings
    if saved:
        card = cards_of(saved)[0]
        return {
            "code": "saves_king",
            "params": {"card": _card_name(card), "pile": _pile_name(plays_b.get(card, 4))},
        }
    fewer = played.hand.bit_count() - better.hand.bit_count()
    if fewer > 0:
        extra = [c for c in plays_b if c not in plays_p] or list(plays_b)
        card = extra[0]
        return {
            "code": "plays_more",
            "params": {"count": fewer, "card": _card_name(card), "pile": _pile_name(plays_b[card])},
        }
    spaces = empty_sides(played.piles) - empty_sides(better.piles)
    if spaces > 0:
        return {"code": "closes_space", "params": {"count": spaces}}
    merges = merges_available(played.piles) - merges_available(better.piles)
    if merges > 0:
        return {"code": "no_merge", "params": {"count": merges}}
    held = [c for c in plays_p if c not in plays_b and better.hand >> c & 1]
    fits = _their_fits(played.piles, seen.unseen) - _their_fits(better.piles, seen.unseen)
    if held and fits > 0:
        return {"code": "holds_back", "params": {"card": _card_name(held[0]), "count": fits}}
    for index, code in enumerate(better.piles):
        if code == EMPTY:
            continue
        follow = FITS_ON_MASK[code & 63] & better.hand
        if follow:
            card = cards_of(follow)[0]
            return {
                "code": "keeps_follow",
                "params": {
                    "card": _card_name(card),
                    "target": _card_name(code & 63),
                    "pile": _pile_name(index),
                },
            }
    if held:
        return {"code": "holds_back", "params": {"card": _card_name(held[0]), "count": 0}}
    return {"code": "plays_more", "params": {"count": 0, "card": "", "pile": ""}}


#: Every reason code :func:`gain` can return.
GAINS: tuple[str, ...] = (
    "goes_out",
    "saves_king",
    "plays_more",
    "closes_space",
    "no_merge",
    "holds_back",
    "keeps_follow",
)


def reason_at(line: Sequence[CardMove], fork: int, reason: Mapping[str, Any]) -> int:
    """The index in the better line of the move the reason names (its card's play), else
    the fork."""
    card = reason["params"].get("card")
    for i, move in enumerate(line):
        if move[0] == PLAY and _card_name(move[1]) == card:
            return i
    return min(fork, max(0, len(line) - 1)) if line else 0


__all__ = ["GAINS", "gain", "reason_at"]
