"""Secrets shared by every process, in Redis."""

from __future__ import annotations

import secrets

from .core import RedisCore, reachable


class SharedSecrets(RedisCore):
    """Named random secrets, each made once by whichever process asks first."""

    async def secret(self, name: str) -> str:
        key = f"{self.prefix}:{{secrets}}:{name}"
        with reachable():
            await self._redis.set(key, secrets.token_hex(32), nx=True)
            value = await self._redis.get(key)
        return value.decode() if isinstance(value, bytes) else str(value)
