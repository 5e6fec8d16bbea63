"""Identities in Redis: display names, tags, recovery codes and recovery generations.

Every identity key shares the ``{ident}`` hash tag, so giving a tag that no other player of
the name holds, and replacing a recovery code together with the generation it revokes, are
each one script on one shard.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from protocol.errors import KingsCornerError

from ..base import TAG_ROUNDS, Known, name_key, tag_candidates
from . import scripts
from .core import RedisCore, reachable


class IdentityRecords(RedisCore):
    """Display names, tags, hashed recovery codes and recovery generations."""

    def _ident(self, part: str) -> str:
        return f"{self.prefix}:{{ident}}:{part}"

    async def identity(self, player: str) -> Known:
        with reachable():
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.hget(self._ident("generation"), player)
                pipe.hget(self._ident("names"), player)
                pipe.hget(self._ident("tags"), player)
                generation, name, tag = await pipe.execute()
        return Known(
            0 if generation is None else int(generation),
            None if name is None else _text(name),
            None if tag is None else _tag(tag),
        )

    async def _name(self, player: str, name: str, mode: str) -> tuple[str, str]:
        keys = [self._ident("names"), self._ident("tags"), self._ident("tagged")]
        for _ in range(TAG_ROUNDS + 1):
            args = [player, name, name_key(name), mode, *tag_candidates()]
            with reachable():
                reply = await self._call(scripts.NAME, keys, args)
            if int(reply[0]) == 1:
                return _text(reply[2]), _text(reply[1])
            if int(reply[0]) == 2:
                name = _text(reply[1])  # the kept name wins: its key, then again
        raise KingsCornerError("No free tag for that name.")

    async def set_name(self, player: str, name: str) -> str:
        return (await self._name(player, name, "set"))[1]

    async def name_and_tag(self, player: str, name: str) -> tuple[str, str]:
        return await self._name(player, name, "keep")

    async def names(self, players: Sequence[str]) -> dict[str, str]:
        if not players:
            return {}
        with reachable():
            found = await self._redis.hmget(self._ident("names"), list(players))
        return {p: _text(n) for p, n in zip(players, found, strict=True) if n is not None}

    async def tags(self, players: Sequence[str]) -> dict[str, str]:
        if not players:
            return {}
        with reachable():
            found = await self._redis.hmget(self._ident("tags"), list(players))
        return {p: _tag(t) for p, t in zip(players, found, strict=True) if t is not None}

    async def set_recovery(self, player: str, digest: str, generation: int) -> int | None:
        keys = [self._ident("recovery"), self._ident("recovery-of"), self._ident("generation")]
        with reachable():
            done = int(await self._call(scripts.SET_RECOVERY, keys, [player, digest, generation]))
        return None if done < 0 else done

    async def recover(self, digest: str) -> str | None:
        with reachable():
            found = await self._redis.hget(self._ident("recovery"), digest)
        return None if found is None else _text(found)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _tag(entry: Any) -> str:
    """The tag of a stored ``TAG:KEY`` entry."""
    return _text(entry).partition(":")[0]
