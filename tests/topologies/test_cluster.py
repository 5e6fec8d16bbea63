"""The Redis store on a local 3-primary Redis Cluster: shards, announcements, a dead node."""

from __future__ import annotations

import asyncio
import random
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.errors import StoreUnavailable
from tests.multiprocess.conftest import ServerProcess
from tests.multiprocess.test_two_processes import start_two, table
from tests.redis_helpers import UNIT, eventually
from tests.server.test_match_flow import play_until_finished
from tests.store.test_contract import Inbox, ev

from .conftest import topology_store
from .topology import LocalCluster, RedisProcess, wait_for

pytestmark = pytest.mark.topology


def codes_on(cluster: LocalCluster, node: RedisProcess, count: int, prefix: str) -> list[str]:
    """``count`` room codes whose keys live on ``node``."""
    found: list[str] = []
    n = 0
    while len(found) < count:
        code = f"R{n:04d}"
        if cluster.owner(f"{prefix}:{{room:{code}}}:events") is node:
            found.append(code)
        n += 1
    return found


async def test_every_operation_works_with_keys_spread_over_every_shard(
    cluster: LocalCluster, prefix: str
) -> None:
    store = topology_store(cluster.url, prefix)
    try:
        codes = [f"S{n:03d}" for n in range(40)]
        for code in codes:
            assert await store.create_room(code, ev(0))
            assert await store.append(code, 1, [ev(1), ev(2)]) == 3
            await store.set_listing(code, {"code": code})
        members = {f"c{n}": {"id": f"c{n}", "room": code} for n, code in enumerate(codes)}
        await store.heartbeat("p1", members, 600 * UNIT)
        await store.heartbeat("p1", dict(list(members.items())[:5]), 600 * UNIT)
        for seats in (2, 3, 4):
            await store.queue_join(seats, {"id": f"t{seats}", "at": 0})
        await store.save_match("m1", {"winner": "p1"}, [f"player-{n}" for n in range(20)])
        await store.record_result("player-1", "One", True, 4, 3)
        await store.record_daily(
            "2024-05-01", {"player": "p", "name": "P", "penalty": 1, "hands": 2}
        )

        tag = await store.set_name("player-1", "One")
        assert await store.set_recovery("player-1", "code-hash", 0) == 1
        rating = {"mu": 26.0, "sigma": 8.0, "matches": 3}
        assert await store.update_ratings({"player-1": 0}, {"player-1": rating}, {"player-1": 2.0})

        assert await store.names(["player-1", "player-2"]) == {"player-1": "One"}
        assert await store.recover("code-hash") == "player-1"
        assert await store.tags(["player-1", "player-2"]) == {"player-1": tag}
        assert await store.identity("player-1") == (1, "One", tag)
        assert await store.ratings(["player-1"]) == {"player-1": rating}
        assert [r["player"] for r in await store.rating_board()] == ["player-1"]
        assert sorted(await store.room_codes()) == codes
        assert len(await store.listings()) == len(codes)
        assert await store.presence(codes[0]) == [members["c0"]]
        assert await store.presence(codes[-1]) == []
        assert [await store.queue_length(s) for s in (2, 3, 4)] == [1, 1, 1]
        assert await store.player_matches("player-17") == ["m1"]
        assert (await store.alltime_board())[0]["player"] == "player-1"
        for code in codes:
            await store.delete_room(code)
        assert await store.room_codes() == []
        assert await store.listings() == []
    finally:
        await store.close()
    # The keys really were spread: every primary held some of them.
    for node in cluster.nodes:
        with node.client() as client:
            assert any(True for _ in client.scan_iter(match=f"{prefix}:*", count=1000))


async def test_announcements_of_rooms_on_every_shard_reach_every_subscriber(
    cluster: LocalCluster, prefix: str
) -> None:
    subscribers = [topology_store(cluster.url, prefix) for _ in range(2)]
    publisher = topology_store(cluster.url, prefix)
    inboxes = [Inbox() for _ in subscribers]
    codes = [codes_on(cluster, node, 1, prefix)[0] for node in cluster.nodes]
    try:
        for store, inbox in zip(subscribers, inboxes, strict=True):
            store.set_handler(inbox)
            for code in codes:
                await store.subscribe(f"room:{code}")
        # One subscriber connection per shard holding a subscribed channel: here, every one.
        addresses = ",".join(sorted(n.address for n in cluster.nodes))
        assert {s.listening_on for s in subscribers} == {addresses}
        for version in range(3):
            for code in codes:
                await publisher.publish(f"room:{code}", {"v": version})
        for inbox in inboxes:
            heard = [await inbox.next() for _ in range(3 * len(codes))]
            for code in codes:
                assert [m for c, m in heard if c == f"room:{code}"] == [{"v": v} for v in range(3)]
    finally:
        for store in [*subscribers, publisher]:
            await store.close()


async def test_players_on_two_processes_play_a_match_on_the_cluster(
    cluster: LocalCluster, prefix: str, processes: list[ServerProcess]
) -> None:
    a, b = await start_two(cluster.url, prefix, processes)
    players = await table([a.url, b.url])
    try:
        await play_until_finished(players, random.Random(11))
        for p in players:
            await p.until(lambda c: c.game is not None and c.game["phase"] == "finished")
        assert {p.url for p in players} == {a.url, b.url}
        store = topology_store(cluster.url, prefix)
        try:
            code = players[0].room
            assert code is not None

            async def everyone_saw_every_event() -> bool:
                # The match's rating event may be stored just after its last move.
                stored = len(await store.read(code))
                return all(p.version == stored for p in players)

            await eventually(everyone_saw_every_event)
        finally:
            await store.close()
    finally:
        for p in players:
            await p.close()


@pytest.fixture
def lenient_cluster() -> Iterator[LocalCluster]:
    """A cluster of our own to kill a node of; the other shards keep serving."""
    with tempfile.TemporaryDirectory(prefix="kc-cluster-") as root:
        made = LocalCluster(Path(root), node_timeout_ms=1000, full_coverage=False)
        try:
            made.start()
            yield made
        finally:
            made.stop()


async def test_when_a_node_dies_other_shards_keep_serving_and_announcing(
    lenient_cluster: LocalCluster, prefix: str
) -> None:
    cluster = lenient_cluster
    subscriber = topology_store(cluster.url, prefix)
    publisher = topology_store(cluster.url, prefix)
    try:
        inbox = Inbox()
        subscriber.set_handler(inbox)
        doomed, survivor = cluster.nodes[0], cluster.nodes[1]
        lost_room = codes_on(cluster, doomed, 1, prefix)[0]
        kept_room = codes_on(cluster, survivor, 1, prefix)[0]
        for code in (lost_room, kept_room):
            await publisher.create_room(code, ev(0))
            await subscriber.subscribe(f"room:{code}")
        assert doomed.address in (subscriber.listening_on or "")
        channel = f"room:{kept_room}"

        doomed.kill()

        # A room's channel lies on its room's shard, so it is heard while the room works:
        # the subscription on the surviving shard never moved.
        async def heard() -> bool:
            try:
                await publisher.publish(channel, {"probe": 1})
                return await inbox.next(within=2 * UNIT) == (channel, {"probe": 1})
            except (StoreUnavailable, TimeoutError):
                return False

        await eventually(heard, 100 * UNIT)
        assert survivor.address in (subscriber.listening_on or "")

        # Rooms on the other shards go on; rooms on the dead one are unavailable.
        async def kept_works() -> bool:
            try:
                return await publisher.read(kept_room) == [ev(0)]
            except StoreUnavailable:
                return False

        await eventually(kept_works, 100 * UNIT)
        assert await publisher.append(kept_room, 1, [ev(1)], {"v": 1}) == 2
        # The append script announced it on the surviving shard (late probes come first).
        while (message := await inbox.next()) != (channel, {"v": 1}):
            assert message == (channel, {"probe": 1})
        with pytest.raises(StoreUnavailable):
            await publisher.append(lost_room, 1, [ev(1)])
        with pytest.raises(StoreUnavailable):
            await publisher.publish(f"room:{lost_room}", {"v": 2})
        assert await publisher.ping() is False
        assert not subscriber.listening
    finally:
        await subscriber.close()
        await publisher.close()


async def test_a_cluster_that_cannot_be_reached_raises_store_unavailable(
    lenient_cluster: LocalCluster, prefix: str
) -> None:
    store = topology_store(lenient_cluster.url, prefix)
    try:
        assert await store.create_room("ROOM", ev(0))
        lenient_cluster.stop()
        assert await store.ping() is False
        for _ in range(2):
            with pytest.raises(StoreUnavailable):
                await store.read("ROOM")
            with pytest.raises(StoreUnavailable):
                await store.room_codes()
        await asyncio.sleep(0)
    finally:
        await store.close()


async def test_a_shard_whose_primary_dies_fails_over_to_its_replica(
    replicated_cluster: LocalCluster, prefix: str
) -> None:
    cluster = replicated_cluster
    store = topology_store(cluster.url, prefix)
    publisher = topology_store(cluster.url, prefix)
    try:
        inbox = Inbox()
        store.set_handler(inbox)
        await store.subscribe("room:ROOM")
        await store.create_room("ROOM", ev(0))
        for n in range(1, 20):
            await store.append("ROOM", n, [ev(n)])
        primary = cluster.owner(f"{prefix}:{{room:ROOM}}:events")
        replica = cluster.replica_of(primary)
        await asyncio.to_thread(wait_for, cluster.replicated, 50 * UNIT, "replication")

        killed = time.monotonic()
        primary.kill()

        async def appended() -> bool:
            try:
                return await store.append("ROOM", 20, [ev(20)]) == 21
            except StoreUnavailable:
                return False

        await eventually(appended, 300 * UNIT)
        unavailable_for = time.monotonic() - killed
        assert cluster.owner(f"{prefix}:{{room:ROOM}}:events") is replica
        assert await store.read("ROOM") == [ev(n) for n in range(21)]

        async def heard() -> bool:
            try:
                await publisher.publish("room:ROOM", {"probe": 1})
                return await inbox.next(within=2 * UNIT) == ("room:ROOM", {"probe": 1})
            except (StoreUnavailable, TimeoutError):
                return False

        await eventually(heard, 300 * UNIT)
        await eventually(store.ping, 300 * UNIT)
        assert unavailable_for < 300 * UNIT
    finally:
        await store.close()
        await publisher.close()
