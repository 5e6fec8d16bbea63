"""The Redis store through Sentinels: a primary is killed (-9) and a replica takes over.

The servers sync their append-only file on every write, and each test waits until the
replica has acknowledged everything before it kills the primary: then a fail-over must lose
nothing. (Writes the replica had not received yet would be lost; see docs/deploy.md.)
"""

from __future__ import annotations

import asyncio
import random
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from clients.net import GameClient
from protocol.errors import StoreUnavailable
from tests.multiprocess.conftest import ServerProcess
from tests.multiprocess.test_two_processes import start_two, table
from tests.redis_helpers import UNIT, eventually
from tests.server.test_match_flow import next_mover, play_until_finished
from tests.store.test_contract import Inbox, ev

from .conftest import topology_store
from .topology import SentinelGroup, wait_for

pytestmark = pytest.mark.topology

#: Longest a fail-over may take here (Sentinels notice after 1 s; promotion takes a few).
FAIL_OVER_WITHIN = 300 * UNIT


@pytest.fixture
def group() -> Iterator[SentinelGroup]:
    """A Sentinel group of this test alone, whose primary it may kill."""
    with tempfile.TemporaryDirectory(prefix="kc-sentinel-") as root:
        made = SentinelGroup(Path(root))
        try:
            made.start()
            yield made
        finally:
            made.stop()


async def kill_primary_when_replicated(group: SentinelGroup) -> float:
    """Wait until the replica has everything, SIGKILL the primary; return the time of death."""
    await asyncio.to_thread(wait_for, group.replicated, 50 * UNIT, "the replica to catch up")
    group.primary.kill()
    return time.monotonic()


async def test_the_store_finds_the_promoted_replica_by_itself(
    group: SentinelGroup, prefix: str
) -> None:
    store = topology_store(group.url, prefix)
    publisher = topology_store(group.url, prefix)
    try:
        inbox = Inbox()
        store.set_handler(inbox)
        await store.subscribe("room:ROOM")
        assert store.listening_on == group.primary.address
        await store.create_room("ROOM", ev(0))
        for n in range(1, 20):
            await store.append("ROOM", n, [ev(n)])
        await store.set_listing("ROOM", {"code": "ROOM"})
        assert await store.lead("ROOM", "process-a", 600 * UNIT)

        died = await kill_primary_when_replicated(group)

        async def appended() -> bool:
            try:
                return await store.append("ROOM", 20, [ev(20)]) == 21
            except StoreUnavailable:
                return False

        await eventually(appended, FAIL_OVER_WITHIN)
        unavailable_for = time.monotonic() - died
        assert group.primary_port() == group.replica.port
        assert await store.read("ROOM") == [ev(n) for n in range(21)]
        assert await store.listings() == [{"code": "ROOM"}]
        assert not await publisher.lead("ROOM", "process-b", 600 * UNIT)

        # The announcement connection went over to the new primary and resubscribed.
        async def heard() -> bool:
            try:
                await publisher.publish("room:ROOM", {"probe": 1})
                return await inbox.next(within=2 * UNIT) == ("room:ROOM", {"probe": 1})
            except (StoreUnavailable, TimeoutError):
                return False

        await eventually(heard, FAIL_OVER_WITHIN)
        assert store.listening_on == group.replica.address
        assert unavailable_for < FAIL_OVER_WITHIN
    finally:
        await store.close()
        await publisher.close()


async def act_until_stored(mover: GameClient, action: Any, within: float) -> float:
    """Send ``action`` until the server stores it; return how long it was refused."""
    start = time.monotonic()
    while True:
        reply = await mover.act(action)
        if reply["type"] == "patch":
            return time.monotonic() - start
        assert reply.get("code") == "store_unavailable", reply
        assert time.monotonic() - start < within, "the store stayed unavailable"
        await asyncio.sleep(UNIT)


async def test_a_match_between_two_processes_goes_on_through_a_fail_over(
    group: SentinelGroup, prefix: str, processes: list[ServerProcess]
) -> None:
    a, b = await start_two(group.url, prefix, processes)
    players = await table([a.url, b.url], seats=2, target=10)
    rng = random.Random(3)
    try:
        for _ in range(8):
            mover = await next_mover(players)
            assert mover is not None
            await mover.act(rng.choice(mover.game["legal"]))  # type: ignore[index]
        version = max(p.version for p in players)
        for p in players:
            await p.until(lambda c: c.version == version)
        hands = {p.seat: list(p.game["hand"]) for p in players}  # type: ignore[index]

        await kill_primary_when_replicated(group)

        mover = await next_mover(players)
        assert mover is not None
        refused_for = await act_until_stored(mover, mover.game["legal"][0], FAIL_OVER_WITHIN)  # type: ignore[index]
        # Nothing acknowledged before the kill was lost: the move applied on top of it.
        assert mover.version > version
        assert group.primary_port() == group.replica.port
        for p in players:
            await p.until(lambda c: c.version == mover.version, 20)
            assert p.game is not None and p.seat is not None
            if p is not mover:
                assert p.game["hand"] == hands[p.seat]
        store = topology_store(group.url, prefix)
        try:
            assert players[0].room is not None
            assert len(await store.read(players[0].room)) == mover.version
        finally:
            await store.close()
        await play_until_finished(players, rng)
        for p in players:
            await p.until(lambda c: c.game is not None and c.game["phase"] == "finished", 20)

        async def agree() -> bool:
            # The match's rating event may be stored just after its last move.
            return len({p.version for p in players}) == 1

        await eventually(agree)
        assert refused_for < FAIL_OVER_WITHIN
    finally:
        for p in players:
            await p.close()
