"""Scale-out: one server process against two sharing one Redis, under the same load.

Each repeat runs the load of :mod:`benchmarks.load` (``--rooms`` rooms of 4 seats and a
spectator, playing as fast as the game allows) against, in turn:

* ``memory``: one process with the in-memory store (the reference);
* ``redis_1``: one process with the Redis store (what Redis adds to one process);
* ``redis_2_sticky``: two processes over Redis, each room wholly on one process (as a load
  balancer with room affinity would place it), rooms alternating between the processes;
* ``redis_2_spread`` (with ``--spread``): two processes, the connections of every room split
  between them, so every change crosses processes through Redis pub/sub.

Prints one JSON line: medians per configuration, the two-to-one throughput ratio and the
latency Redis adds (``redis_1`` minus ``memory``)::

    python -m benchmarks.scaleout --rooms 200 --seconds 20 --repeats 3
    python -m benchmarks.scaleout --rooms 200 --seconds 20 --redis-url redis://127.0.0.1:6379/0

The rooms a run stores in Redis are deleted afterwards (exactly those, by code).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import redis

from ._common import (
    add_server_flags,
    emit,
    machine,
    median,
    note,
    raise_nofile,
    rounded,
    server_root,
)
from .load import DEFAULT_REDIS_URL, LoadShape, medians, run_ours


def _configs(spread: bool) -> list[tuple[str, bool, int, str]]:
    """(name, uses Redis, processes, placement) of each configuration."""
    configs = [
        ("memory", False, 1, "sticky"),
        ("redis_1", True, 1, "sticky"),
        ("redis_2_sticky", True, 2, "sticky"),
    ]
    if spread:
        configs.append(("redis_2_spread", True, 2, "spread"))
    return configs


def redis_ok(url: str) -> str | None:
    """None when Redis at ``url`` answers, else why not."""
    try:
        client = redis.Redis.from_url(url, socket_timeout=2)
        try:
            client.ping()
        finally:
            client.close()
    except (redis.RedisError, OSError) as exc:
        return repr(exc)
    return None


def _ratio(a: float | None, b: float | None) -> float | None:
    return rounded(a / b, 3) if a is not None and b else None


def _minus(a: float | None, b: float | None) -> float | None:
    return rounded(a - b) if a is not None and b is not None else None


def main(argv: Sequence[str] | None = None) -> int:
    """Parse flags, run every configuration per repeat, print one JSON line."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.scaleout", description=__doc__)
    parser.add_argument("--rooms", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1, help="load-generator processes")
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--think", type=float, default=0.0)
    parser.add_argument("--spread", action="store_true", help="also split every room")
    parser.add_argument(
        "--redis-url", default=os.environ.get("REDIS_URL", DEFAULT_REDIS_URL), help="Redis URL"
    )
    add_server_flags(parser)
    args = parser.parse_args(argv)
    with server_root(args) as root:
        return _main(args, root, argv)


def _main(args: argparse.Namespace, root: Path, argv: Sequence[str] | None) -> int:
    """Run every configuration per repeat against the server in ``root``."""
    raise_nofile(max(4096, args.rooms * 5 * 2 + 1024))
    record: dict[str, Any] = {
        "bench": "scaleout",
        "command": "python -m benchmarks.scaleout "
        + shlex.join(sys.argv[1:] if argv is None else argv),
        "rooms": args.rooms,
        "seconds": args.seconds,
        "repeats": args.repeats,
        "machine": machine(root),
    }
    problem = redis_ok(args.redis_url)
    if problem is not None:
        record["error"] = f"Redis unavailable: {problem}"
        emit(record)
        return 1
    shape = LoadShape(
        rooms=args.rooms,
        seconds=args.seconds,
        workers=args.workers,
        warmup=args.warmup,
        think=args.think,
    )
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name, *_ in _configs(args.spread)}
    for i in range(args.repeats):
        for name, uses_redis, processes, placement in _configs(args.spread):
            note(f"repeat {i + 1}/{args.repeats}: {name}, {args.rooms} rooms")
            run = run_ours(
                replace(shape, placement=placement),
                args.redis_url if uses_redis else None,
                processes=processes,
                root=root,
            )
            runs[name].append({k: v for k, v in run.items() if k != "codes"})
    results = {name: medians(rs) for name, rs in runs.items()}
    for name, rs in runs.items():
        results[name]["redis_cpu_pct"] = rounded(
            median([r["redis"]["cpu_pct"] for r in rs if "redis" in r])
        )
    one, two = results["redis_1"], results["redis_2_sticky"]
    mem = results["memory"]
    pairs = zip(runs["redis_2_sticky"], runs["redis_1"], strict=True)
    record.update(
        {
            "results": results,
            "ratio_two_to_one": _ratio(two["moves_per_s"], one["moves_per_s"]),
            "ratio_two_to_one_each": [_ratio(a["moves_per_s"], b["moves_per_s"]) for a, b in pairs],
            "ratio_redis_to_memory": _ratio(one["moves_per_s"], mem["moves_per_s"]),
            "redis_adds_latency_ms": {
                q: _minus(one["latency_ms"][q], mem["latency_ms"][q]) for q in ("p50", "p99")
            },
            "runs": runs,
        }
    )
    emit(record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
