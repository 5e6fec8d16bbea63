"""Stores under test: every contract test runs once per backend."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.store import MemoryStore, Store
from server.store.redis_store import RedisStore
from tests.redis_helpers import UNIT, private_redis, redis_prefix, redis_url

__all__ = ["private_redis", "redis_prefix", "redis_url"]


def redis_store(url: str, prefix: str) -> RedisStore:
    """A RedisStore with waits scaled to the test unit."""
    return RedisStore(
        url, prefix, timeout=20 * UNIT, health_interval=10 * UNIT, backoff_max=2 * UNIT
    )


@pytest.fixture(params=["memory", "redis"])
async def store(
    request: pytest.FixtureRequest, redis_url: str, redis_prefix: str
) -> AsyncIterator[Store]:
    """A fresh, empty store of each kind (Redis: the shared one, under a private prefix)."""
    made: Store = (
        MemoryStore() if request.param == "memory" else redis_store(redis_url, redis_prefix)
    )
    yield made
    await made.close()
