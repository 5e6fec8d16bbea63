"""The coach: a finished hand's turns judged seat by seat, cheaply, from what each seat saw.

Most turns are forced or obvious, so the coach spends its search only where it can change
what the player is told. For each decision a person made (a turn, or the rest of a turn
after a draw):

1. **Every end of the turn** is listed exactly (:func:`.turnsearch.turn_ends`), and each is
   priced by the expert's static evaluation (:func:`.search.static_values`).
2. **Could the seat have gone out?** A search of the turn's own move tree, no sampling
   (:func:`going_out`): when a line empties the hand (and the hand ends: no refill of
   three) and the seat did not take it, the turn is marked ``could_go_out`` and that line
   is the better one.
3. **The screen.** A turn whose played end is within :attr:`ReviewConfig.screen` cards of
   the best static value is not a mistake, and is not searched further.
4. **The search**, for the other turns: the played end and the best
   :attr:`ReviewConfig.candidates` ends by static value are each played on in the same
   :attr:`ReviewConfig.worlds` sampled worlds, every seat greedily to the end of the hand.
   The end with the best mean result is the better line, and ``cost`` is what the played
   end lost against it (the others' mean penalty minus the seat's own).
5. **The chance to win** after either end: each world goes on through fresh deals to the
   end of the match. Those later deals do not depend on the turn, so a hand's review deals
   them once (:class:`_Futures`) and every turn of that hand reuses them.
6. **The fork and the reason.** The better line is rewritten to follow what was played for
   as long as it can (so two lines that differ only in an equivalent choice, which empty
   corner or the order of independent plays, share their start) and ``fork`` says where
   they part. The reason names what the better end gains over the played one, in the
   strategy tips' words (:func:`gain`).

Everything a seat's review holds comes from that seat's view at the time (its own hand,
the table, the counts) and what its own earlier views taught it (:mod:`.notes`); the worlds
are dealt from its unseen cards only. The search has a fixed seed per match and turn and no
clock, so a review of a finished match is the same every time and on every machine.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from protocol.engine import (
    DECK,
    NEXT_HAND,
    PILES,
    Action,
    Move,
    Options,
    Play,
    action_from_text,
    new_match,
    seat_view,
)
from protocol.engine.match import Match

from .base import Seen
from .evaluate import DEFAULT_WEIGHTS
from .greedy import greedy_play
from .levels import CONFIGS
from .model import (
    CARD_ID,
    EMPTY,
    FITS_ON_MASK,
    KING_MASK,
    MOVE,
    PILE_ID,
    PLAY,
    CardMove,
    Piles,
    cards_of,
    do_move,
    do_move_collecting,
    hand_penalty,
    merges_available,
    to_action,
    turn_moves,
)
from .notes import Notes, fits_mask, observe, remember, tops_mask
from .search import allowed_ends, static_values
from .turnsearch import TurnEnd, turn_ends
from .worlds import World, sample_world

HAND_SIZE = 7
#: Hands a dealt future holds at most (a match always ends long before).
FUTURE_HANDS = 60


@dataclass(frozen=True, slots=True)
class ReviewConfig:
    """How hard the coach looks.

    Ends of a turn are listed up to ``node_limit``. A turn whose played end is within
    ``screen`` cards of the best static value is not searched; for the others the played
    end and the ``candidates`` best by static value are played on in ``worlds`` sampled
    worlds, and the chance to win follows ``futures`` dealt continuations of the match. A
    turn costing less than ``threshold`` points is not called a mistake, and ``shown`` of the
    costliest are listed.
    """

    node_limit: int = CONFIGS["expert"].node_limit
    screen: float = 1.0
    candidates: int = 2
    worlds: int = 16
    futures: int = 16
    threshold: float = 0.5
    shown: int = 3


DEFAULT_REVIEW = ReviewConfig()


def card_move(action: Action) -> CardMove | None:
    """The compact form of a play or a pile move (None for anything else)."""
    if isinstance(action, Play):
        return (PLAY, CARD_ID[action.card], PILE_ID[action.pile])
    if isinstance(action, Move):
        return (MOVE, PILE_ID[action.src], PILE_ID[action.dst])
    return None


Key = tuple[int, tuple[int, ...], tuple[int, ...]]


def _key(hand: int, piles: Piles) -> Key:
    return hand, tuple(sorted(piles[:4])), tuple(sorted(piles[4:]))


def _start(record: Mapping[str, Any]) -> Match:
    return new_match(
        Options.from_dict(record["options"]),
        seed=record["seed"],
        decks=record.get("decks") or (),
        dealer=record["first_dealer"],
    )


@dataclass(slots=True)
class _Decision:
    """One decision of a reviewed seat: where it started and what the seat did."""

    seat: int
    hand: int  # 0-based hand of the match
    step: int  # log index of its first action: the replay step that shows its position
    match: Match
    view: dict[str, Any]
    actions: list[Action]
    #: It began after a draw or a refill within the seat's turn, not at the turn's start.
    continues: bool = False


def decisions(
    record: Mapping[str, Any], seats: Sequence[int], last_hand: int | None = None
) -> list[_Decision]:
    """Every decision of ``seats`` in the match (up to hand ``last_hand``), in order.

    A decision starts where the seat is to act with nothing played since its turn began or
    since it drew (a draw while nothing fits, a refill of three) and runs until the seat
    ends the turn, draws, refills or the hand ends. Decisions that are only a draw (nothing
    fitted) are left out: there was nothing to choose.
    """
    match = _start(record)
    hand = 0
    out: list[_Decision] = []
    current: _Decision | None = None
    same_turn = False  # the last action left its seat on turn (a draw, a refill, a play)
    for index, entry in enumerate(record["log"]):
        if entry == NEXT_HAND:
            if last_hand is not None and hand >= last_hand:
                break
            match = match.next_hand()
            hand += 1
            current = None
            same_turn = False
            continue
        action = action_from_text(entry)
        seat = match.position.turn
        if current is None and seat in seats:
            view = seat_view(match, seat)
            current = _Decision(seat, hand, index, match, view, [], same_turn)
        before = len(match.position.hands[seat])
        stock = len(match.position.stock)
        match = match.apply(action)
        same_turn = match.position.turn == seat
        if current is not None:
            current.actions.append(action)
            refilled = isinstance(action, Play) and len(match.position.hands[seat]) >= before
            # opening_refill: the stock refilled the side the move emptied; what follows is
            # a new decision, made knowing that card.
            refilled = refilled or (isinstance(action, Move) and len(match.position.stock) < stock)
            done = (
                card_move(action) is None
                or match.position.turn != seat
                or match.position.result is not None
                or refilled
            )
            if done:
                if (
                    any(card_move(a) for a in current.actions)
                    or current.actions[-1].text() == "end"
                ):
                    out.append(current)
                current = None
    return out


def _seen_of(decision: _Decision, notes: Notes | None) -> Seen:
    """The seat's knowledge at the decision, with its notes of the other hands."""
    seen = Seen.from_view(decision.view)
    if decision.continues and notes is not None:
        return replace(seen, avoid=notes[1])  # mid-turn: the notes made at the turn's start
    return replace(seen, avoid=observe(notes, decision.view, seen.seat, seen.piles, seen.unseen))


def _played_path(seen: Seen, actions: Sequence[Action]) -> tuple[CardMove, ...]:
    path: list[CardMove] = []
    hand = seen.hand
    piles = seen.piles
    for action in actions:
        move = card_move(action)
        if move is None:
            break
        hand, piles = do_move(hand, piles, move)
        path.append(move)
        if not hand:
            break
    return tuple(path)


def _collecting(hand: int, piles: Piles, path: Sequence[CardMove]) -> tuple[int, Piles, int]:
    """:func:`_follow` under ``scoring: corners``, with the corners collected on the way."""
    total = 0
    for move in path:
        hand, piles, got = do_move_collecting(hand, piles, move)
        total += got
    return hand, piles, total


def _refills(path: Sequence[CardMove]) -> bool:
    """Whether ``path``, played in ``opening_refill``'s window, ends with a move the stock
    refills (a side pile moved before any card of the hand was played)."""
    return (
        bool(path) and path[-1][0] != PLAY and path[-1][1] < 4 and all(m[0] != PLAY for m in path)
    )


def _follow(hand: int, piles: Piles, path: Sequence[CardMove]) -> tuple[int, Piles]:
    for move in path:
        hand, piles = do_move(hand, piles, move)
    return hand, piles


def _goes_out(seen: Seen, hand: int, piles: Piles) -> bool:
    """An empty hand that ends the hand (not one that draws three and plays on)."""
    return not hand and not seen.refills(hand, piles)


def going_out(seen: Seen) -> tuple[CardMove, ...] | None:
    """A line of this turn that empties the seat's hand and so ends the hand, or None when
    there is none. Exact: a depth-first search of the turn's move tree, each position once,
    no sampling and no limit; a position is left out only when :func:`_hopeless` proves
    that no line from it empties the hand."""
    start = (seen.hand, seen.piles)
    visited = {_key(*start)}
    stack: list[tuple[int, Piles, tuple[CardMove, ...]]] = [(*start, ())]
    while stack:
        hand, piles, path = stack.pop()
        if _hopeless(hand, piles):
            continue
        for move in turn_moves(hand, piles):
            hand2, piles2 = do_move(hand, piles, move)
            key = _key(hand2, piles2)
            if key in visited:
                continue
            visited.add(key)
            if not hand2:
                if _goes_out(seen, hand2, piles2):
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
    empty_sides = _empty_sides(piles)
    empty_corners = sum(1 for i in range(4, 8) if piles[i] == EMPTY)
    fits = fits_mask(tops_mask(piles) | hand)
    kings = (hand & KING_MASK).bit_count()
    roots = (hand & ~KING_MASK & ~fits).bit_count() + max(0, kings - empty_corners)
    if roots <= empty_sides:
        return False
    spaces = empty_sides
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
    start = _key(hand, piles)
    if start == goal:
        return ()
    keep = goal[0]
    if keep & ~hand:
        return None  # a card the goal holds is already played: cards never come back
    parents: dict[Key, tuple[Key, CardMove] | None] = {start: None}
    queue: deque[tuple[int, Piles]] = deque([(hand, piles)])
    while queue and len(parents) < limit:
        hand, piles = queue.popleft()
        here = _key(hand, piles)
        if not hand:
            continue
        for move in turn_moves(hand, piles):
            hand2, piles2 = do_move(hand, piles, move)
            if keep & ~hand2:
                continue
            key = _key(hand2, piles2)
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
    goal = _key(*_follow(seen.hand, seen.piles, better))
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


# --- playing on: the hand, then the match ------------------------------------------------


def _deal(rng: random.Random, seats: int, dealer: int) -> tuple[list[int], list[int], list[int]]:
    deck = list(range(52))
    rng.shuffle(deck)
    hands = [0] * seats
    for k in range(HAND_SIZE * seats):
        hands[(dealer + 1 + k) % seats] |= 1 << deck[k]
    dealt = HAND_SIZE * seats
    piles = [d << 6 | d for d in deck[dealt : dealt + 4]] + [EMPTY] * 4
    return hands, piles, deck[dealt + 4 :]


def _finish_hand(hands: list[int], piles: list[int], stock: list[int], turn: int) -> list[int]:
    """Play a hand to its end greedily from ``turn``'s turn; return its penalties."""
    seats = len(hands)
    quiet = 0
    for _ in range(2000):
        before = hands[turn]
        table = tuple(piles)
        left = greedy_play(before, piles)
        if not left:
            return [0 if s == turn else hand_penalty(h) for s, h in enumerate(hands)]
        changed = left != before or tuple(piles) != table
        quiet = 0 if changed or stock else quiet + 1
        if stock:
            left |= 1 << stock.pop()
        hands[turn] = left
        if quiet >= seats:
            break
        turn = (turn + 1) % seats
    return [hand_penalty(h) for h in hands]


@dataclass(slots=True)
class _Futures:
    """Fresh deals after the reviewed hand, played greedily: each future a list of the
    penalties of its hands, dealt as far as a match needs them. They do not depend on the
    reviewed turn, so every end of every turn of the hand is priced against the same ones."""

    seed: str
    seats: int
    dealer: int  # the dealer of the reviewed hand
    target: int
    count: int
    hands: list[list[list[int]]] = field(default_factory=list)
    rngs: list[random.Random] = field(default_factory=list)

    def _penalties(self, future: int, n: int) -> list[int]:
        while len(self.hands) <= future:
            self.hands.append([])
            self.rngs.append(random.Random(f"{self.seed}:future:{len(self.rngs)}"))
        dealt = self.hands[future]
        while len(dealt) <= n:
            dealer = (self.dealer + 1 + len(dealt)) % self.seats
            hands, piles, stock = _deal(self.rngs[future], self.seats, dealer)
            dealt.append(_finish_hand(hands, piles, stock, (dealer + 1) % self.seats))
        return dealt[n]

    def share(self, totals: Sequence[int], seat: int, world: int) -> float:
        """``seat``'s share of the win (ties share) when the match stands at ``totals``
        after the reviewed hand, played on in future ``world`` (modulo their count)."""
        future = world % self.count
        now = list(totals)
        for n in range(FUTURE_HANDS):
            if max(now) >= self.target:
                break
            now = [t + p for t, p in zip(now, self._penalties(future, n), strict=True)]
        low = min(now)
        return 1.0 / now.count(low) if now[seat] == low else 0.0


def _hand_result(seen: Seen, world: World, end: TurnEnd) -> list[int]:
    """The penalties of the hand when the seat ends its turn with ``end`` in ``world``,
    every seat playing on greedily (drawing at the end of its turns)."""
    me, seats = seen.seat, seen.seats
    hands = list(world.hands)
    hands[me] = end.hand
    if not end.hand:
        if not seen.refills(end.hand, end.piles):
            return [0 if s == me else hand_penalty(h) for s, h in enumerate(hands)]
        # Three more cards, top first, and the turn goes on (draw: until_playable).
        stock = list(world.stock)
        hands[me] = sum(1 << card for card in stock[:3])
        piles = list(end.piles)
        hands[me] = greedy_play(hands[me], piles)
        if not hands[me]:
            return [0 if s == me else hand_penalty(h) for s, h in enumerate(hands)]
        rest = list(reversed(stock[3:]))
        return _finish_hand(hands, piles, rest, (me + 1) % seats)
    piles = list(end.piles)
    stock = list(reversed(world.stock))  # pop() takes the top
    if stock:
        hands[me] |= 1 << stock.pop()
    return _finish_hand(hands, piles, stock, (me + 1) % seats)


def _points(penalties: Sequence[int], seat: int) -> float:
    """The seat's result of a hand: the others' mean penalty minus its own."""
    return (sum(penalties) - penalties[seat]) / (len(penalties) - 1) - penalties[seat]


@dataclass(slots=True)
class _Priced:
    """An end played on in the worlds: its mean result and each world's penalties."""

    end: TurnEnd
    points: float
    results: list[list[int]]


def _price(seen: Seen, end: TurnEnd, worlds: Sequence[World]) -> _Priced:
    results = [_hand_result(seen, world, end) for world in worlds]
    points = sum(_points(r, seen.seat) for r in results) / max(1, len(results))
    return _Priced(end, points, results)


def _win_chance(seen: Seen, priced: _Priced, futures: _Futures) -> float:
    totals = seen.totals or (0,) * seen.seats
    won = 0.0
    for n, penalties in enumerate(priced.results):
        after = [t + p for t, p in zip(totals, penalties, strict=True)]
        won += futures.share(after, seen.seat, n)
    return won / max(1, len(priced.results))


# --- why ---------------------------------------------------------------------------------


def _pile_name(index: int) -> str:
    return PILES[index]


def _card_name(card: int) -> str:
    return DECK[card]


def _plays(path: Sequence[CardMove]) -> dict[int, int]:
    """Each card a line plays from the hand, and the pile it goes to."""
    return {move[1]: move[2] for move in path if move[0] == PLAY}


def _empty_sides(piles: Piles) -> int:
    return sum(1 for i in range(4) if piles[i] == EMPTY)


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
    spaces = _empty_sides(played.piles) - _empty_sides(better.piles)
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


# --- a hand's review -----------------------------------------------------------------------


def _position(view: Mapping[str, Any]) -> dict[str, Any]:
    keys = ("hand", "piles", "stock", "counts", "totals", "dealer", "target", "hand_no")
    return {k: view[k] for k in keys if k in view}


def _texts(path: Sequence[CardMove]) -> list[str]:
    return [to_action(m).text() for m in path]


@dataclass(slots=True)
class _Turn:
    """What :func:`judge` found of one decision."""

    better: TurnEnd | None = None
    could_go_out: bool = False
    cost: float = 0.0


def _worlds(seen: Seen, seed: str, step: int, config: ReviewConfig) -> list[World]:
    rng = random.Random(f"review:{seed}:{step}")
    unseen = cards_of(seen.unseen)
    return [sample_world(seen, rng, unseen) for _ in range(config.worlds)]


def judge(seen: Seen, played: TurnEnd, worlds: Sequence[World], config: ReviewConfig) -> _Turn:
    """The decision's judgement: whether the seat could have gone out, the better end (None
    when the played one is as good) and what the played one cost. ``worlds`` are dealt only
    for a turn the screen lets through (a sequence read lazily is enough)."""
    turn = _Turn()
    if _goes_out(seen, played.hand, played.piles) and not seen.corners:
        return turn
    # Under the variants the model's lines differ: a move in opening_refill's window brings
    # an unknown card (no line goes on past it), and going out under corners scoring is no
    # win in itself; so no "could have gone out" there, and ends are compared statically.
    variant = seen.corners or seen.refill_open
    out_line = None if variant else going_out(seen)
    if out_line is not None:
        turn.could_go_out = True
        choices = [TurnEnd(*_follow(seen.hand, seen.piles, out_line), out_line)]
    else:
        ends, _ = turn_ends(
            seen.hand,
            seen.piles,
            config.node_limit,
            collect=seen.corners,
            window=seen.refill_open,
        )
        played_key = _key(played.hand, played.piles)
        others = [e for e in allowed_ends(seen, ends) if _key(e.hand, e.piles) != played_key]
        if not others:
            return turn
        values = static_values(seen, [played, *others], DEFAULT_WEIGHTS)
        order = sorted(range(1, len(values)), key=lambda i: (-values[i], i))
        if values[order[0]] - values[0] < config.screen:
            return turn
        choices = [others[i - 1] for i in order[: config.candidates]]
        if variant:
            turn.better = choices[0]
            turn.cost = values[order[0]] - values[0]
            return turn
    dealt = list(worlds)
    base = _price(seen, played, dealt)
    best = max((_price(seen, end, dealt) for end in choices), key=lambda p: p.points)
    if best.points > base.points or turn.could_go_out:
        turn.better = best.end
        turn.cost = max(0.0, best.points - base.points)
    return turn


class _LazyWorlds(Sequence[World]):
    """The worlds of one decision, dealt at the first look (most turns never need them)."""

    def __init__(self, seen: Seen, seed: str, step: int, config: ReviewConfig) -> None:
        self._args = (seen, seed, step, config)
        self._worlds: list[World] | None = None

    def _dealt(self) -> list[World]:
        if self._worlds is None:
            self._worlds = _worlds(*self._args)
        return self._worlds

    def __len__(self) -> int:
        return len(self._dealt())

    def __getitem__(self, index: Any) -> Any:
        return self._dealt()[index]


def _judged(
    record: Mapping[str, Any], hand: int, seats: Sequence[int]
) -> list[tuple[_Decision, Seen, TurnEnd]]:
    """The decisions of ``seats`` in hand ``hand``, each with what its seat knew (its notes
    of the other hands carried from its earlier turns) and the end it played."""
    notes: dict[int, Notes | None] = {s: None for s in seats}
    out = []
    for decision in decisions(record, seats, last_hand=hand):
        seen = _seen_of(decision, notes[decision.seat])
        path = _played_path(seen, decision.actions)
        end_hand, end_piles = _follow(seen.hand, seen.piles, path)
        collected = 0
        if seen.corners:  # scoring: corners: the completed corners were collected
            end_hand, end_piles, collected = _collecting(seen.hand, seen.piles, path)
        notes[decision.seat] = remember(decision.view, seen.seat, end_piles, seen.avoid)
        if decision.hand == hand:
            refill = seen.refill_open and _refills(path)
            played = TurnEnd(end_hand, end_piles, path, collected, refill)
            out.append((decision, seen, played))
    return out


def review_hand(
    record: Mapping[str, Any],
    hand: int,
    seats: Sequence[int],
    config: ReviewConfig = DEFAULT_REVIEW,
) -> dict[int, list[dict[str, Any]]]:
    """The judged decisions of ``seats`` in hand ``hand`` (0-based). The record needs the
    log only up to that hand's end: a hand is reviewed as soon as it ends.

    Each is ``{hand, step, seat, position, played, better, cost, could_go_out}``
    (``better`` None when nothing was better). ``step`` is the log index of the decision's
    first action: the replay shows its position after ``step`` steps. The turns a seat is
    told about get their fork, chance to win and reason from :func:`summarize`.
    """
    out: dict[int, list[dict[str, Any]]] = {s: [] for s in seats}
    for decision, seen, played in _judged(record, hand, seats):
        worlds = _LazyWorlds(seen, str(record["seed"]), decision.step, config)
        turn = judge(seen, played, worlds, config)
        out[decision.seat].append(
            {
                "hand": hand,
                "step": decision.step,
                "seat": decision.seat,
                "position": _position(decision.view),
                "played": _texts(played.path),
                "better": None if turn.better is None else _texts(turn.better.path),
                "cost": round(turn.cost, 2),
                "could_go_out": turn.could_go_out,
            }
        )
    return out


@dataclass(slots=True)
class _Shared:
    """What the details of one match's turns share: each hand's decisions and futures."""

    record: Mapping[str, Any]
    seats: tuple[int, ...]
    config: ReviewConfig
    judged: dict[int, dict[tuple[int, int], tuple[_Decision, Seen, TurnEnd]]] = field(
        default_factory=dict
    )
    futures: dict[int, _Futures] = field(default_factory=dict)

    def decision(self, hand: int, seat: int, step: int) -> tuple[_Decision, Seen, TurnEnd]:
        if hand not in self.judged:
            found = _judged(self.record, hand, self.seats)
            self.judged[hand] = {(d.seat, d.step): (d, seen, end) for d, seen, end in found}
        item = self.judged[hand].get((seat, step))
        if item is None:
            raise ValueError(f"no decision of seat {seat} at step {step}")
        return item

    def futures_of(self, hand: int, seen: Seen, dealer: int) -> _Futures:
        if hand not in self.futures:
            seed = f"review:{self.record['seed']}:{hand}"
            self.futures[hand] = _Futures(
                seed, seen.seats, dealer, seen.target, self.config.futures
            )
        return self.futures[hand]


def detail(
    record: Mapping[str, Any],
    turn: Mapping[str, Any],
    config: ReviewConfig = DEFAULT_REVIEW,
    shared: _Shared | None = None,
) -> dict[str, Any]:
    """A judged turn with a better line, made ready to show: the better line rewritten to
    follow the played one as far as it can and ``fork``, where they part; ``win_chance``
    after either end, the match played on in the same worlds and the hand's dealt futures;
    and ``reason``, what the better end gains (``at``: the index in ``better`` of the move
    it names). ``shared`` keeps what the turns of one match have in common."""
    if turn.get("better") is None or "reason" in turn:
        return dict(turn)
    hand, seat, step = int(turn["hand"]), int(turn["seat"]), int(turn["step"])
    shared = shared or _Shared(record, (seat,), config)
    decision, seen, played = shared.decision(hand, seat, step)
    hand_mask, piles = seen.hand, seen.piles
    path: list[CardMove] = []
    for text in turn["better"]:
        move = card_move(action_from_text(text))
        assert move is not None
        path.append(move)
        hand_mask, piles = do_move(hand_mask, piles, move)
    better = TurnEnd(hand_mask, piles, tuple(path))
    worlds = _worlds(seen, str(record["seed"]), step, config)
    futures = shared.futures_of(hand, seen, int(decision.view["dealer"]))
    fork, line = align(seen, played.path, better.path, config.node_limit)
    shown = TurnEnd(better.hand, better.piles, line)
    reason = gain(seen, played, shown, bool(turn.get("could_go_out")))
    return {
        **turn,
        "better": _texts(line),
        "fork": fork,
        "win_chance": {
            "played": round(_win_chance(seen, _price(seen, played, worlds), futures), 3),
            "better": round(_win_chance(seen, _price(seen, better, worlds), futures), 3),
        },
        "reason": {**reason, "at": _reason_at(line, fork, reason)},
    }


def _reason_at(line: Sequence[CardMove], fork: int, reason: Mapping[str, Any]) -> int:
    """The index in the better line of the move the reason names (its card's play), else
    the fork."""
    card = reason["params"].get("card")
    for i, move in enumerate(line):
        if move[0] == PLAY and _card_name(move[1]) == card:
            return i
    return min(fork, max(0, len(line) - 1)) if line else 0


def costliest(turns: Sequence[Mapping[str, Any]], config: ReviewConfig) -> list[Any]:
    """The turns a seat is told about, first to last: every turn where it could have gone
    out, then the costliest of the rest, ``shown`` in all, none costing less than
    ``threshold``."""
    mistakes = [t for t in turns if t["cost"] >= config.threshold or t.get("could_go_out")]
    mistakes.sort(key=lambda t: (not t.get("could_go_out"), -t["cost"], t["step"]))
    return mistakes[: config.shown]


def summarize(
    record: Mapping[str, Any],
    turns: Mapping[int, Sequence[dict[str, Any]]],
    config: ReviewConfig = DEFAULT_REVIEW,
) -> dict[str, Any]:
    """The review document: per seat, its judged turns and the ones it is told about
    (``costliest``, :func:`costliest`, each made ready by :func:`detail`), ``null`` for a
    seat not reviewed."""
    seats: list[dict[str, Any] | None] = []
    shared = _Shared(record, tuple(sorted(turns)), config)
    for seat in range(int(record["options"].get("seats", 4))):
        if seat not in turns:
            seats.append(None)
            continue
        listed = list(turns[seat])
        seats.append(
            {
                "seat": seat,
                "turns": len(listed),
                "mistakes": sum(1 for t in listed if t["cost"] >= config.threshold),
                "could_go_out": sum(1 for t in listed if t.get("could_go_out")),
                "lost": round(sum(t["cost"] for t in listed), 1),
                "costliest": [detail(record, t, config, shared) for t in costliest(listed, config)],
            }
        )
    return {
        "match": record.get("id"),
        "worlds": config.worlds,
        "threshold": config.threshold,
        "seats": seats,
    }


def review(
    record: Mapping[str, Any],
    seats: Sequence[int] | None = None,
    config: ReviewConfig = DEFAULT_REVIEW,
) -> dict[str, Any]:
    """The whole review of a finished match for ``seats`` (every seat when None), in one
    call; a server reviews each hand as it ends (:func:`review_hand`) and joins them with
    :func:`summarize`."""
    chosen = list(range(int(record["options"].get("seats", 4)))) if seats is None else list(seats)
    hands = 1 + sum(1 for entry in record["log"] if entry == NEXT_HAND)
    turns: dict[int, list[dict[str, Any]]] = {s: [] for s in chosen}
    for hand in range(hands):
        for seat, items in review_hand(record, hand, chosen, config).items():
            turns[seat].extend(items)
    return summarize(record, turns, config)


__all__ = [
    "DEFAULT_REVIEW",
    "GAINS",
    "ReviewConfig",
    "align",
    "card_move",
    "costliest",
    "decisions",
    "detail",
    "gain",
    "going_out",
    "judge",
    "review",
    "review_hand",
    "summarize",
]
