"""Fixtures shared with the other suites: the real Redis, and the frame recorder."""

from __future__ import annotations

from tests.redis_helpers import private_redis, redis_prefix, redis_url
from tests.server.conftest import recorder

__all__ = ["private_redis", "recorder", "redis_prefix", "redis_url"]
