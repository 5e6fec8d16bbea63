"""A Sentinel fail-over to a replica that lagged: the store goes backwards.

The replica is cut off from the primary (paused, its replication link killed) while moves
go on; then the primary dies and the Sentinels promote the replica, which never received
those moves. Two server processes must notice, reload, tell their clients, and agree with
the store again; every stored log must replay legally.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal

import pytest

from server.store.redis_store import RedisStore
from tests.invariants import replay
from tests.multiprocess.conftest import ServerProcess
from tests.multiprocess.test_store_rewind import play, tables
from tests.multiprocess.test_two_processes import start_two
from tests.redis_helpers import UNIT

from .test_sentinel import group
from .topology import SentinelGroup, wait_for

__all__ = ["group"]

pytestmark = pytest.mark.topology


async def test_a_fail_over_to_a_lagging_replica_is_detected_and_survived(
    group: SentinelGroup, prefix: str, processes: list[ServerProcess]
) -> None:
    a, b = await start_two(group.url, prefix, processes)
    rooms = await tables([a.url, b.url])
    everyone = [p for pair in rooms for p in pair]
    rng = random.Random(11)
    try:
        for pair in rooms:
            await play(pair, rng, 3)
        await asyncio.to_thread(wait_for, group.replicated, 50 * UNIT, "the replica")
        replica = group.replica.process
        assert replica is not None
        os.kill(replica.pid, signal.SIGSTOP)
        try:
            with group.primary.client() as primary:
                primary.client_kill_filter(_type="replica")
            for pair in rooms:
                await play(pair, rng, 4)  # acknowledged by the primary alone
            group.primary.kill()
        finally:
            os.kill(replica.pid, signal.SIGCONT)
        await asyncio.to_thread(
            wait_for, lambda: group.primary_port() == group.replica.port, 300 * UNIT, "fail-over"
        )
        await asyncio.gather(*(play(pair, rng, None) for pair in rooms))
        rewound = {f["room"] for p in everyone for f in p.frames if f["type"] == "rewound"}
        assert rewound == {pair[0].room for pair in rooms}
        store = RedisStore(group.url, prefix)
        try:
            for pair in rooms:
                assert pair[0].room is not None
                room = replay(await store.read(pair[0].room))
                assert room.phase == "finished"
                for p in pair:
                    await p.until(lambda c, r=room, s=p.seat: c.doc == r.doc(s), 10)
        finally:
            await store.close()
    finally:
        for p in everyone:
            await p.close()
