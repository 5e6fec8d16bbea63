"""Throughput of the store's append step: the memory store against the Redis store.

Two shapes of load, each timed ``--runs`` times and reported as the median:

* ``sequential``: one writer appends one event at a time to one room, waiting for each
  reply (the latency of one versioned append, as one busy room sees it);
* ``concurrent``: ``--writers`` writers each append to their own room at once (what a
  process with many active rooms sees; Redis runs the scripts one after another).

Prints one JSON line. Redis is taken from ``--redis-url`` or ``REDIS_URL``, in any form the
store accepts: one server (``redis://``), a Redis Cluster (``redis+cluster://h1:7000,h2:7001``)
or a primary behind Sentinels (``redis+sentinel://s1:26379,s2:26379/mymaster``). The keys live
under a random prefix and are deleted afterwards::

    python benchmarks/store.py --appends 5000 --runs 5
    python benchmarks/store.py --redis-url redis+cluster://127.0.0.1:7000 --skip-memory
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import redis
from redis.cluster import ClusterNode, RedisCluster
from redis.sentinel import Sentinel

from server.store import MemoryStore, Store
from server.store.redis_store import RedisStore, parse_redis_url

EVENT = {"e": "act", "seat": 2, "action": "7H>N", "at": 1_700_000_000.5}


async def sequential(store: Store, appends: int, tag: str) -> float:
    """Appends per second of one writer on one room."""
    code = f"SEQ-{tag}"
    await store.create_room(code, {"e": "create"})
    version = 1
    start = time.perf_counter()
    for _ in range(appends):
        version = await store.append(code, version, [EVENT])
    elapsed = time.perf_counter() - start
    await store.delete_room(code)
    return appends / elapsed


async def concurrent(store: Store, appends: int, writers: int, tag: str) -> float:
    """Appends per second of ``writers`` writers, each on a room of its own."""
    each = max(1, appends // writers)
    codes = [f"CON-{tag}-{w}" for w in range(writers)]
    for code in codes:
        await store.create_room(code, {"e": "create"})

    async def write(code: str) -> None:
        version = 1
        for _ in range(each):
            version = await store.append(code, version, [EVENT])

    start = time.perf_counter()
    await asyncio.gather(*(write(code) for code in codes))
    elapsed = time.perf_counter() - start
    for code in codes:
        await store.delete_room(code)
    return each * writers / elapsed


async def measure(make: Callable[[], Store], args: argparse.Namespace) -> dict[str, float]:
    seq: list[float] = []
    con: list[float] = []
    store = make()
    try:
        for run in range(args.runs):
            seq.append(await sequential(store, args.appends, str(run)))
            con.append(await concurrent(store, args.appends, args.writers, str(run)))
    finally:
        await store.close()
    return {
        "sequential_appends_per_s": round(statistics.median(seq)),
        "concurrent_appends_per_s": round(statistics.median(con)),
    }


def admin_client(url: str) -> redis.Redis | RedisCluster:
    """A blocking client for the store's URL: the server, the Cluster, or the primary."""
    target = parse_redis_url(url)
    login: dict[str, Any] = {
        "username": target.username,
        "password": target.password,
        "ssl": target.tls,
    }
    if target.kind == "cluster":
        seeds = [ClusterNode(h, p) for h, p in target.nodes]  # type: ignore[no-untyped-call]
        return RedisCluster(startup_nodes=seeds, **login)
    if target.kind == "sentinel":
        watchers = Sentinel(  # type: ignore[no-untyped-call]
            list(target.nodes),
            sentinel_kwargs={
                "username": target.sentinel_username,
                "password": target.sentinel_password,
                "ssl": target.tls,
            },
        )
        primary: redis.Redis = watchers.master_for(  # type: ignore[no-untyped-call]
            target.service, db=target.db, **login
        )
        return primary
    return redis.Redis.from_url(url)


def redis_version(url: str) -> str:
    client = admin_client(url)
    try:
        info: dict[str, Any] = client.info("server")
        return str(info.get("redis_version", "?"))
    finally:
        client.close()


def cleanup(url: str, prefix: str) -> None:
    client = admin_client(url)
    try:
        # On a Cluster, scan_iter visits every primary and delete() splits keys per slot.
        keys = list(client.scan_iter(match=f"{prefix}:*", count=500))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    prefix = f"kc-bench-{uuid.uuid4().hex[:8]}"
    memory = None if args.skip_memory else await measure(MemoryStore, args)
    try:
        redis_result = await measure(lambda: RedisStore(args.redis_url, prefix), args)
    finally:
        cleanup(args.redis_url, prefix)
    return {
        "benchmark": "store_append",
        "events_per_append": 1,
        "appends_per_run": args.appends,
        "writers": args.writers,
        "runs": args.runs,
        "memory": memory,
        "redis": redis_result,
        "redis_kind": parse_redis_url(args.redis_url).kind,
        "redis_version": redis_version(args.redis_url),
        "python": platform.python_version(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    )
    parser.add_argument("--appends", type=int, default=5000, help="appends per run and shape")
    parser.add_argument("--writers", type=int, default=32, help="writers in the concurrent shape")
    parser.add_argument("--runs", type=int, default=5, help="runs; the median is reported")
    parser.add_argument(
        "--skip-memory", action="store_true", help="measure only Redis (memory: null)"
    )
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main_async(args))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
