"""Identities (display names, recovery codes) and ratings in Redis.

Every identity key shares the ``{ident}`` hash tag and every rating key ``{ratings}``, so
replacing a recovery code and rating a whole match are each one script on one shard.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from . import scripts
from .core import RedisCore, dump, reachable


class Standing(RedisCore):
    """Display names, hashed recovery codes, players' ratings and the rating board."""

    def _ident(self, part: str) -> str:
        return f"{self.prefix}:{{ident}}:{part}"

    def _ratings(self, part: str) -> str:
        return f"{self.prefix}:{{ratings}}:{part}"

    async def set_name(self, player: str, name: str) -> None:
        with reachable():
            await self._redis.hset(self._ident("names"), player, name)

    async def names(self, players: Sequence[str]) -> dict[str, str]:
        if not players:
            return {}
        with reachable():
            found = await self._redis.hmget(self._ident("names"), list(players))
        return {p: _text(n) for p, n in zip(players, found, strict=True) if n is not None}

    async def set_recovery(self, player: str, digest: str) -> None:
        keys = [self._ident("recovery"), self._ident("recovery-of")]
        with reachable():
            await self._call(scripts.SET_RECOVERY, keys, [player, digest])

    async def recover(self, digest: str) -> str | None:
        with reachable():
            found = await self._redis.hget(self._ident("recovery"), digest)
        return None if found is None else _text(found)

    async def ratings(self, players: Sequence[str]) -> dict[str, dict[str, Any]]:
        if not players:
            return {}
        with reachable():
            found = await self._redis.hmget(self._ratings("players"), list(players))
        return {p: dict(orjson.loads(r)) for p, r in zip(players, found, strict=True) if r}

    async def update_ratings(
        self,
        expected: dict[str, int],
        ratings: dict[str, dict[str, Any]],
        board: dict[str, float],
    ) -> bool:
        args: list[Any] = [len(ratings)]
        for player, rating in ratings.items():
            args += [player, expected.get(player, 0), dump(rating)]
        args.append(len(board))
        for player, score in board.items():
            args += [player, repr(float(score))]
        keys = [self._ratings("players"), self._ratings("board")]
        with reachable():
            done = await self._call(scripts.UPDATE_RATINGS, keys, args)
        return bool(done)

    async def rating_board(self, limit: int = 50) -> list[dict[str, Any]]:
        with reachable():
            found = await self._redis.zrevrange(self._ratings("board"), 0, limit - 1)
            players = [_text(p) for p in found]
            if not players:
                return []
            raw = await self._redis.hmget(self._ratings("players"), players)
        return [{"player": p, **orjson.loads(r)} for p, r in zip(players, raw, strict=True) if r]


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
