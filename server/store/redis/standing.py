"""Ratings in Redis (identities are in :mod:`.identities`).

Every rating key shares the ``{ratings}`` hash tag, so rating a whole match is one script
on one shard.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from . import scripts
from .core import RedisCore, dump, reachable


class Standing(RedisCore):
    """Players' ratings and the rating board."""

    def _ratings(self, part: str) -> str:
        return f"{self.prefix}:{{ratings}}:{part}"

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
