"""Seeded playouts shared by the bot tests."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from protocol.bots import Bot
from protocol.engine import Match, Options, new_match, seat_view


def playout_views(
    bots: Sequence[Bot], seed: str, options: Options, max_hands: int | None = 2
) -> Iterator[tuple[Match, dict[str, Any], str]]:
    """Play a seeded match with ``bots`` (one per seat), yielding every view a bot answered
    and the action text it chose, with the match it chose in. ``max_hands``: stop after
    that many hands (None: play the match to its end)."""
    match = new_match(options, seed=seed)
    hands = 0
    while match.phase != "finished" and (max_hands is None or hands < max_hands):
        if match.phase == "hand_over":
            match = match.next_hand()
            continue
        seat = match.position.turn
        view = seat_view(match, seat)
        action = bots[seat].choose(view)
        yield match, view, action.text()
        match = match.apply(action, seat)
        if match.position.result is not None:
            hands += 1
