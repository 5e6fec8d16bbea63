"""The patches of one change are right for every viewer, whichever way they were made: by
diffing fresh documents, or built from the old documents after one action."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import jsonpatch
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.engine import Match, Options, legal_actions, new_match, public_view, seat_view
from server.app import GameServer
from server.connection import Connection
from server.fanout import after_move, patches

from .conftest import ClientFactory


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


def size(ops: list[dict[str, Any]]) -> int:
    return len(json.dumps(ops, separators=(",", ":")))


#: The rules the documents differ by: the standard ones, and each variant that adds keys.
RULES: list[dict[str, Any]] = [
    {},
    {"opening_refill": True},
    {"scoring": "corners"},
    {"opening_refill": True, "scoring": "corners"},
]


@settings(max_examples=25, deadline=None)
@given(
    seats=st.integers(2, 4),
    seed=st.integers(0, 10**6),
    spectator=st.booleans(),
    rules=st.sampled_from(RULES),
)
def test_documents_built_from_the_old_ones_equal_fresh_ones(
    seats: int, seed: int, spectator: bool, rules: dict[str, Any]
) -> None:
    rng = random.Random(seed)
    match = new_match(Options(seats=seats, target=500, **rules), seed=seed)
    info = {"phase": "playing"}
    # Not every seat is watched: a seat nobody holds has no document.
    viewers: list[int | None] = [s for s in range(seats) if rng.random() < 0.8]
    if spectator:
        viewers.append(None)
    old = {v: d for v, d in docs(match, info).items() if v in viewers}
    built = 0
    for _ in range(300):
        pos = match.position
        if match.phase == "finished":  # a corners match is one hand
            break
        if pos.result is not None:
            after = match.next_hand()
        else:
            after = match.apply(rng.choice(list(legal_actions(pos))), pos.turn)
        fresh = {v: d for v, d in docs(after, info).items() if v in viewers}
        moved = after_move(old, viewers, match, after)
        if after.position.result is not None or after.hand_index != match.hand_index:
            assert moved is None  # the hand ended or a new one began: diffed instead
        elif viewers:
            assert moved is not None
            new, ops = moved
            built += 1
            assert new == fresh
            diffed = patches(old, fresh)
            for viewer in viewers:
                # Never more to send than diffing would (ops may differ in form).
                assert size(ops[viewer]) <= size(diffed[viewer] or []) + 40, viewer
                patched = jsonpatch.apply_patch(copy.deepcopy(old[viewer]), ops[viewer])
                assert patched == fresh[viewer]
            # The old documents are untouched: a new one shares only unchanged parts.
            assert old == {v: d for v, d in docs(match, info).items() if v in viewers}
        old, match = fresh, after
    assert built > 0 or not viewers


def test_a_viewer_without_an_old_document_is_diffed_instead() -> None:
    match = new_match(Options(seats=2), seed=1)
    after = match.apply(legal_actions(match.position)[0], match.position.turn)
    old = docs(match, {})
    del old[1]
    assert after_move(old, [None, 0, 1], match, after) is None


async def test_one_change_is_encoded_once_per_distinct_payload(
    server: GameServer, client: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seats whose operations are the same and the spectators get one bytes object."""
    sent: list[tuple[Connection[Any], bytes]] = []
    original = Connection.send

    def send(self: Connection[Any], frame: bytes) -> None:
        sent.append((self, frame))
        original(self, frame)

    monkeypatch.setattr(Connection, "send", send)
    people = [await client(name) for name in ("Ana", "Bea", "Cy", "Dee")]
    # A fixed deal in which the first mover has a card to play (some deals have none).
    code = await people[0].create(seats=4, target=500, seed="fanout-1")
    for person in people[1:]:
        await person.join(code)
        await person.ready()
    watchers = [await client(f"Watcher{i}") for i in range(2)]
    for watcher in watchers:
        await watcher.join(code, spectate=True)
    await people[0].start()
    for person in people:
        await person.until(lambda c: c.game is not None)
    assert people[0].game is not None
    mover = next(p for p in people if p.seat == people[0].game["turn"])
    await mover.until(lambda c: c.my_turn)
    assert mover.game is not None
    play = next(a for a in mover.game["legal"] if ">" in a)  # a card onto a pile: turn goes on
    sent.clear()
    await mover.act(play)
    for person in [*people, *watchers]:
        await person.until(lambda c, v=mover.version: c.version == v)
    patches_sent = [(conn, frame) for conn, frame in sent if frame.startswith(b'{"type":"patch"')]
    assert len(patches_sent) == 6  # four seats, two spectators
    distinct = {id(frame) for _, frame in patches_sent}
    # The mover's own (with its seq and its hand), and one shared by the other three seats
    # and both spectators.
    assert len(distinct) == 2
    others = [frame for conn, frame in patches_sent if conn.seat != mover.seat]
    assert all(frame is others[0] for frame in others)
