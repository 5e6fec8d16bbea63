"""Finished matches, players' histories and the leaderboards in Redis."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from ..base import HISTORY_LIMIT, board_row
from .core import RedisCore, dump, reachable

#: Seconds the judged hands of a match still being played are kept (a match left unfinished
#: leaves nothing behind for longer).
REVIEW_HANDS_TTL = 86_400


class Records(RedisCore):
    """Match records per player, the daily deal's board and the all-time board."""

    async def save_match(
        self, match_id: str, record: dict[str, Any], players: Sequence[str]
    ) -> None:
        with reachable():
            await self._redis.set(f"{self.prefix}:{{match:{match_id}}}", dump(record))
            for player in players:
                key = f"{self.prefix}:{{player:{player}}}:matches"
                async with self._redis.pipeline(transaction=True) as pipe:
                    pipe.lpush(key, match_id)
                    pipe.ltrim(key, 0, HISTORY_LIMIT - 1)
                    await pipe.execute()

    async def get_match(self, match_id: str) -> dict[str, Any] | None:
        with reachable():
            raw = await self._redis.get(f"{self.prefix}:{{match:{match_id}}}")
        return None if raw is None else dict(orjson.loads(raw))

    async def save_review(self, match_id: str, review: dict[str, Any]) -> None:
        key = f"{self.prefix}:{{match:{match_id}}}"
        with reachable():
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.set(f"{key}:review", dump(review))
                pipe.delete(f"{key}:review-hands")
                await pipe.execute()

    async def save_review_hand(self, match_id: str, hand: int, turns: dict[str, Any]) -> None:
        key = f"{self.prefix}:{{match:{match_id}}}:review-hands"
        with reachable():
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.hset(key, str(hand), dump(turns))
                pipe.expire(key, REVIEW_HANDS_TTL)
                await pipe.execute()

    async def get_review_hands(self, match_id: str) -> dict[int, dict[str, Any]]:
        with reachable():
            raw = await self._redis.hgetall(f"{self.prefix}:{{match:{match_id}}}:review-hands")
        return {int(_text(hand)): dict(orjson.loads(value)) for hand, value in raw.items()}

    async def get_review(self, match_id: str) -> dict[str, Any] | None:
        with reachable():
            raw = await self._redis.get(f"{self.prefix}:{{match:{match_id}}}:review")
        return None if raw is None else dict(orjson.loads(raw))

    async def player_matches(self, player: str, limit: int = 50) -> list[str]:
        with reachable():
            ids = await self._redis.lrange(
                f"{self.prefix}:{{player:{player}}}:matches", 0, limit - 1
            )
        return [_text(i) for i in ids]

    # --- the daily deal ----------------------------------------------------------------

    def _daily(self, day: str, part: str) -> str:
        return f"{self.prefix}:{{daily:{day}}}:{part}"

    async def claim_daily(self, day: str, player: str) -> bool:
        with reachable():
            added = await self._redis.sadd(self._daily(day, "claims"), player)
        return bool(added)

    async def record_daily(self, day: str, entry: dict[str, Any]) -> None:
        # Lowest penalty first, then fewest hands: one sortable score, penalty before hands.
        score = entry["penalty"] * 10_000 + entry["hands"]
        with reachable():
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.zadd(self._daily(day, "board"), {entry["player"]: score}, nx=True)
                pipe.hsetnx(self._daily(day, "entries"), entry["player"], dump(entry))
                await pipe.execute()

    async def daily_board(self, day: str, limit: int = 50) -> list[dict[str, Any]]:
        with reachable():
            found = await self._redis.zrange(self._daily(day, "board"), 0, limit - 1)
            players = [_text(p) for p in found]
            if not players:
                return []
            raw = await self._redis.hmget(self._daily(day, "entries"), players)
        return [dict(orjson.loads(r)) for r in raw if r is not None]

    # --- the all-time board -------------------------------------------------------------

    def _alltime(self, part: str) -> str:
        return f"{self.prefix}:{{alltime}}:{part}"

    async def record_result(
        self, player: str, name: str, won: bool, penalty: int, hands: int
    ) -> None:
        with reachable():
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.zincrby(self._alltime("won"), int(won), player)
                pipe.zincrby(self._alltime("played"), 1, player)
                pipe.zincrby(self._alltime("penalty"), penalty, player)
                pipe.zincrby(self._alltime("hands"), hands, player)
                pipe.hset(self._alltime("names"), player, name)
                await pipe.execute()

    async def alltime_board(self, limit: int = 50) -> list[dict[str, Any]]:
        with reachable():
            # Ties in wins are broken by matches played: fetch a margin, then sort exactly.
            found = await self._redis.zrevrange(self._alltime("won"), 0, limit * 4 - 1)
            top = [_text(p) for p in found]
            if not top:
                return []
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.zmscore(self._alltime("won"), top)
                pipe.zmscore(self._alltime("played"), top)
                pipe.zmscore(self._alltime("penalty"), top)
                pipe.zmscore(self._alltime("hands"), top)
                pipe.hmget(self._alltime("names"), top)
                won, played, penalty, hands, names = await pipe.execute()
        rows = [
            {
                "player": p,
                "name": _text(n or b"?"),
                "won": int(w or 0),
                "played": int(pl or 0),
                "penalty": int(pe or 0),
                "hands": int(h or 0),
            }
            for p, w, pl, pe, h, n in zip(top, won, played, penalty, hands, names, strict=True)
        ]
        rows.sort(key=lambda r: (-r["won"], -r["played"], r["player"]))
        return [board_row(r) for r in rows[:limit]]


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
