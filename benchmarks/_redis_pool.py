"""The Redis store's append + publish under many concurrent rooms, without the server.

Each of ``--rooms`` rooms appends one event and publishes the change, over and over, for
``--seconds`` (what :meth:`server.live_room.LiveRoom.commit` does per move). Refusals
(:class:`~protocol.errors.StoreUnavailable`) are counted by their underlying cause, e.g. the
connection pool running out of connections. ``--pool blocking`` swaps the store's
connection pool for redis-py's ``BlockingConnectionPool`` (callers wait for a free
connection instead of failing), to size that change::

    python -m benchmarks._redis_pool --rooms 200 --pool default --server-commit 82ec67c
    python -m benchmarks._redis_pool --rooms 200 --pool blocking --server-commit 82ec67c

Keys live under a prefix of their own and are deleted afterwards. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import sys
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._common import add_server_flags, emit, machine, percentile, rounded, server_root


async def probe(url: str, rooms: int, seconds: float, pool: str) -> dict[str, Any]:
    """Hammer the store from ``rooms`` concurrent writers; count successes and refusals."""
    from redis.asyncio.connection import BlockingConnectionPool

    import server.store.redis_store as redis_store
    from protocol.errors import StoreUnavailable

    if pool == "blocking":
        # The store builds its pool with the module's ConnectionPool name: swap it.
        setattr(redis_store, "ConnectionPool", BlockingConnectionPool)  # noqa: B010
    store = await redis_store.RedisStore.connect(url, prefix=f"kc-bench-{uuid.uuid4().hex[:8]}")

    async def ignore(channel: str, message: dict[str, Any]) -> None:
        return None

    store.set_handler(ignore)
    codes = [f"P{i:05d}" for i in range(rooms)]
    for code in codes:
        await store.create_room(code, {"e": "create", "code": code})
        await store.subscribe(f"room:{code}")
    causes: Counter[str] = Counter()
    latencies: list[float] = []

    async def writer(code: str) -> None:
        version = 1
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            began = time.perf_counter()
            try:
                version = await store.append(code, version, [{"e": "act", "seat": 0, "a": "end"}])
                await store.publish(f"room:{code}", {"kind": "changed", "v": version})
                latencies.append(time.perf_counter() - began)
            except StoreUnavailable as exc:
                causes[type(exc.__cause__).__name__] += 1
                await asyncio.sleep(0)

    cpu = time.process_time()
    await asyncio.gather(*(writer(code) for code in codes))
    cpu = time.process_time() - cpu
    for code in codes:
        await store.delete_room(code)
    await store.close()
    latencies.sort()
    done = len(latencies)
    return {
        "appends_per_s": round(done / seconds, 1),
        "refused": dict(causes),
        "latency_ms": {
            "p50": rounded(1000 * (percentile(latencies, 50) or 0)),
            "p99": rounded(1000 * (percentile(latencies, 99) or 0)),
        },
        "cpu_us_per_append_and_publish": round(cpu / done * 1e6, 1) if done else None,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Parse flags, run the probe against the server code in the chosen checkout."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks._redis_pool", description=__doc__)
    parser.add_argument("--rooms", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--pool", choices=("default", "blocking"), default="default")
    parser.add_argument(
        "--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    )
    add_server_flags(parser)
    args = parser.parse_args(argv)
    with server_root(args) as root:
        sys.path.insert(0, str(root))
        result = asyncio.run(probe(args.redis_url, args.rooms, args.seconds, args.pool))
        info = machine(Path(root))
    emit(
        {
            "bench": "redis_pool",
            "command": "python -m benchmarks._redis_pool "
            + shlex.join(sys.argv[1:] if argv is None else argv),
            "machine": info,
            "rooms": args.rooms,
            "pool": args.pool,
            **result,
        }
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
