"""The coach's exact search: could the seat have gone out this turn, and where a better
line parts from the one played.

:func:`going_out` searches the turn's own move tree (no sampling, no limit) for a line that
empties the hand and so ends it; :func:`_hopeless` prunes the positions from which no line
can. :func:`align` rewrites a better line to follow the played one as long as it can still
reach the same end (:func:`_shortest`, a breadth-first search), so the two share their
start. :mod:`.review` judges each decision with these.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence

from .base import Seen
from .model import EMPTY, KING_MASK, CardMove, Piles, do_move, empty_sides, turn_moves
from .notes import fits_mask, tops_mask

Key = tuple[int, tuple[int, ...], tuple[int, ...]]


def position_key(hand: int, piles: Piles) -> Key:
    """A position of the turn, the same for every order of the side piles and the corners."""
    return hand, tuple(sorted(piles[:4])), tuple(sorted(piles[4:]))


def follow(hand: int, piles: Piles, path: Sequence[CardMove]) -> tuple[int, Piles]:
    """The hand and the table after ``path``."""
    for move in path:
        hand, piles = do_move(hand, piles, move)
    return hand, piles


def goes_out(seen: Seen, hand: int, piles: Piles) -> bool:
    """An empty hand that ends the hand (not one that draws three and plays on)."""
    return not hand and not seen.refills(hand, piles)


def going_out(seen: Seen) -> tuple[CardMove, ...] | None:
    """A line of this turn that empties the seat's hand and so ends the hand, or None when
    there is none. Exact: a depth-first search of the turn's move tree, each position once,
    no sampling and no limit; a position is left out only when :func:`_hopeless` proves
    that no line from it empties the hand."""
    start = (seen.hand, seen.piles)
    visited = {position_key(*start)}
    stack: list[tuple[int, Piles, tuple[CardMove, ...]]] = [(*start, ())]
    while stack:
        hand, piles, path = stack.pop()
        if _hopeless(hand, piles):
            continue
        for move in turn_moves(hand, piles):
            hand2, piles2 = do_move(hand, piles, move)
            key = position_key(hand2, piles2)
            if key in visited:
                continue
            visited.add(key)
            if not hand2:
                if goes_out(seen, hand2, piles2):
                    return (*path, move)
                continue
            stack.append((hand2, piles2, (*path, move)))
    return None


def _hopeless(hand: int, piles: Piles) -> bool:
    """True when no line of the turn from here can empty ``hand``: the cards that can have
    no parent to go on (one of the tops, or a card of the hand, a rank above and the other
    colour), and the kings beyond the empty corners, need more side spaces than are empty
    or could be emptied (a side pile with a king at its base and a corner free, or whose
    base could go onto a top or a card of the hand). A necessary condition only."""
    open_sides = empty_sides(piles)
    empty_corners = sum(1 for i in range(4, 8) if piles[i] == EMPTY)
    fits = fits_mask(tops_mask(piles) | hand)
    kings = (hand & KING_MASK).bit_count()
    roots = (hand & ~KING_MASK & ~fits).bit_count() + max(0, kings - empty_corners)
    if roots <= open_sides:
        return False
    spaces = open_sides
    for i in range(4):
        code = piles[i]
        if code == EMPTY:
            continue
        base = code >> 6
        if (KING_MASK >> base & 1 and empty_corners) or fits >> base & 1:
            spaces += 1
    return roots > spaces


def _path_to(parents: Mapping[Key, tuple[Key, CardMove] | None], key: Key) -> tuple[CardMove, ...]:
    path: list[CardMove] = []
    step = parents[key]
    while step is not None:
        key, move = step
        path.append(move)
        step = parents[key]
    return tuple(reversed(path))


def _shortest(hand: int, piles: Piles, goal: Key, limit: int) -> tuple[CardMove, ...] | None:
    """The shortest line from ``hand``/``piles`` to a position equal to ``goal``."""
    start = position_key(hand, piles)
    if start == goal:
        return ()
    keep = goal[0]
    if keep & ~hand:
        return None  # a card the goal holds is already played: cards never come back
    parents: dict[Key, tuple[Key, CardMove] | None] = {start: None}
    queue: deque[tuple[int, Piles]] = deque([(hand, piles)])
    while queue and len(parents) < limit:
        hand, piles = queue.popleft()
        here = position_key(hand, piles)
        if not hand:
            continue
        for move in turn_moves(hand, piles):
            hand2, piles2 = do_move(hand, piles, move)
            if keep & ~hand2:
                continue
            key = position_key(hand2, piles2)
            if key in parents:
                continue
            parents[key] = (here, move)
            if key == goal:
                return _path_to(parents, key)
            queue.append((hand2, piles2))
    return None


def align(
    seen: Seen, played: Sequence[CardMove], better: Sequence[CardMove], limit: int
) -> tuple[int, tuple[CardMove, ...]]:
    """The better line rewritten to follow the played one as long as it can: where the two
    part (``fork``, an index into both) and the rewritten line (the played line's first
    ``fork`` moves, then the shortest way to the better end). Lines that differ only in an
    equivalent choice (which empty corner, the order of independent plays) so share their
    start."""
    goal = position_key(*follow(seen.hand, seen.piles, better))
    states = [(seen.hand, seen.piles)]
    for move in played:
        states.append(do_move(*states[-1], move))
    # What can be reached after a prefix of the played line can be reached after a shorter
    # one too: the longest prefix that still reaches the better end is found by bisection.
    found: tuple[int, tuple[CardMove, ...]] = (0, tuple(better))
    low, high = 0, len(played)
    while low <= high:
        middle = (low + high) // 2
        rest = _shortest(*states[middle], goal, limit)
        if rest is None:
            high = middle - 1
        else:
            found = (middle, (*played[:middle], *rest))
            low = middle + 1
    return found


__all__ = ["Key", "align", "follow", "goes_out", "going_out", "position_key"]
