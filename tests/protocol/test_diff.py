"""Patches between two views: applying the diff always gives the new view."""

from __future__ import annotations

import random
from typing import Any

import jsonpatch
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.diff import diff
from protocol.engine import Options, legal_actions, new_match, public_view, seat_view

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text("ab/~", max_size=3),
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(st.text("ab/~", max_size=3), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(json_values, json_values)
def test_applying_the_diff_of_any_two_documents_gives_the_new_one(old: Any, new: Any) -> None:
    doc = {"v": old}
    assert jsonpatch.apply_patch(doc, diff(doc, {"v": new})) == {"v": new}


def test_diffs_between_views_of_seeded_games_round_trip_and_stay_small() -> None:
    rng = random.Random(4)
    sizes: list[int] = []
    for game in range(30):
        match = new_match(Options(seats=rng.choice((2, 3, 4))), seed=game)
        while match.phase == "playing":
            before = [seat_view(match, s) for s in range(match.options.seats)]
            before.append(public_view(match))
            match = match.apply(rng.choice(legal_actions(match.position)))
            after = [seat_view(match, s) for s in range(match.options.seats)]
            after.append(public_view(match))
            for old, new in zip(before, after, strict=True):
                ops = diff(old, new)
                assert jsonpatch.apply_patch(old, ops) == new
                sizes.append(len(ops))
    sizes.sort()
    assert sizes[len(sizes) // 2] <= 4
