"""The seed's advice as a fast policy: kings out, pile moves first, then plays, then fill.

Used by the ``heuristic`` bot directly and by the search bots to play the other seats
(and their own next turn) inside sampled worlds.
"""

from __future__ import annotations

from collections.abc import Callable

from .model import (
    EMPTY,
    FITS_ON_MASK,
    FITS_UNDER_ID,
    IS_KING_ID,
    KING_MASK,
    MOVE,
    PLAY,
    RANK_OF,
    CardMove,
    Piles,
    do_move,
)


def chain_length(card: int, hand: int) -> int:
    """How many of ``hand``'s cards could be built on ``card`` one after another."""
    length = 0
    top = card
    rest = hand & ~(1 << card)
    while True:
        fit = FITS_ON_MASK[top] & rest
        if not fit:
            return length
        top = (fit & -fit).bit_length() - 1
        rest &= ~(1 << top)
        length += 1


def best_filler(hand: int) -> int:
    """The card to put on an empty side space: a king first, else the card the hand builds on
    longest, higher rank breaking ties."""
    kings = hand & KING_MASK
    if kings:
        return (kings & -kings).bit_length() - 1
    best, best_key = -1, (-1, -1)
    rest = hand
    while rest:
        low = rest & -rest
        card = low.bit_length() - 1
        rest ^= low
        key = (chain_length(card, hand), RANK_OF[card])
        if key > best_key:
            best, best_key = card, key
    return best


def greedy_step(hand: int, piles: Piles) -> CardMove | None:
    """The next action the advice gives, or None to end the turn."""
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
    if first_corner >= 0:
        kings = hand & KING_MASK
        if kings:
            return (PLAY, (kings & -kings).bit_length() - 1, first_corner)
    for i in range(8):
        code = piles[i]
        if code == EMPTY:
            continue
        base = code >> 6
        if IS_KING_ID[base]:
            if i < 4 and first_corner >= 0:
                return (MOVE, i, first_corner)
            continue
        for onto in FITS_UNDER_ID[base]:
            dst = tops.get(onto)
            if dst is not None and dst != i:
                return (MOVE, i, dst)
    for top, i in tops.items():
        fit = FITS_ON_MASK[top] & hand
        if fit:
            return (PLAY, (fit & -fit).bit_length() - 1, i)
    if first_side >= 0 and hand:
        return (PLAY, best_filler(hand), first_side)
    return None


def follow(
    step_of: Callable[[int, Piles], CardMove | None], hand: int, piles: Piles
) -> tuple[int, Piles, list[CardMove]]:
    """Take ``step_of``'s actions until it ends the turn or the hand is empty; return the
    hand and table left and the actions taken."""
    path: list[CardMove] = []
    while hand:
        step = step_of(hand, piles)
        if step is None:
            break
        hand, piles = do_move(hand, piles, step)
        path.append(step)
    return hand, piles, path


def greedy_turn(hand: int, piles: Piles) -> tuple[int, Piles, list[CardMove]]:
    """Follow :func:`greedy_step` until it ends the turn or the hand is empty."""
    return follow(greedy_step, hand, piles)


def greedy_play(hand: int, piles: list[int]) -> int:
    """:func:`greedy_turn` for simulations: updates ``piles`` in place, returns the hand left.

    Same choices as :func:`greedy_step`, without recording them or copying the table.
    """
    while hand:
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
        if first_corner >= 0:
            kings = hand & KING_MASK
            if kings:
                low = kings & -kings
                card = low.bit_length() - 1
                piles[first_corner] = card << 6 | card
                hand ^= low
                continue
        moved = False
        for i in range(8):
            code = piles[i]
            if code == EMPTY:
                continue
            base = code >> 6
            if IS_KING_ID[base]:
                if i < 4 and first_corner >= 0:
                    piles[first_corner] = code
                    piles[i] = EMPTY
                    moved = True
                    break
                continue
            for onto in FITS_UNDER_ID[base]:
                dst = tops.get(onto)
                if dst is not None and dst != i:
                    piles[dst] = (piles[dst] & ~63) | (code & 63)
                    piles[i] = EMPTY
                    moved = True
                    break
            if moved:
                break
        if moved:
            continue
        played = False
        for top, i in tops.items():
            fit = FITS_ON_MASK[top] & hand
            if fit:
                low = fit & -fit
                piles[i] = (piles[i] & ~63) | (low.bit_length() - 1)
                hand ^= low
                played = True
                break
        if played:
            continue
        if first_side >= 0:
            card = best_filler(hand)
            piles[first_side] = card << 6 | card
            hand &= ~(1 << card)
            continue
        break
    return hand
