"""Where a Redis Cluster's announcements go: each node's own counters, sharded against classic.

Rooms spread over the shards get ``--announcements`` appends each, every append announcing
itself the way the store does on a Cluster (``SPUBLISH`` inside the append script), while
``--subscribers`` stores listen to every room (one connection per shard each). Then the
same number of classic ``PUBLISH`` messages is sent, for comparison. For each node the
benchmark reads ``INFO commandstats`` (``SPUBLISH``/``PUBLISH`` calls) and ``CLUSTER INFO``
(cluster bus messages ``publish``/``publishshard`` sent and received) before and after, and
prints one JSON line: per node, what each kind of announcement cost it.

The Cluster is ``--redis-url`` (``redis+cluster://h1:7000,h2:7001``), or with
``--start-cluster`` a private one of 3 primaries and ``--replicas`` replicas each, on free
loopback ports in a temporary directory, stopped afterwards. Keys and channels live under a
random prefix; the rooms are deleted afterwards::

    python benchmarks/pubsub_shards.py --start-cluster --replicas 1 --rooms 300
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import redis

from server.store.redis.target import parse_redis_url
from server.store.redis_store import RedisStore

Counters = dict[str, int]


def counters(client: redis.Redis) -> Counters:
    """One node's pub/sub counters (Redis omits those still at 0)."""
    bus: dict[str, Any] = client.cluster("info")
    commands: dict[str, Any] = client.info("commandstats")
    found = {
        f"bus_{name}": int(bus.get(f"cluster_stats_messages_{name}", 0))
        for name in (
            "publish_sent",
            "publish_received",
            "publishshard_sent",
            "publishshard_received",
        )
    }
    for command in ("publish", "spublish"):
        found[f"{command}_calls"] = int(commands.get(f"cmdstat_{command}", {}).get("calls", 0))
    return found


def node_clients(url: str) -> dict[str, redis.Redis]:
    """``host:port`` -> a plain client, for every node the Cluster knows."""
    host, port = parse_redis_url(url).nodes[0]
    with redis.Redis(host=host, port=port, decode_responses=True) as seed:
        nodes: dict[str, Any] = seed.cluster("nodes")
    clients = {}
    for address in nodes:
        node_host, node_port = address.split("@")[0].rsplit(":", 1)
        clients[f"{node_host}:{node_port}"] = redis.Redis(
            host=node_host, port=int(node_port), decode_responses=True
        )
    return clients


def snapshot(clients: dict[str, redis.Redis]) -> dict[str, Counters]:
    return {address: counters(client) for address, client in clients.items()}


def moved(before: dict[str, Counters], after: dict[str, Counters]) -> dict[str, Counters]:
    return {a: {k: after[a][k] - before[a][k] for k in before[a]} for a in before}


async def settle(
    clients: dict[str, redis.Redis], before: dict[str, Counters], key: str, want: int
) -> dict[str, Counters]:
    """The counters once ``key`` summed over the nodes reached ``want`` (the bus relays
    asynchronously), or after 10 s."""
    deadline = time.monotonic() + 10
    while True:
        delta = moved(before, await asyncio.to_thread(snapshot, clients))
        if sum(d[key] for d in delta.values()) >= want or time.monotonic() > deadline:
            return delta
        await asyncio.sleep(0.05)


async def measure(url: str, rooms: int, announcements: int, subscribers: int) -> dict[str, Any]:
    prefix = f"kc-bench-{uuid.uuid4().hex[:8]}"
    clients = node_clients(url)
    roles = {a: str(c.info("replication")["role"]) for a, c in clients.items()}
    publisher = RedisStore(url, prefix)
    listeners = [RedisStore(url, prefix) for _ in range(subscribers)]
    codes = [f"B{n:05d}" for n in range(rooms)]
    heard = [0] * subscribers
    try:
        for n, store in enumerate(listeners):

            async def count(channel: str, message: Any, n: int = n) -> None:
                heard[n] += 1

            store.set_handler(count)
        for code in codes:
            await publisher.create_room(code, {"type": "bench"})
            for store in listeners:
                await store.subscribe(f"room:{code}")
        total = rooms * announcements

        before = snapshot(clients)
        started = time.perf_counter()
        # Appends in flight at once, within the Cluster client's connections per node.
        gate = asyncio.Semaphore(50)

        async def append(code: str, version: int) -> None:
            async with gate:
                await publisher.append(code, version, [{"type": "bench"}], {"v": version})

        for version in range(1, announcements + 1):
            await asyncio.gather(*(append(code, version) for code in codes))
        elapsed = time.perf_counter() - started
        sharded = await settle(
            clients, before, "bus_publishshard_received", total if "slave" in roles.values() else 0
        )
        deadline = time.monotonic() + 10
        while min(heard) < total and time.monotonic() < deadline:
            await asyncio.sleep(0.05)

        before = snapshot(clients)
        some_primary = next(clients[a] for a, role in roles.items() if role == "master")
        pipe = some_primary.pipeline(transaction=False)
        for n in range(total):
            pipe.publish(f"{prefix}:{{room:{codes[n % rooms]}}}", "x")
        pipe.execute()
        classic = await settle(clients, before, "bus_publish_received", total * (len(clients) - 1))
        for code in codes:
            await publisher.delete_room(code)
    finally:
        for store in [publisher, *listeners]:
            await store.close()
        for client in clients.values():
            client.close()
    return {
        "rooms": rooms,
        "announcements": total,
        "subscribers": subscribers,
        "delivered_per_subscriber": heard,
        "sharded_appends_per_s": round(total / elapsed),
        "nodes": {
            address: {
                "role": roles[address],
                "sharded": sharded[address],
                "classic": classic[address],
            }
            for address in sorted(clients)
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis-url", help="redis+cluster://host:port,... (else --start-cluster)")
    parser.add_argument("--start-cluster", action="store_true", help="start a private Cluster")
    parser.add_argument(
        "--replicas", type=int, default=1, help="replicas per primary (with --start-cluster)"
    )
    parser.add_argument("--rooms", type=int, default=300)
    parser.add_argument("--announcements", type=int, default=10, help="per room")
    parser.add_argument("--subscribers", type=int, default=2, help="listening stores")
    args = parser.parse_args()
    if args.start_cluster:
        from tests.topologies.topology import LocalCluster

        with tempfile.TemporaryDirectory(prefix="kc-bench-cluster-") as root:
            cluster = LocalCluster(Path(root), replicas=args.replicas)
            try:
                cluster.start()
                result = asyncio.run(
                    measure(cluster.url, args.rooms, args.announcements, args.subscribers)
                )
            finally:
                cluster.stop()
    elif args.redis_url and parse_redis_url(args.redis_url).kind == "cluster":
        result = asyncio.run(
            measure(args.redis_url, args.rooms, args.announcements, args.subscribers)
        )
    else:
        parser.error("give a redis+cluster:// --redis-url, or --start-cluster")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
