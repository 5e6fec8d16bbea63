"""The coach: a finished hand's turns judged seat by seat, cheaply, from what each seat saw.

Most turns are forced or obvious, so the coach spends its search only where it can change
what the player is told. For each decision a person made (a turn, or the rest of a turn
after a draw):

1. **Every end of the turn** is listed exactly (:func:`.turnsearch.turn_ends`), and each is
   priced by the expert's static evaluation (:func:`.search.static_values`).
2. **Could the seat have gone out?** A search of the turn's own move tree, no sampling
   (:func:`.going_out.going_out`): when a line empties the hand (and the hand ends: no refill of
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
   them once (:class:`.review_futures.Futures`) and every turn of that hand reuses them.
6. **The fork and the reason.** The better line is rewritten to follow what was played for
   as long as it can (so two lines that differ only in an equivalent choice, which empty
   corner or the order of independent plays, share their start) and ``fork`` says where
   they part. The reason names what the better end gains over the played one, in the
   strategy tips' words (:func:`.review_why.gain`).

Everything a seat's review holds comes from that seat's view at the time (its own hand,
the table, the counts) and what its own earlier views taught it (:mod:`.notes`); the worlds
are dealt from its unseen cards only. The search has a fixed seed per match and turn and no
clock, so a review of a finished match is the same every time and on every machine.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from protocol.engine import (
    NEXT_HAND,
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
from .going_out import align, follow, goes_out, going_out, position_key
from .levels import CONFIGS
from .model import (
    CARD_ID,
    MOVE,
    PILE_ID,
    PLAY,
    CardMove,
    Piles,
    cards_of,
    do_move,
    do_move_collecting,
    to_action,
)
from .notes import Notes, observe, remember
from .review_futures import Futures, price, win_chance
from .review_why import gain, reason_at
from .search import allowed_ends, static_values
from .turnsearch import TurnEnd, turn_ends
from .worlds import World, sample_world


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
    """:func:`.going_out.follow` under ``scoring: corners``, with the corners collected on
    the way."""
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
    if goes_out(seen, played.hand, played.piles) and not seen.corners:
        return turn
    # Under the variants the model's lines differ: a move in opening_refill's window brings
    # an unknown card (no line goes on past it), and going out under corners scoring is no
    # win in itself; so no "could have gone out" there, and ends are compared statically.
    variant = seen.corners or seen.refill_open
    out_line = None if variant else going_out(seen)
    if out_line is not None:
        turn.could_go_out = True
        choices = [TurnEnd(*follow(seen.hand, seen.piles, out_line), out_line)]
    else:
        ends, _ = turn_ends(
            seen.hand,
            seen.piles,
            config.node_limit,
            collect=seen.corners,
            window=seen.refill_open,
        )
        played_key = position_key(played.hand, played.piles)
        others = [
            e for e in allowed_ends(seen, ends) if position_key(e.hand, e.piles) != played_key
        ]
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
    base = price(seen, played, dealt)
    best = max((price(seen, end, dealt) for end in choices), key=lambda p: p.points)
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
        end_hand, end_piles = follow(seen.hand, seen.piles, path)
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
    futures: dict[int, Futures] = field(default_factory=dict)

    def decision(self, hand: int, seat: int, step: int) -> tuple[_Decision, Seen, TurnEnd]:
        if hand not in self.judged:
            found = _judged(self.record, hand, self.seats)
            self.judged[hand] = {(d.seat, d.step): (d, seen, end) for d, seen, end in found}
        item = self.judged[hand].get((seat, step))
        if item is None:
            raise ValueError(f"no decision of seat {seat} at step {step}")
        return item

    def futures_of(self, hand: int, seen: Seen, dealer: int) -> Futures:
        if hand not in self.futures:
            seed = f"review:{self.record['seed']}:{hand}"
            self.futures[hand] = Futures(seed, seen.seats, dealer, seen.target, self.config.futures)
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
            "played": round(win_chance(seen, price(seen, played, worlds), futures), 3),
            "better": round(win_chance(seen, price(seen, better, worlds), futures), 3),
        },
        "reason": {**reason, "at": reason_at(line, fork, reason)},
    }


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
    "ReviewConfig",
    "card_move",
    "costliest",
    "decisions",
    "detail",
    "judge",
    "review",
    "review_hand",
    "summarize",
]
