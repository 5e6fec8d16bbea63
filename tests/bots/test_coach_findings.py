"""What the coach tells a player is exact where it can be, and plain to read.

* ``could_go_out`` is true exactly when a line of the turn emptied the hand (and ended the
  hand) and the seat did not play one: checked against an independent, unpruned listing of
  every end of the turn.
* The better line follows the played one up to ``fork`` and differs right there; two lines
  that differ only in which empty corner takes a king, or in the order of independent
  plays, are the same line.
* Every reason code has words in every language the clients speak.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from protocol.bots.base import Seen
from protocol.bots.going_out import align, going_out
from protocol.bots.model import CARD_ID, MOVE, PILE_ID, PLAY
from protocol.bots.review import ReviewConfig, decisions, review, review_hand
from protocol.bots.review_why import GAINS
from protocol.bots.turnsearch import turn_ends
from protocol.engine import NEXT_HAND, Options, legal_actions, new_match

FAST = ReviewConfig(worlds=8, candidates=2, futures=4)
I18N = Path(__file__).resolve().parents[2] / "clients" / "i18n"


def scripted(options: Options, seed: int) -> dict[str, Any]:
    """A match of people who play as the load driver's scripted seats do: a random legal
    action that is not ``end`` four times in five, else ``end`` (when it is legal)."""
    rng = random.Random(seed)
    match = new_match(options, seed=f"coach:{seed}")
    while match.phase != "finished":
        if match.phase == "hand_over":
            match = match.next_hand()
            continue
        actions = legal_actions(match.position)
        ends = [a for a in actions if a.text() == "end"]
        others = [a for a in actions if a.text() != "end"]
        if others and (rng.random() < 0.8 or not ends):
            match = match.apply(rng.choice(others))
        else:
            match = match.apply(ends[0] if ends else rng.choice(actions))
    record = match.record()
    record["id"] = f"coach-{seed}"
    return record


def _could_go_out_unpruned(seen: Seen) -> bool:
    ends, complete = turn_ends(seen.hand, seen.piles, limit=10**7)
    assert complete
    return any(not e.hand and not seen.refills(e.hand, e.piles) for e in ends)


@pytest.mark.parametrize(
    ("seats", "draw", "seed"),
    [(4, "end", 1), (3, "start", 2), (2, "until_playable", 3), (4, "until_playable", 4)],
)
def test_could_go_out_is_exact(seats: int, draw: str, seed: int) -> None:
    record = scripted(Options(seats=seats, target=15, draw=draw), seed)
    everyone = list(range(seats))
    hands = 1 + record["log"].count(NEXT_HAND)
    judged = {
        (t["seat"], t["step"]): t
        for hand in range(hands)
        for items in review_hand(record, hand, everyone, FAST).values()
        for t in items
    }
    flagged = 0
    for decision in decisions(record, everyone):
        turn = judged[(decision.seat, decision.step)]
        seen = Seen.from_view(decision.view)
        exists = _could_go_out_unpruned(seen)
        went_out = _went_out(decision)
        assert turn["could_go_out"] == (exists and not went_out), (decision.step, turn)
        if turn["could_go_out"]:
            flagged += 1
            line = turn["better"]
            assert line is not None and (going_out(seen) is not None)
            assert turn["cost"] >= 0.0
    assert flagged, "scripted people miss a way out now and then"


def _went_out(decision: Any) -> bool:
    match = decision.match
    for action in decision.actions:
        match = match.apply(action)
    return match.position.result is not None and not match.position.hands[decision.seat]


def test_a_missed_way_out_is_said_first() -> None:
    told = 0
    for seed in range(11, 15):
        document = review(scripted(Options(seats=4), seed), None, FAST)
        for seat in document["seats"]:
            assert seat is not None
            shown = seat["costliest"]
            flags = [t["could_go_out"] for t in shown]
            assert flags == sorted(flags, reverse=True)
            for turn in (t for t in shown if t["could_go_out"]):
                told += 1
                reason = turn["reason"]
                assert reason["code"] == "goes_out"
                assert (
                    turn["better"][-1] == f"{reason['params']['card']}>{reason['params']['pile']}"
                )
    assert told


def test_the_better_line_follows_the_played_one_to_its_fork() -> None:
    for seed in (21, 22):
        document = review(scripted(Options(seats=4), seed), None, FAST)
        for seat in document["seats"]:
            assert seat is not None
            for turn in seat["costliest"]:
                fork, played, better = turn["fork"], turn["played"], turn["better"]
                assert better[:fork] == played[:fork]
                if fork < len(played) and fork < len(better):
                    assert better[fork] != played[fork]


def _seen(hand: list[str], piles: dict[str, list[str]]) -> Seen:
    table = {name: [] for name in ("N", "E", "S", "W", "NE", "SE", "SW", "NW")}
    table.update(piles)
    view = {
        "you": 0,
        "seats": 2,
        "hand": hand,
        "piles": table,
        "counts": [len(hand), 7],
        "stock": 20,
        "legal": ["end"],
        "totals": [0, 0],
        "target": 25,
    }
    return Seen.from_view(view)


def test_which_empty_corner_takes_the_king_is_no_fork() -> None:
    seen = _seen(["KS", "QH", "7H"], {"N": ["9D"], "E": ["8C"], "S": ["5H"], "W": ["2D"]})
    king, queen = CARD_ID["KS"], CARD_ID["QH"]
    played = [(PLAY, king, PILE_ID["SW"]), (PLAY, queen, PILE_ID["SW"])]
    seven = (PLAY, CARD_ID["7H"], PILE_ID["E"])
    better = [(PLAY, king, PILE_ID["NE"]), (PLAY, queen, PILE_ID["NE"]), seven]
    fork, line = align(seen, played, better, 4000)
    assert fork == 2
    assert line == (*played, seven)


def test_the_order_of_independent_plays_is_no_fork() -> None:
    seen = _seen(["8D", "4C", "JS"], {"N": ["9C"], "E": ["5H"], "S": ["6D"], "W": ["2D"]})
    a, b = (PLAY, CARD_ID["8D"], PILE_ID["N"]), (PLAY, CARD_ID["4C"], PILE_ID["E"])
    # Played: 8D, then 4C; the better line has them the other way round.
    fork, line = align(seen, [a, b], [b, a], 4000)
    assert fork == 2 and line == (a, b)


def test_going_out_is_found_behind_a_pile_move() -> None:
    # 7H fits on no top; moving the W pile (6C) onto 7D opens a space for it.
    seen = _seen(["7H"], {"N": ["7D"], "E": ["QS"], "S": ["JD"], "W": ["6C"]})
    line = going_out(seen)
    assert line is not None
    assert line[0] == (MOVE, PILE_ID["W"], PILE_ID["N"])
    assert line[-1] == (PLAY, CARD_ID["7H"], PILE_ID["W"])
    assert going_out(_seen(["7H"], {"N": ["7D"], "E": ["QH"], "S": ["JD"], "W": ["5C"]})) is None


def test_every_reason_has_words_in_every_language() -> None:
    for path in sorted(I18N.glob("*.json")):
        words = json.loads(path.read_text())
        missing = [code for code in GAINS if f"gain.{code}" not in words]
        assert not missing, (path.name, missing)
