"""Under ``draw: until_playable`` a client tells from its document alone whether a card of the
hand was played this turn, so that after a resync it can explain why ``end`` is missing
(issue 48, item 10). docs/protocol.md, *The document*, gives the rule this checks on every
turn of random matches, ``kings_first`` on and off: with the stock not empty, ``end`` is in
``legal`` exactly when a card was played this turn and ``kings_first`` does not hold the turn
(a king in the hand while a corner is empty)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from protocol.engine import Options, legal_actions, new_match, seat_view

CORNERS = ("NE", "SE", "SW", "NW")


def played_this_turn(game: dict[str, Any], kings_first: bool) -> bool | None:
    """What docs/protocol.md says a client reads in ``doc.game`` on its turn: whether a card
    of the hand was played this turn (None where it cannot tell: the stock is empty, or
    kings_first holds the turn anyway)."""
    if game["stock"] == 0:
        return None  # ending is allowed anyway: nothing to explain
    king_held = any(card.startswith("K") for card in game["hand"])
    corner_free = any(not game["piles"][name] for name in CORNERS)
    if kings_first and king_held and corner_free:
        return None  # `end` is missing for the king, whatever was played
    return "end" in game["legal"]


@pytest.mark.parametrize("kings_first", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_the_document_tells_whether_a_card_was_played(kings_first: bool, seed: int) -> None:
    options = Options(seats=3, target=30, draw="until_playable", kings_first=kings_first)
    match = new_match(options, seed=seed)
    rng = random.Random(seed)
    told = 0
    for _ in range(3000):
        if match.phase == "finished":
            break
        if match.phase == "hand_over":
            match = match.next_hand()
            continue
        pos = match.position
        read = played_this_turn(seat_view(match, pos.turn), kings_first)
        if read is not None:
            assert read == pos.played, (seed, pos)
            told += 1
        legal = legal_actions(pos)
        match = match.apply(rng.choice(legal))
    assert told > 50
