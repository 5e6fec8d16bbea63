"""What a seat has learned about the other hands from the play it saw.

A bot sees the table only on its own turns. Comparing the table and the card counts of one
turn start with those of its previous turn end tells it, for every other seat, how many
cards that seat played from its hand (its count change against the draws the stock paid
out). Two facts follow, whoever the seat is:

* a seat that played no card held no card that fitted a top which stayed exposed all
  along (a covered card is never uncovered, so a card that is a top at both ends of the
  interval was a top throughout);
* a seat that ended its turn while a corner was empty (a corner once started never empties
  again, so one empty now was empty then) held no king at that moment.

Each fact is kept as an :data:`Avoid` note: the seat held none of ``mask`` at that moment,
so its hand now holds at most ``fresh`` of them, ``fresh`` being the cards it has drawn
since. Everything here is computed from views the seat was shown, nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .model import EMPTY, FITS_ON_MASK, KING_MASK, Piles

#: ``(mask, fresh)``: the seat's hand holds at most ``fresh`` of the cards in ``mask``.
Avoid = tuple[int, int]

#: What a bot remembers of the table it left: ``(hand_no, totals, seat, piles, counts,
#: stock)`` at the end of its last turn, and the notes per seat so far this hand.
Notes = tuple[
    tuple[int, tuple[int, ...], int, Piles, tuple[int, ...], int], tuple[tuple[Avoid, ...], ...]
]

#: How many notes are kept per seat (the newest).
KEEP = 4


def tops_mask(piles: Piles) -> int:
    """The mask of the exposed cards of the piles."""
    mask = 0
    for code in piles:
        if code != EMPTY:
            mask |= 1 << (code & 63)
    return mask


def fits_mask(tops: int) -> int:
    """The mask of every card that fits on one of ``tops``."""
    out = 0
    while tops:
        low = tops & -tops
        out |= FITS_ON_MASK[low.bit_length() - 1]
        tops ^= low
    return out


def corner_empty(piles: Piles) -> bool:
    """Whether a corner is empty."""
    return any(piles[i] == EMPTY for i in range(4, 8))


def _add(notes: tuple[Avoid, ...], mask: int, fresh: int) -> tuple[Avoid, ...]:
    return (*notes, (mask, fresh))[-KEEP:] if mask else notes


def _prune(notes: tuple[Avoid, ...], unseen: int, count: int) -> tuple[Avoid, ...]:
    out = []
    for mask, fresh in notes:
        mask &= unseen
        if mask and fresh < count:
            out.append((mask, fresh))
    return tuple(out)


def observe(
    previous: Notes | None,
    view: Mapping[str, Any],
    seat: int,
    piles: Piles,
    unseen: int,
) -> tuple[tuple[Avoid, ...], ...]:
    """The notes per seat at the start of this turn, from ``previous`` (what was kept at the
    end of the seat's last turn) and the current ``view``."""
    seats = int(view["seats"])
    counts = [int(c) for c in view["counts"]]
    totals = tuple(int(t) for t in view.get("totals", ()))
    hand_no = int(view.get("hand_no", 0))
    empty_corner = corner_empty(piles)
    kings = KING_MASK & unseen
    fresh_hand = (
        previous is None
        or previous[0][0] != hand_no
        or previous[0][1] != totals
        or previous[0][2] != seat
    )
    notes: list[tuple[Avoid, ...]] = [() for _ in range(seats)]
    if previous is None or fresh_hand:
        # First turn of this hand: the seats that moved before it ended their turns with
        # every corner that is empty now empty, holding no king then (one draw since).
        if empty_corner:
            dealer = int(view.get("dealer", seat))
            k = (dealer + 1) % seats
            while k != seat:
                if counts[k] > 0:
                    notes[k] = _add((), kings, 1)
                k = (k + 1) % seats
        return tuple(_prune(n, unseen, counts[s]) for s, n in enumerate(notes))
    (_, _, _, before, before_counts, before_stock), kept = previous
    stock = before_stock - 1 if before_stock > 0 else 0
    drew = [0] * seats
    played = [0] * seats
    for k in range(1, seats):
        s = (seat + k) % seats
        if stock > 0:
            drew[s] = 1
            stock -= 1
        played[s] = before_counts[s] + drew[s] - counts[s]
    if stock != int(view["stock"]) or any(p < 0 for p in played):
        # Not the accounting of draws at the end of turns (another variant, or a view
        # skipped): learn nothing new, forget what no longer adds up.
        return tuple(() for _ in range(seats))
    lasting = fits_mask(tops_mask(before) & tops_mask(piles)) & unseen
    for s in range(seats):
        if s == seat:
            continue
        aged = tuple((mask, fresh + drew[s]) for mask, fresh in kept[s])
        mask = 0
        if played[s] == 0:
            mask |= lasting
        if empty_corner:
            mask |= kings
        notes[s] = _prune(_add(aged, mask, drew[s]), unseen, counts[s])
    return tuple(notes)


def remember(
    view: Mapping[str, Any], seat: int, end: Piles, notes: tuple[tuple[Avoid, ...], ...]
) -> Notes:
    """What to keep at the end of this turn: the table it leaves and the notes so far."""
    snapshot = (
        int(view.get("hand_no", 0)),
        tuple(int(t) for t in view.get("totals", ())),
        seat,
        end,
        tuple(int(c) for c in view["counts"]),
        int(view["stock"]),
    )
    return snapshot, notes


__all__ = [
    "KEEP",
    "Avoid",
    "Notes",
    "corner_empty",
    "fits_mask",
    "observe",
    "remember",
    "tops_mask",
]
