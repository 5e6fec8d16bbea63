"""Tests against larger Redis topologies the tests start themselves: Cluster and Sentinel.

They take a while (each topology is several ``redis-server`` processes), so they run only
when ``KC_TOPOLOGY_TESTS=1`` (``scripts/check.sh`` sets it). Otherwise they are
*deselected* at collection, not skipped: pytest reports them as deselected, and no
``skipped`` line stands for work that was never meant to run. Only tests marked
``topology`` are affected.
"""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from server.store import Store
from server.store.redis_store import RedisStore
from tests.multiprocess.conftest import processes
from tests.redis_helpers import UNIT

from .topology import LocalCluster, SentinelGroup, unique_prefix

__all__ = ["processes"]


@pytest.fixture(scope="session")
def cluster() -> Iterator[LocalCluster]:
    """A running 3-primary Redis Cluster shared by this session's tests (never killed)."""
    with tempfile.TemporaryDirectory(prefix="kc-cluster-") as root:
        made = LocalCluster(Path(root))
        try:
            made.start()
            yield made
        finally:
            made.stop()


@pytest.fixture
def replicated_cluster() -> Iterator[LocalCluster]:
    """Three primaries with a replica each, failing over after 1 s of silence."""
    with tempfile.TemporaryDirectory(prefix="kc-cluster-") as root:
        made = LocalCluster(Path(root), replicas=1, node_timeout_ms=1000)
        try:
            made.start()
            yield made
        finally:
            made.stop()


@pytest.fixture(scope="session")
def sentinel_group() -> Iterator[SentinelGroup]:
    """A running primary, replica and three Sentinels shared by tests that kill nothing."""
    with tempfile.TemporaryDirectory(prefix="kc-sentinel-") as root:
        made = SentinelGroup(Path(root))
        try:
            made.start()
            yield made
        finally:
            made.stop()


@pytest.fixture
def prefix() -> str:
    """A key prefix of this test alone (the topologies are thrown away, so no clean-up)."""
    return unique_prefix()


def topology_store(url: str, prefix: str) -> RedisStore:
    """A RedisStore with waits scaled to the test unit, as in tests/store."""
    return RedisStore(
        url, prefix, timeout=20 * UNIT, health_interval=10 * UNIT, backoff_max=2 * UNIT
    )


@pytest.fixture(params=["cluster", "sentinel"])
async def store(request: pytest.FixtureRequest, prefix: str) -> AsyncIterator[Store]:
    """The contract suite's store, on the Cluster or through the Sentinels."""
    where: LocalCluster | SentinelGroup = request.getfixturevalue(
        "cluster" if request.param == "cluster" else "sentinel_group"
    )
    made = topology_store(where.url, prefix)
    yield made
    await made.close()
