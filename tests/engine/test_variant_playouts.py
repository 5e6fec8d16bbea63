"""Random games under ``opening_refill`` and ``scoring: corners``, with every draw rule and
``kings_first``: every action keeps the cards and piles sound, views never show a hidden card,
and every logged game replays to the same match."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.engine import (
    Options,
    format_position,
    legal_actions,
    new_match,
    parse_position,
    public_view,
    replay,
    seat_view,
)
from protocol.engine.cards import CARDS

from .support import assert_piles_well_formed, cards_in

MAX_ACTIONS = 3000

options_strategy = st.builds(
    Options,
    seats=st.integers(2, 4),
    target=st.integers(1, 60),
    draw=st.sampled_from(["end", "start", "until_playable"]),
    kings_first=st.booleans(),
    opening_refill=st.booleans(),
    scoring=st.sampled_from(["penalty", "corners"]),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options=options_strategy, seed=st.integers(0, 10**6))
def test_random_variant_games_stay_sound_and_replay(options: Options, seed: int) -> None:
    rng = random.Random(seed)
    match = new_match(options, seed=seed)
    for step in range(MAX_ACTIONS):
        if match.phase == "finished":
            break
        if match.phase == "hand_over":
            match = match.next_hand()
            continue
        pos = match.position
        legal = legal_actions(pos)
        # Prefer plays and moves, so corners get completed and refills happen.
        busy = [a for a in legal if a.text() not in ("end", "draw")]
        action = rng.choice(busy) if busy and rng.random() < 0.9 else rng.choice(legal)
        match = match.apply(action)
        pos = match.position
        on_table = sum(len(p) for p in pos.piles)
        held = sum(len(h) for h in pos.hands)
        assert on_table + held + len(pos.stock) + 13 * sum(pos.collected) == 52
        assert_piles_well_formed(pos)
        assert all(len(p) < 13 for p in pos.piles[4:]) or options.scoring == "penalty"
        if pos.result is None and step % 7 == 0:
            assert parse_position(format_position(pos), pos.options) == pos
            hidden = set(pos.stock)
            assert not cards_in(public_view(match)) & hidden
            seen = seat_view(match, pos.turn)
            others = {c for i, h in enumerate(pos.hands) if i != pos.turn for c in h}
            assert not cards_in(seen) & (hidden | others)
    if options.scoring == "corners" and match.phase == "finished":
        assert len(match.results) == 1
        assert sorted(match.places)[0] == 1 and set(match.winners) <= set(range(options.seats))
    assert cards_in(match.record()["log"]) <= CARDS
    assert replay(match.record()) == match
