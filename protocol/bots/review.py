"""The coach: a finished match's turns judged by the expert's search, seat by seat.

For each decision a person made (a turn, or the rest of a turn after a draw), the review
lists the ways the turn could have ended from what that seat saw then, plays them out in
sampled worlds exactly as the expert does (:mod:`.search`), and compares the best end it
finds with the one played:

* ``cost``: what the played end lost against the better one, in penalty points for this
  hand (the others' mean penalty minus the seat's own), every seat playing on greedily
  from either end to the hand's end in the same sampled worlds;
* ``win_chance``: the share of those worlds in which the seat wins the match after each
  end, play going on greedily through fresh deals to the match's end;
* ``reason``: the strategy tip the better line follows at its first difference, in the
  hint's reason codes (:mod:`.explain`), so clients say it in the player's language.

Everything a seat's review holds comes from that seat's view at the time (its own hand,
the table, the counts) and what its own earlier views taught it (:mod:`.notes`); the worlds
are dealt from its unseen cards only. The search has a fixed seed per match and turn and no
clock, so a review of a finished match is the same every time and on every machine.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from protocol.engine import (
    END_TURN,
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
from .explain import CODES, explain
from .greedy import greedy_play
from .levels import CONFIGS
from .model import (
    CARD_ID,
    EMPTY,
    MOVE,
    PILE_ID,
    PLAY,
    CardMove,
    Piles,
    cards_of,
    do_move,
    hand_penalty,
    to_action,
)
from .notes import Notes, observe, remember
from .search import allowed_ends, static_values
from .turnsearch import TurnEnd, turn_ends
from .worlds import DEFAULT_SCORING, World, ended_value, play_round, sample_world

HAND_SIZE = 7


@dataclass(frozen=True, slots=True)
class ReviewConfig:
    """How hard the coach looks: the expert's search (its settings by default) without a
    clock.

    ``candidates`` ends are kept after the static evaluation (the played one always stays),
    then played out in at most ``worlds`` sampled worlds by successive halving from
    ``first_stage``. Where the best is not the played end, both are played on to the end
    of the match in ``outcomes`` of those worlds, for the cost in penalty points and the
    chance to win; a turn costing less than ``threshold`` points is not called a mistake,
    and ``shown`` of the costliest are listed.
    """

    candidates: int = CONFIGS["expert"].candidates
    worlds: int = CONFIGS["expert"].worlds
    first_stage: int = CONFIGS["expert"].first_stage
    node_limit: int = CONFIGS["expert"].node_limit
    outcomes: int = 64
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


def _key(hand: int, piles: Piles) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
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


def decisions(record: Mapping[str, Any], seats: Sequence[int]) -> list[_Decision]:
    """Every decision of ``seats`` in the match, in order.

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
        match = match.apply(action)
        same_turn = match.position.turn == seat
        if current is not None:
            current.actions.append(action)
            refilled = isinstance(action, Play) and len(match.position.hands[seat]) >= before
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


def _played_end(seen: Seen, actions: Sequence[Action]) -> tuple[int, Piles, tuple[CardMove, ...]]:
    hand, piles = seen.hand, seen.piles
    path: list[CardMove] = []
    for action in actions:
        move = card_move(action)
        if move is None:
            break
        hand, piles = do_move(hand, piles, move)
        path.append(move)
        if not hand:
            break
    return hand, piles, tuple(path)


def _candidates(seen: Seen, played: TurnEnd, config: ReviewConfig) -> list[TurnEnd]:
    """The best ``candidates`` ends by the expert's static evaluation, filtered as it filters
    them, with the played end always among them (first)."""
    ends, _ = turn_ends(seen.hand, seen.piles, config.node_limit)
    ends = allowed_ends(seen, ends)
    played_key = _key(played.hand, played.piles)
    values = static_values(seen, ends, CONFIGS["expert"].weights)
    scored = [
        (value, i)
        for i, (value, end) in enumerate(zip(values, ends, strict=True))
        if _key(end.hand, end.piles) != played_key
    ]
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [played, *(ends[i] for _, i in scored[: config.candidates - 1])]


def _value(seen: Seen, world: World, end: TurnEnd) -> float:
    """:func:`play_round`, with going out priced at what it really scores (not as a win)."""
    if not end.hand and not seen.refills(end.hand, end.piles):
        hands = list(world.hands)
        hands[seen.seat] = 0
        return ended_value(seen, hands, seen.seat, DEFAULT_SCORING)
    return play_round(seen, world, end.hand, end.piles)


def judge(
    seen: Seen, played: TurnEnd, rng: random.Random, config: ReviewConfig
) -> tuple[TurnEnd, list[World]]:
    """The expert's best end (``played`` itself when none is better) and the worlds the
    two were compared in.

    Successive halving as :class:`~.search.SearchBot` does it, the played end kept alive
    to the last stage so both are priced in the same worlds.
    """
    candidates = _candidates(seen, played, config)
    if len(candidates) == 1:
        return played, []
    unseen = cards_of(seen.unseen)
    totals = [0.0] * len(candidates)
    alive = list(range(len(candidates)))
    worlds: list[World] = []
    step = config.first_stage
    while len(alive) > 1 and len(worlds) < config.worlds:
        for _ in range(min(step, config.worlds - len(worlds))):
            world = sample_world(seen, rng, unseen)
            worlds.append(world)
            for i in alive:
                totals[i] += _value(seen, world, candidates[i])
        rest = sorted((i for i in alive if i), key=lambda i: (-totals[i], i))
        alive = [0, *rest[: max(1, (len(alive) + 1) // 2 - 1)]]
        step *= 2
    best = max(alive, key=lambda i: (totals[i], -i))
    return candidates[best], worlds


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


def outcome(
    seen: Seen, end: TurnEnd, worlds: Sequence[World], dealer: int, seed: str, config: ReviewConfig
) -> tuple[float, float]:
    """What ending the turn with ``end`` leads to, over ``worlds`` (at most ``outcomes``):
    the seat's mean penalty result for this hand (the others' mean penalty minus its own)
    and its chance to win the match (ties share).

    Every seat plays on greedily (drawing at the end of turns) to the end of this hand and
    through fresh deals, the same ones for every end compared, to the end of the match.
    """
    me, seats = seen.seat, seen.seats
    used = list(worlds[: config.outcomes])
    if not used:
        return 0.0, 0.0
    points = won = 0.0
    for n, world in enumerate(used):
        rng = random.Random(f"{seed}:{n}")
        hands = list(world.hands)
        hands[me] = end.hand
        piles = list(end.piles)
        stock = list(reversed(world.stock))  # pop() takes the top
        if end.hand:
            if stock:
                hands[me] |= 1 << stock.pop()
            penalties = _finish_hand(hands, piles, stock, (me + 1) % seats)
        else:
            penalties = [0 if s == me else hand_penalty(h) for s, h in enumerate(hands)]
        points += (sum(penalties) - penalties[me]) / (seats - 1) - penalties[me]
        totals = [t + p for t, p in zip(seen.totals or [0] * seats, penalties, strict=True)]
        deal_by = dealer
        while max(totals) < seen.target:
            deal_by = (deal_by + 1) % seats
            hands, piles, stock = _deal(rng, seats, deal_by)
            penalties = _finish_hand(hands, piles, stock, (deal_by + 1) % seats)
            totals = [t + p for t, p in zip(totals, penalties, strict=True)]
        low = min(totals)
        if totals[me] == low:
            won += 1.0 / totals.count(low)
    return points / len(used), won / len(used)


def _actions(path: Sequence[CardMove]) -> list[Action]:
    return [to_action(m) for m in path]


def _first_difference(
    decision: _Decision, played: Sequence[Action], better: Sequence[Action]
) -> tuple[int, Action]:
    """Where the better line leaves the played one (compared by the table they reach) and
    its action there (``end`` when the better line stops earlier)."""
    seen = Seen.from_view(decision.view)
    hand_a = hand_b = seen.hand
    piles_a = piles_b = seen.piles
    for i, action in enumerate(better):
        move_b = card_move(action)
        assert move_b is not None
        hand_b, piles_b = do_move(hand_b, piles_b, move_b)
        move_a = card_move(played[i]) if i < len(played) else None
        if move_a is None:
            return i, action
        hand_a, piles_a = do_move(hand_a, piles_a, move_a)
        if _key(hand_a, piles_a) != _key(hand_b, piles_b):
            return i, action
    return len(better), END_TURN


#: The reason a review names when the better line differs in several ways: the first of
#: these its actions would be explained by (the codes are listed biggest lesson first).
LESSONS: tuple[str, ...] = CODES


def _reason(
    decision: _Decision, played: Sequence[Action], better: Sequence[Action], draw: str
) -> dict[str, Any]:
    """Why the better line is better: the biggest lesson (:data:`LESSONS`) among its actions
    from where it leaves the played line, a card the played line also played not counting;
    ``at`` is that action's index in the better line. A better line that stops where the
    played one went on is explained by ending there."""
    at, _ = _first_difference(decision, played, better)
    played_cards = {a.card for a in played if isinstance(a, Play)}
    match = decision.match
    lessons: list[tuple[int, int, str, dict[str, str | int]]] = []
    for i, action in enumerate(better):
        if i >= at and not (isinstance(action, Play) and action.card in played_cards):
            code, params = explain(seat_view(match, decision.seat), action, draw)
            lessons.append((LESSONS.index(code), i, code, params))
        match = match.apply(action)
    if lessons:
        _, i, code, params = min(lessons, key=lambda item: (item[0], item[1]))
        return {"code": code, "params": params, "at": i}
    match = decision.match
    for done in played[:at]:
        match = match.apply(done)
    code, params = explain(seat_view(match, decision.seat), END_TURN, draw)
    return {"code": code, "params": params, "at": at}


def _position(view: Mapping[str, Any]) -> dict[str, Any]:
    keys = ("hand", "piles", "stock", "counts", "totals", "dealer", "target", "hand_no")
    return {k: view[k] for k in keys if k in view}


def review_hand(
    record: Mapping[str, Any],
    hand: int,
    seats: Sequence[int],
    config: ReviewConfig = DEFAULT_REVIEW,
) -> dict[int, list[dict[str, Any]]]:
    """The judged decisions of ``seats`` in hand ``hand`` (0-based) of a finished match.

    Each is ``{hand, step, seat, position, played, better, cost}``; where the expert finds
    a better end (``better`` not None) also ``win_chance: {played, better}`` and
    ``reason``. ``step`` is the log index of the decision's first action: the replay
    shows its position after ``step`` steps (``GET .../replay``).
    """
    draw = str(record["options"].get("draw", "end"))
    notes: dict[int, Notes | None] = {s: None for s in seats}
    out: dict[int, list[dict[str, Any]]] = {s: [] for s in seats}
    for decision in decisions(record, seats):
        if decision.hand > hand:
            break
        seen = _seen_of(decision, notes[decision.seat])
        end_hand, end_piles, path = _played_end(seen, decision.actions)
        notes[decision.seat] = remember(decision.view, seen.seat, end_piles, seen.avoid)
        if decision.hand != hand:
            continue
        played = TurnEnd(end_hand, end_piles, path)
        rng = random.Random(f"review:{record['seed']}:{decision.step}")
        better, worlds = judge(seen, played, rng, config)
        played_actions = [a for a in decision.actions if card_move(a) is not None]
        entry: dict[str, Any] = {
            "hand": hand,
            "step": decision.step,
            "seat": decision.seat,
            "position": _position(decision.view),
            "played": [a.text() for a in played_actions],
            "better": None,
            "cost": 0.0,
        }
        if better is not played:
            better_actions = _actions(better.path)
            seed = f"review:{record['seed']}:{decision.step}:outcome"
            dealer = int(decision.view["dealer"])
            points, chance = outcome(seen, played, worlds, dealer, seed, config)
            better_points, better_chance = outcome(seen, better, worlds, dealer, seed, config)
            entry["better"] = [a.text() for a in better_actions]
            entry["cost"] = round(max(0.0, better_points - points), 2)
            entry["win_chance"] = {"played": round(chance, 3), "better": round(better_chance, 3)}
            entry["reason"] = _reason(decision, played_actions, better_actions, draw)
        out[decision.seat].append(entry)
    return out


def summarize(
    record: Mapping[str, Any],
    turns: Mapping[int, Sequence[dict[str, Any]]],
    config: ReviewConfig = DEFAULT_REVIEW,
) -> dict[str, Any]:
    """The review document: per seat, its judged turns and its ``shown`` costliest ones
    (``null`` for a seat not reviewed)."""
    seats: list[dict[str, Any] | None] = []
    for seat in range(int(record["options"].get("seats", 4))):
        if seat not in turns:
            seats.append(None)
            continue
        listed = list(turns[seat])
        costliest = sorted(
            (t for t in listed if t["cost"] >= config.threshold),
            key=lambda t: (-t["cost"], t["step"]),
        )[: config.shown]
        seats.append(
            {
                "seat": seat,
                "turns": len(listed),
                "mistakes": sum(1 for t in listed if t["cost"] >= config.threshold),
                "lost": round(sum(t["cost"] for t in listed), 1),
                "costliest": costliest,
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
    call; a server splits it by hand (:func:`review_hand`) and joins with :func:`summarize`."""
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
    "decisions",
    "judge",
    "outcome",
    "review",
    "review_hand",
    "summarize",
]
