"""The Redis store, by the import path the server, tests and benchmarks use.

The code lives in the package :mod:`server.store.redis` (its docstring has the key layout);
``make_store`` loads this module by name only when a Redis URL is configured.
"""

from .redis import RedisKind, RedisStore, RedisTarget, parse_redis_url

__all__ = ["RedisKind", "RedisStore", "RedisTarget", "parse_redis_url"]
