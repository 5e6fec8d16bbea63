"""The shared-part patches of one change are right for every viewer."""

from __future__ import annotations

import copy
import random
from typing import Any

import jsonpatch
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.engine import Match, Options, legal_actions, new_match, public_view, seat_view
from server.fanout import patches


def docs(match: Match, info: dict[str, Any]) -> dict[int | None, dict[str, Any]]:
    public = public_view(match)
    out: dict[int | None, dict[str, Any]] = {None: {"room": info, "game": public}}
    for seat in range(match.options.seats):
        out[seat] = {"room": info, "game": seat_view(match, seat, public)}
    return out


@settings(max_examples=25, deadline=None)
@given(seats=st.integers(2, 4), seed=st.integers(0, 10**6))
def test_every_viewer_reaches_its_new_document(seats: int, seed: int) -> None:
    rng = random.Random(seed)
    match = new_match(Options(seats=seats, target=500), seed=seed)
    info = {"phase": "playing", "n": 0}
    old = docs(match, info)
    for step in range(100):
        pos = match.position
        if pos.result is not None:
            match = match.next_hand()
        else:
            match = match.apply(rng.choice(list(legal_actions(pos))), pos.turn)
        if step % 17 == 0:
            info = {**info, "n": step}  # the room section changes now and then
        new = docs(match, info)
        ops = patches(old, new)
        for viewer, doc in new.items():
            viewer_ops = ops[viewer]
            assert viewer_ops is not None
            assert jsonpatch.apply_patch(copy.deepcopy(old[viewer]), viewer_ops) == doc
        old = new


def test_a_viewer_without_an_old_document_needs_a_snapshot() -> None:
    match = new_match(Options(seats=2), seed=1)
    new = docs(match, {})
    assert patches({}, new) == {None: None, 0: None, 1: None}
