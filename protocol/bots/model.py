"""A compact model of the table for bot search: cards as small ints, piles as two cards.

For legality only a pile's base and top matter, so a pile is one int ``base << 6 | top``
(``EMPTY`` when empty) and a hand is a bit mask over the 52 card ids (the index of the
card in :data:`protocol.engine.DECK`). Everything here is pure and allocation-light so
searches can visit many thousands of positions per turn.

Actions are tuples ``(kind, a, b)``: ``(PLAY, card, pile)`` or ``(MOVE, src, dst)``,
with piles as indices into :data:`protocol.engine.PILES`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from protocol.engine import DECK, END_TURN, FITS_ON, PILES, Action, Move, Play
from protocol.engine.cards import FITS_UNDER, IS_KING, RANK

EMPTY = -1
PLAY = 0
MOVE = 1

CardMove = tuple[int, int, int]
Piles = tuple[int, ...]

CARD_ID: dict[str, int] = {card: i for i, card in enumerate(DECK)}
RANK_OF: tuple[int, ...] = tuple(RANK[c] for c in DECK)
IS_KING_ID: tuple[bool, ...] = tuple(IS_KING[c] for c in DECK)
#: For each card id, the ids of the cards that fit on it.
FITS_ON_ID: tuple[tuple[int, ...], ...] = tuple(tuple(CARD_ID[x] for x in FITS_ON[c]) for c in DECK)
#: For each card id, the ids of the cards it fits on.
FITS_UNDER_ID: tuple[tuple[int, ...], ...] = tuple(
    tuple(CARD_ID[x] for x in FITS_UNDER[c]) for c in DECK
)
#: For each card id, the mask of the cards that fit on it.
FITS_ON_MASK: tuple[int, ...] = tuple(sum(1 << x for x in fits) for fits in FITS_ON_ID)
KING_MASK = sum(1 << i for i, king in enumerate(IS_KING_ID) if king)
FULL_MASK = (1 << 52) - 1
PILE_ID: dict[str, int] = {name: i for i, name in enumerate(PILES)}
SIDE_RANGE = range(4)
CORNER_RANGE = range(4, 8)


def cards_of(mask: int) -> list[int]:
    """The card ids in ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(cards: Sequence[str]) -> int:
    """The bit mask of card codes."""
    mask = 0
    for card in cards:
        mask |= 1 << CARD_ID[card]
    return mask


def pile_code(cards: Sequence[str]) -> int:
    """A pile (base first) as its compact code."""
    if not cards:
        return EMPTY
    return CARD_ID[cards[0]] << 6 | CARD_ID[cards[-1]]


def piles_from_view(view: Mapping[str, Any]) -> Piles:
    """The eight piles of a seat view in compact form."""
    return tuple(pile_code(view["piles"][name]) for name in PILES)


def card_count(mask: int) -> int:
    """How many cards ``mask`` holds."""
    return mask.bit_count()


def hand_penalty(mask: int) -> int:
    """The penalty a hand would score: 10 a king, 1 any other card."""
    return mask.bit_count() + 9 * (mask & KING_MASK).bit_count()


def turn_moves(hand: int, piles: Piles) -> Iterator[CardMove]:
    """The distinct plays and moves available, one representative per empty-space kind.

    All empty side spaces are alike, as are all empty corners, so only the first of each
    is offered. Moves that merge piles come first, then king placements, then plays.
    """
    first_side = first_corner = -1
    tops: dict[int, int] = {}
    for i in range(8):
        code = piles[i]
        if code == EMPTY:
            if i < 4:
                if first_side < 0:
                    first_side = i
            elif first_corner < 0:
                first_corner = i
        else:
            tops[code & 63] = i
    for i in range(8):
        code = piles[i]
        if code == EMPTY:
            continue
        base = code >> 6
        if IS_KING_ID[base]:
            if i < 4 and first_corner >= 0:
                yield (MOVE, i, first_corner)
            continue
        for onto in FITS_UNDER_ID[base]:
            dst = tops.get(onto)
            if dst is not None and dst != i:
                yield (MOVE, i, dst)
    if first_corner >= 0:
        kings = hand & KING_MASK
        while kings:
            low = kings & -kings
            yield (PLAY, low.bit_length() - 1, first_corner)
            kings ^= low
    for top, i in tops.items():
        fit = FITS_ON_MASK[top] & hand
        while fit:
            low = fit & -fit
            yield (PLAY, low.bit_length() - 1, i)
            fit ^= low
    if first_side >= 0:
        rest = hand
        while rest:
            low = rest & -rest
            yield (PLAY, low.bit_length() - 1, first_side)
            rest ^= low


def do_move(hand: int, piles: Piles, move: CardMove) -> tuple[int, Piles]:
    """The hand and piles after a play or a move known to be legal."""
    kind, a, b = move
    out = list(piles)
    if kind == PLAY:
        old = out[b]
        out[b] = a << 6 | a if old == EMPTY else (old & ~63) | a
        return hand & ~(1 << a), tuple(out)
    src, dst = out[a], out[b]
    out[b] = src if dst == EMPTY else (dst & ~63) | (src & 63)
    out[a] = EMPTY
    return hand, tuple(out)


def completes(code: int, index: int) -> bool:
    """Whether pile ``index`` with ``code`` is a complete corner: king base, ace top (a
    corner only ever descends from its king, so that is all 13 cards)."""
    return index >= 4 and code != EMPTY and IS_KING_ID[code >> 6] and RANK_OF[code & 63] == 1


def do_move_collecting(hand: int, piles: Piles, move: CardMove) -> tuple[int, Piles, int]:
    """:func:`do_move` under ``scoring: corners``: a corner the move completes is collected
    (empty again); also returns how many corners that was (0 or 1)."""
    hand, piles = do_move(hand, piles, move)
    dst = move[2]
    if completes(piles[dst], dst):
        return hand, (*piles[:dst], EMPTY, *piles[dst + 1 :]), 1
    return hand, piles, 0


def empty_sides(piles: Piles) -> int:
    """How many side spaces are empty."""
    return sum(1 for i in SIDE_RANGE if piles[i] == EMPTY)


def merges_available(piles: Piles) -> int:
    """How many pile moves the table offers that would empty a side space."""
    tops = {code & 63 for code in piles if code != EMPTY}
    has_corner = any(piles[i] == EMPTY for i in CORNER_RANGE)
    count = 0
    for i in SIDE_RANGE:
        code = piles[i]
        if code == EMPTY:
            continue
        base = code >> 6
        if IS_KING_ID[base]:
            count += has_corner
        elif any(onto in tops for onto in FITS_UNDER_ID[base]):
            count += 1
    return count


def to_action(move: CardMove) -> Action:
    """The engine action for a compact move."""
    kind, a, b = move
    if kind == PLAY:
        return Play(DECK[a], PILES[b])
    return Move(PILES[a], PILES[b])


def action_key(action: Action) -> str:
    """The text of an action, as seat views list them."""
    return action.text()


__all__ = [
    "CARD_ID",
    "EMPTY",
    "END_TURN",
    "KING_MASK",
    "MOVE",
    "PLAY",
    "CardMove",
    "Piles",
    "cards_of",
    "completes",
    "do_move",
    "do_move_collecting",
    "empty_sides",
    "hand_penalty",
    "mask_of",
    "merges_available",
    "piles_from_view",
    "to_action",
    "turn_moves",
]
