"""benchmarks/store.py measures the append step on a Cluster and through Sentinels too."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .topology import LocalCluster, SentinelGroup

pytestmark = pytest.mark.topology

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.mark.parametrize("kind", ["cluster", "sentinel"])
async def test_the_store_benchmark_runs_on_the_topology_and_cleans_up(
    kind: str, request: pytest.FixtureRequest
) -> None:
    where: LocalCluster | SentinelGroup = request.getfixturevalue(
        "cluster" if kind == "cluster" else "sentinel_group"
    )
    command = [
        sys.executable,
        "benchmarks/store.py",
        *("--appends 60 --writers 4 --runs 1 --skip-memory".split()),
        *("--redis-url", where.url),
    ]
    done = await asyncio.to_thread(
        subprocess.run,
        command,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["redis_kind"] == kind
    assert result["memory"] is None
    assert result["redis"]["sequential_appends_per_s"] > 0
    assert result["redis"]["concurrent_appends_per_s"] > 0
    servers = where.nodes if isinstance(where, LocalCluster) else [where.primary]
    for server in servers:
        with server.client() as client:
            assert list(client.scan_iter(match="kc-bench-*")) == []


async def test_the_sharded_pubsub_benchmark_counts_each_shards_own_announcements(
    cluster: LocalCluster,
) -> None:
    command = [
        sys.executable,
        "benchmarks/pubsub_shards.py",
        *("--rooms 9 --announcements 2 --redis-url".split()),
        cluster.url,
    ]
    done = await asyncio.to_thread(
        subprocess.run,
        command,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["delivered_per_subscriber"] == [18, 18]
    nodes = result["nodes"].values()
    assert sum(n["sharded"]["spublish_calls"] for n in nodes) == 18
    assert sum(n["sharded"]["bus_publish_sent"] + n["sharded"]["publish_calls"] for n in nodes) == 0
    assert sum(n["classic"]["bus_publish_received"] for n in nodes) == 18 * (len(nodes) - 1)
    for server in cluster.nodes:
        with server.client() as client:
            assert list(client.scan_iter(match="kc-bench-*")) == []
