"""A bot turn a person waits for is thought at the server's priority; the rest stays idle.

Real worker processes throughout: the pool's own seam (:class:`server.bot_pool.BotPool`)
with a job that reports, from inside the worker, its scheduling class and niceness, and a
real server whose driver says which turns are urgent.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Mapping
from typing import Any

import pytest

from clients.net import GameClient
from protocol.engine import Action, new_match, seat_view
from server import bot_pool
from server.app import GameServer
from server.bot_pool import NICE, BotPool, BotSeat

from .conftest import ClientFactory
from .test_unattended import leave, until_a_bot_acted
from .worker_jobs import where, where_by, where_reviewed


@pytest.fixture
async def pool() -> AsyncIterator[BotPool]:
    p = BotPool(1, 2)
    try:
        yield p
    finally:
        p.shutdown()


def _is_idle(policy: int | None, niceness: int) -> bool:
    if hasattr(os, "SCHED_IDLE") and policy != os.SCHED_IDLE:
        return False
    return niceness >= os.nice(0) + NICE or niceness == 19


async def test_an_urgent_turn_goes_to_the_normal_priority_workers(
    pool: BotPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bot_pool, "decide", where)
    monkeypatch.setattr(bot_pool, "decide_by", where_by)
    seat = BotSeat("expert", "s")
    policy, niceness = await pool.choose(seat, {}, urgent=True)  # type: ignore[misc]
    assert niceness == os.nice(0)  # the server's own priority, never above it
    if hasattr(os, "SCHED_OTHER"):
        assert policy == os.SCHED_OTHER
    # Unwatched, bot-only and settling turns: the idle workers, as before.
    assert _is_idle(*await pool.choose(seat, {}, urgent=False))  # type: ignore[misc]
    assert _is_idle(*await pool.choose(seat, {}))  # type: ignore[misc]
    assert pool.started and pool._executor is not None


async def test_no_urgent_workers_keeps_everything_idle(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bot_pool, "decide_by", where_by)
    p = BotPool(1, urgent_workers=0)
    try:
        where_it_ran = await p.choose(BotSeat("expert", "s"), {}, urgent=True)
        assert _is_idle(*where_it_ran)  # type: ignore[misc]
    finally:
        p.shutdown()


@pytest.mark.parametrize(
    ("waited_ms", "budget_ms", "thinks_ms"),
    [(50.0, 75.0, 25.0), (1000.0, 75.0, bot_pool.MIN_URGENT_BUDGET_MS), (1000.0, None, None)],
)
def test_a_decision_a_person_waits_for_counts_its_queueing_against_its_budget(
    monkeypatch: pytest.MonkeyPatch,
    waited_ms: float,
    budget_ms: float | None,
    thinks_ms: float | None,
) -> None:
    given: list[float | None] = []

    def decide(*_: Any, budget_ms: float | None) -> tuple[Any, Any]:
        given.append(budget_ms)
        return "a", None

    monkeypatch.setattr(bot_pool, "decide", decide)
    asked_at = time.monotonic() - waited_ms / 1000.0
    bot_pool.decide_by(asked_at, "expert", "s", None, {}, budget_ms=budget_ms)
    if thinks_ms is None:
        assert given == [None]  # no clock: the answer never depends on the machine
    else:
        assert given[0] is not None and thinks_ms - 5 <= given[0] <= thinks_ms


async def _play(pool: BotPool, urgent: bool, steps: int) -> list[str]:
    """A match of four ``medium`` bots without a clock, every decision ``urgent`` or not."""
    match = new_match(seed="priority")
    bots = [BotSeat("medium", f"seed-{seat}", budget_ms=None) for seat in range(4)]
    moves: list[str] = []
    while len(moves) < steps and match.phase == "playing":
        seat = match.position.turn
        action: Action = await pool.choose(bots[seat], seat_view(match, seat), urgent=urgent)
        moves.append(action.text())
        match = match.apply(action, seat)
    return moves


async def test_the_answers_are_the_same_in_either_pool() -> None:
    # Not idle-class here: forty decisions in SCHED_IDLE beside busy processes take minutes,
    # and where a worker runs cannot change what it answers (the first test checks where).
    pool = BotPool(1, 2, idle_class=False)
    try:
        idle = await _play(pool, urgent=False, steps=40)
        urgent = await _play(pool, urgent=True, steps=40)
    finally:
        pool.shutdown()
    assert len(idle) >= 20 and idle == urgent


async def test_the_idle_class_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bot_pool, "decide", where)
    p = BotPool(1, 2, idle_class=False)
    try:
        policy, niceness = await p.choose(BotSeat("expert", "s"), {})  # type: ignore[misc]
    finally:
        p.shutdown()
    assert niceness >= min(19, os.nice(0) + NICE)  # still below the server's priority
    if hasattr(os, "SCHED_OTHER"):
        assert policy == os.SCHED_OTHER


# --- the driver: which turns a person waits for ---------------------------------------------


async def test_the_driver_asks_urgently_only_while_a_person_plays_and_watches(
    server: GameServer, client: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[bool] = []
    choose = server.bots.pool.choose

    async def recording(bot: BotSeat, view: Mapping[str, Any], urgent: bool = False) -> Action:
        asked.append(urgent)
        return await choose(bot, view, urgent)

    monkeypatch.setattr(server.bots.pool, "choose", recording)
    ana = await client("Ana")
    await ana.create(seats=2, target=500, bots=[None, "heuristic"])
    await ana.start()
    await until_a_bot_acted(server, ana)
    assert asked and all(asked)  # Ana plays and watches: every turn is urgent
    # Ana gone: her match settles; a room of bots only, watched by a spectator: idle.
    await leave(ana)
    asked.clear()
    bea = await client("Bea")
    code = await bea.create(seats=2, target=500, bots=[None, "heuristic"])
    await bea.start()
    await leave(bea)  # a bot takes Bea's seat; nobody is left: the match settles at once
    watcher = GameClient(bea.url, "Cy")
    await watcher.connect()
    try:
        await watcher.join(code, spectate=True)
        # Bounded, not timed: the idle workers' turns come as the machine allows.
        deadline = asyncio.get_running_loop().time() + 60
        # Three idle turns in a row (on Redis, Bea's presence may outlive her leave for a
        # moment, and one turn then still counts as watched by a person).
        while len(asked) < 3 or any(asked[-3:]):
            assert asyncio.get_running_loop().time() < deadline, asked
            await asyncio.sleep(0.05)
    finally:
        await watcher.close()
    assert asked and not any(asked[-3:])


async def test_a_review_runs_idle_class_until_somebody_waits_for_it(
    pool: BotPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bot_pool, "review_hand", where_reviewed)
    # Nobody waits: CPU nothing else wants (niced alone it took a loaded server's moves).
    assert _is_idle(*await pool.review_hand({}, 0, [0]))  # type: ignore[misc]
    # Somebody waits: niced, but not idle-class, which beside busy processes gets no CPU.
    policy, niceness = await pool.review_hand({}, 0, [0], asked=True)  # type: ignore[misc]
    assert niceness == os.nice(0) + bot_pool.NICE
    if hasattr(os, "SCHED_OTHER"):
        assert policy == os.SCHED_OTHER
    assert pool.reviews_asked_apart
