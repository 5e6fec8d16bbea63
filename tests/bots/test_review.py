"""The coach's review: it names a known blunder, shows each seat only what it saw, and is the
same every time."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.bots import Bot, make_bot
from protocol.bots.review import ReviewConfig, decisions, review
from protocol.bots.review_why import GAINS
from protocol.engine import (
    DECK,
    NEXT_HAND,
    Action,
    Options,
    Play,
    action_from_text,
    new_match,
    seat_view,
)

FAST = ReviewConfig(worlds=12, candidates=2, futures=8)


class KingKeeper:
    """A heuristic player with one bad habit: it never lets go of a king."""

    level = "king-keeper"

    def __init__(self, seed: str) -> None:
        self.bot = make_bot("heuristic", seed)

    def choose(self, view: Mapping[str, Any]) -> Action:
        action = self.bot.choose(view)
        if isinstance(action, Play) and action.card.startswith("K"):
            legal = [a for a in view["legal"] if not a.startswith("K")]
            return action_from_text("end" if "end" in legal else legal[0])
        return action


def _play(options: Options, seed: str, bots: Sequence[Bot]) -> dict[str, Any]:
    """A finished match of ``bots`` as history keeps it."""
    match = new_match(options, seed=seed)
    while match.phase != "finished":
        if match.phase == "hand_over":
            match = match.next_hand()
            continue
        seat = match.position.turn
        match = match.apply(bots[seat].choose(seat_view(match, seat)))
    record = match.record()
    record["id"] = f"{seed}-1"
    return record


def _bots(levels: Sequence[str], seed: str) -> list[Bot]:
    return [make_bot(level, f"{seed}:{i}", budget_ms=None) for i, level in enumerate(levels)]


def test_the_review_names_a_king_kept_while_a_corner_was_open() -> None:
    bots: list[Bot] = [KingKeeper("k3"), *_bots(["heuristic"] * 3, "k3")]
    record = _play(Options(seats=4), "k3", bots)

    seat = review(record, [0])["seats"][0]

    kept = [t for t in seat["costliest"] if t["reason"]["code"] == "saves_king"]
    assert kept, seat["costliest"]
    worst = kept[0]
    assert not any(text.startswith("K") for text in worst["played"])
    reason = worst["reason"]
    king = worst["better"][reason["at"]]
    assert king == f"{reason['params']['card']}>{reason['params']['pile']}"
    assert king.startswith("K") and king.split(">")[1] in {"NE", "SE", "SW", "NW"}
    assert worst["cost"] >= 5.0  # a king is ten points in hand
    assert king.split(">")[0] in worst["position"]["hand"]
    assert record["log"][worst["step"]] == (worst["played"] or ["end"])[0]
    for turn in seat["costliest"]:
        chance = turn["win_chance"]
        assert 0.0 <= chance["played"] <= 1.0 and 0.0 <= chance["better"] <= 1.0
    opening = [t for t in seat["costliest"] if not any(t["position"]["totals"])]
    assert opening, "a king kept in the first hand, the match still open"
    assert all(t["win_chance"]["better"] > t["win_chance"]["played"] for t in opening)


def test_a_review_is_the_same_every_time_and_lists_at_most_three_costliest() -> None:
    record = _play(Options(seats=3), "again", _bots(["easy"] * 3, "again"))
    first = review(record, None, FAST)
    assert json.dumps(review(record, None, FAST)) == json.dumps(first)
    for seat in first["seats"]:
        assert seat is not None
        shown = seat["costliest"]
        assert len(shown) <= 3
        assert all(t["cost"] >= FAST.threshold or t["could_go_out"] for t in shown)
        # Going out missed comes first, then the costliest.
        flags = [t["could_go_out"] for t in shown]
        assert flags == sorted(flags, reverse=True)
        rest = [t["cost"] for t in shown if not t["could_go_out"]]
        assert rest == sorted(rest, reverse=True)
        assert all(t["reason"]["code"] in GAINS for t in shown)
    assert any(seat and seat["costliest"] for seat in first["seats"])  # easy bots blunder


def _visible(record: Mapping[str, Any], step: int, seat: int) -> tuple[set[str], set[str]]:
    """The seat's hand and the table's cards just before log entry ``step``."""
    match = new_match(
        Options.from_dict(record["options"]),
        seed=record["seed"],
        decks=record.get("decks") or (),
        dealer=record["first_dealer"],
    )
    for entry in record["log"][:step]:
        match = match.next_hand() if entry == NEXT_HAND else match.apply(action_from_text(entry))
    table = {card for pile in match.position.piles for card in pile}
    return set(match.position.hands[seat]), table


def _cards_in(value: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(value, str):
        for part in value.replace(">", " ").split():
            if part in DECK:
                found.add(part)
    elif isinstance(value, Mapping):
        for item in value.values():
            found |= _cards_in(item)
    elif isinstance(value, list):
        for item in value:
            found |= _cards_in(item)
    return found


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.text(alphabet="abcdefgh", min_size=1, max_size=6),
    seats=st.integers(2, 4),
    draw=st.sampled_from(["end", "start", "until_playable"]),
)
def test_no_review_shows_a_card_its_seat_did_not_see(seed: str, seats: int, draw: str) -> None:
    options = Options(seats=seats, target=15, draw=draw)
    levels = ["easy", "heuristic", "medium", "easy"][:seats]
    record = _play(options, seed, _bots(levels, seed))
    document = review(record, None, FAST)
    for seat, judged in enumerate(document["seats"]):
        assert judged is not None
        for turn in judged["costliest"]:
            hand, table = _visible(record, turn["step"], seat)
            assert set(turn["position"]["hand"]) == hand
            assert _cards_in(turn) <= hand | table, (seat, turn)


def test_decisions_split_turns_at_draws_and_skip_the_forced_ones() -> None:
    options = Options(seats=2, draw="until_playable")
    record = _play(options, "split", _bots(["heuristic"] * 2, "split"))
    found = decisions(record, [0, 1])
    assert found
    for decision in found:
        texts = [a.text() for a in decision.actions]
        assert texts != ["draw"]
        assert "draw" not in texts[:-1]  # a draw ends a decision
        assert record["log"][decision.step] == texts[0]
