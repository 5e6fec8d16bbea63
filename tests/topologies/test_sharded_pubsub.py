"""Sharded announcements on a local Redis Cluster, measured with each node's own counters.

On a Cluster the store announces with ``SPUBLISH`` and listens with ``SSUBSCRIBE`` (one
connection per shard), so a room's announcements stay on its shard: its primary runs them
and relays them to its replica only, where classic ``PUBLISH`` would reach every node.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
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
from .test_cluster import codes_on
from .topology import LocalCluster, RedisProcess, wait_for

pytestmark = pytest.mark.topology

#: Per node: CLUSTER INFO's bus messages of classic and sharded pub/sub, and INFO
#: commandstats' calls of PUBLISH and SPUBLISH (scripts' calls included).
COUNTERS = (
    "publish_sent",
    "publish_received",
    "publishshard_sent",
    "publishshard_received",
    "cmd_publish",
    "cmd_spublish",
    "cmd_spublish_refused",
)


def counters(node: RedisProcess) -> dict[str, int]:
    """``node``'s pub/sub counters (see COUNTERS); Redis omits the ones still at 0."""
    with node.client() as client:
        bus: dict[str, Any] = client.cluster("info")
        commands: dict[str, Any] = client.info("commandstats")
    found = {
        name: int(bus.get(f"cluster_stats_messages_{name}", 0))
        for name in COUNTERS
        if not name.startswith("cmd_")
    }
    for command in ("publish", "spublish"):
        found[f"cmd_{command}"] = int(commands.get(f"cmdstat_{command}", {}).get("calls", 0))
    spublish = commands.get("cmdstat_spublish", {})
    found["cmd_spublish_refused"] = int(spublish.get("rejected_calls", 0)) + int(
        spublish.get("failed_calls", 0)
    )
    return found


def deltas(
    before: dict[int, dict[str, int]], nodes: list[RedisProcess]
) -> dict[int, dict[str, int]]:
    """Per node port, how far each counter moved since ``before``."""
    now = {node.port: counters(node) for node in nodes}
    return {port: {k: now[port][k] - before[port][k] for k in COUNTERS} for port in now}


async def settled(
    before: dict[int, dict[str, int]],
    nodes: list[RedisProcess],
    done: Callable[[dict[int, dict[str, int]]], bool],
) -> dict[int, dict[str, int]]:
    """The deltas once ``done`` holds for them (the bus relays asynchronously), or after
    50 units, whichever comes first."""
    deadline = asyncio.get_running_loop().time() + 50 * UNIT
    while True:
        moved = await asyncio.to_thread(deltas, before, nodes)
        if done(moved) or asyncio.get_running_loop().time() > deadline:
            return moved
        await asyncio.sleep(UNIT / 5)


def subscribers_of(node: RedisProcess, *channels: str) -> list[int]:
    """PUBSUB SHARDNUMSUB on ``node``: how many connections subscribe each channel there."""
    with node.client() as client:
        reply = client.execute_command("PUBSUB", "SHARDNUMSUB", *channels)
    return [int(count) for count in reply[1::2]]


def primaries(cluster: LocalCluster) -> list[RedisProcess]:
    """The cluster's live primaries, in node order."""
    found = []
    for node in cluster.nodes:
        if node.process is None:
            continue
        with node.client() as client:
            if client.info("replication")["role"] == "master":
                found.append(node)
    return found


async def test_each_shard_relays_only_its_own_rooms_announcements(
    replicated_cluster: LocalCluster, prefix: str
) -> None:
    cluster = replicated_cluster
    heads = primaries(cluster)
    assert len(heads) == 3
    # 1, 2 and 3 rooms on the three shards, so each shard's share is told apart.
    rooms = {node.port: codes_on(cluster, node, n + 1, prefix) for n, node in enumerate(heads)}
    codes = [code for shard in rooms.values() for code in shard]
    per_room = 4
    subscribers = [topology_store(cluster.url, prefix) for _ in range(2)]
    publisher = topology_store(cluster.url, prefix)
    inboxes = [Inbox() for _ in subscribers]
    try:
        for code in codes:
            assert await publisher.create_room(code, ev(0))
        for store, inbox in zip(subscribers, inboxes, strict=True):
            store.set_handler(inbox)
            for code in codes:
                await store.subscribe(f"room:{code}")
            # One connection per shard, to its primary; none to a replica.
            assert store.listening_on == ",".join(sorted(node.address for node in heads))
            assert store.listening
        for node in heads:
            channels = [f"{prefix}:{{room:{code}}}" for code in rooms[node.port]]
            assert subscribers_of(node, *channels) == [len(subscribers)] * len(channels)

        before = {node.port: counters(node) for node in cluster.nodes}
        for version in range(1, per_room + 1):
            for code in codes:
                announce = {"room": code, "v": version}
                assert await publisher.append(code, version, [ev(version)], announce) == (
                    version + 1
                )
        total = per_room * len(codes)
        moved = await settled(
            before,
            cluster.nodes,
            lambda d: sum(n["publishshard_received"] for n in d.values()) >= total,
        )

        for inbox in inboxes:
            heard = [await inbox.next() for _ in range(total)]
            for code in codes:
                assert [m["v"] for c, m in heard if c == f"room:{code}"] == list(
                    range(1, per_room + 1)
                )
        for node in heads:
            own = per_room * len(rooms[node.port])
            replica = cluster.replica_of(node)
            # The primary runs its own rooms' announcements and relays each to its replica.
            assert moved[node.port]["cmd_spublish"] == own
            assert moved[node.port]["publishshard_sent"] == own
            assert moved[replica.port]["publishshard_received"] == own
            assert moved[replica.port]["cmd_spublish"] == 0
        for node in cluster.nodes:
            # No classic pub/sub anywhere: not run, nothing over the bus.
            assert moved[node.port]["cmd_publish"] == 0
            assert moved[node.port]["cmd_spublish_refused"] == 0
            assert moved[node.port]["publish_sent"] == 0
            assert moved[node.port]["publish_received"] == 0
        assert sum(d["publishshard_received"] for d in moved.values()) == total

        # The control: as many classic PUBLISHes reach every other node over the bus.
        before = {node.port: counters(node) for node in cluster.nodes}
        with heads[0].client() as client:
            for _ in range(total):
                client.publish(f"{prefix}:{{control}}", "x")
        others = [node for node in cluster.nodes if node is not heads[0]]
        control = await settled(
            before,
            cluster.nodes,
            lambda d: all(d[n.port]["publish_received"] >= total for n in others),
        )
        assert control[heads[0].port]["publish_sent"] == total * len(others)
        for node in others:
            assert control[node.port]["publish_received"] == total
    finally:
        for store in [*subscribers, publisher]:
            await store.close()


async def test_every_store_channel_is_sharded_including_process_and_admin_ones(
    cluster: LocalCluster, prefix: str
) -> None:
    store = topology_store(cluster.url, prefix)
    inbox = Inbox()
    try:
        store.set_handler(inbox)
        channels = ["admin", "proc:p1", "room:ABCD"]
        for channel in channels:
            await store.subscribe(channel)
        before = {node.port: counters(node) for node in cluster.nodes}
        for channel in channels:
            await store.publish(channel, {"on": channel})
        assert sorted([await inbox.next() for _ in channels]) == [(c, {"on": c}) for c in channels]
        moved = deltas(before, cluster.nodes)
        for channel in channels:
            owner = cluster.owner(f"{prefix}:{{{channel}}}")
            assert subscribers_of(owner, f"{prefix}:{{{channel}}}") == [1]
        # Each SPUBLISH went straight to its channel's owner: none redirected by MOVED.
        for node in cluster.nodes:
            owned = [c for c in channels if cluster.owner(f"{prefix}:{{{c}}}") is node]
            assert moved[node.port]["cmd_spublish"] == len(owned)
            assert moved[node.port]["cmd_spublish_refused"] == 0
        assert sum(d["cmd_publish"] + d["publish_sent"] for d in moved.values()) == 0

        # Unsubscribed: Redis forgets it on the shard, and its messages are not delivered.
        await store.unsubscribe("proc:p1")
        owner = cluster.owner(f"{prefix}:{{proc:p1}}")
        await eventually(lambda: _true(subscribers_of(owner, f"{prefix}:{{proc:p1}}") == [0]))
        await store.publish("proc:p1", {"late": 1})
        await store.publish("admin", {"after": 1})
        assert await inbox.next() == ("admin", {"after": 1})
    finally:
        await store.close()


async def _true(value: bool) -> bool:
    return value


async def _act_when_served(mover: GameClient, action: Any, within: float) -> dict[str, Any]:
    """Send ``action`` until the store takes it (``store_unavailable`` while a shard is down)."""
    deadline = asyncio.get_running_loop().time() + within
    while True:
        reply = await mover.act(action)
        if reply["type"] == "patch":
            return reply
        assert reply["type"] == "error" and reply["code"] == "store_unavailable", reply
        assert asyncio.get_running_loop().time() < deadline, "the shard never came back"
        await asyncio.sleep(2 * UNIT)


async def all_at(players: list[GameClient], version: int, within: float) -> None:
    """Wait until every player's client shows ``version`` (or later: after a fail-over the
    processes may store presence changes of their own, seats marked gone and back)."""
    for p in players:
        await p.until(lambda c: c.version >= version, within)


async def test_two_processes_agree_after_the_rooms_primary_fails_over(
    replicated_cluster: LocalCluster, prefix: str, processes: list[ServerProcess]
) -> None:
    cluster = replicated_cluster
    a, b = await start_two(cluster.url, prefix, processes)
    players = await table([a.url, b.url], seats=2, target=10)
    rng = random.Random(5)
    try:
        assert {p.url for p in players} == {a.url, b.url}
        code = players[0].room
        assert code is not None
        channel = f"{prefix}:{{room:{code}}}"
        primary = cluster.owner(f"{prefix}:{{room:{code}}}:events")
        # Both processes listen to the room on its shard.
        await eventually(lambda: _true(subscribers_of(primary, channel) == [2]))
        for _ in range(3):
            mover = await next_mover(players)
            assert mover is not None
            reply = await mover.act(rng.choice(mover.game["legal"]))  # type: ignore[index]
            assert reply["type"] == "patch", reply
            await all_at(players, mover.version, 10)
        replica = cluster.replica_of(primary)
        await asyncio.to_thread(wait_for, cluster.replicated, 50 * UNIT, "replication")

        primary.kill()
        mover = await next_mover(players)
        assert mover is not None
        await _act_when_served(mover, rng.choice(mover.game["legal"]), 300 * UNIT)  # type: ignore[index]
        assert cluster.owner(f"{prefix}:{{room:{code}}}:events") is replica
        await all_at(players, mover.version, 20)
        # Both processes subscribed the room again, on the promoted replica.
        await eventually(lambda: _true(subscribers_of(replica, channel) == [2]), 100 * UNIT)

        await play_until_finished(players, rng)
        for p in players:
            await p.until(lambda c: c.game is not None and c.game["phase"] == "finished", 20)
        store = topology_store(cluster.url, prefix)
        try:

            async def everyone_saw_every_event() -> bool:
                stored = len(await store.read(code))
                return all(p.version == stored for p in players)

            await eventually(everyone_saw_every_event)
        finally:
            await store.close()
    finally:
        for p in players:
            await p.close()


async def test_a_subscriber_connection_lost_to_a_live_node_is_replaced(
    cluster: LocalCluster, prefix: str
) -> None:
    store = topology_store(cluster.url, prefix)
    publisher = topology_store(cluster.url, prefix)
    inbox = Inbox()
    try:
        store.set_handler(inbox)
        await store.subscribe("room:ABCD")
        owner = cluster.owner(f"{prefix}:{{room:ABCD}}")
        with owner.client() as client:
            for entry in client.client_list():
                if "ssubscribe" in entry.get("cmd", "") or int(entry.get("ssub", 0)) > 0:
                    client.client_kill_filter(_id=entry["id"])

        async def heard() -> bool:
            try:
                await publisher.publish("room:ABCD", {"probe": 1})
                return await inbox.next(within=2 * UNIT) == ("room:ABCD", {"probe": 1})
            except (StoreUnavailable, TimeoutError):
                return False

        await eventually(heard, 100 * UNIT)
        assert store.listening
    finally:
        await store.close()
        await publisher.close()
