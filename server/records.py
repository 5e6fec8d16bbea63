"""Finished matches kept and counted: match history, the leaderboards and the daily deal."""

from __future__ import annotations

import datetime
import hashlib
import hmac
import logging
from typing import Any

from protocol.errors import KingsCornerError
from protocol.messages import RoomOptions

from .config import Settings
from .store.base import Store

log = logging.getLogger(__name__)
#: What a player played in a finished match: (player id, name, seat).
Person = tuple[str, str, int]


def today() -> str:
    """Today's date in UTC, as the daily deal counts days."""
    return datetime.datetime.now(datetime.UTC).date().isoformat()


class Records:
    """History, leaderboards and daily deals, over the store."""

    def __init__(self, settings: Settings, store: Store) -> None:
        self._settings = settings
        self._store = store

    async def record_finished(
        self, record: dict[str, Any], people: list[Person], daily: dict[str, Any] | None
    ) -> None:
        """Keep a finished match in history and count it on the leaderboards.

        Called once per match, by the process whose append finished it; a store failure is
        logged, not raised (the match itself is stored already).
        """
        store = self._store
        hands = len(record["results"])
        try:
            await store.save_match(record["id"], record, [p for p, _, _ in people])
            for player, name, seat in people:
                won = seat in record["winners"]
                await store.record_result(player, name, won, record["totals"][seat], hands)
            if daily is not None and daily["ranked"] and people:
                player, name, seat = people[0]
                entry = {
                    "player": player,
                    "name": name,
                    "penalty": record["totals"][seat],
                    "hands": hands,
                    "match": record["id"],
                }
                await store.record_daily(daily["day"], entry)
        except KingsCornerError as exc:
            log.warning("could not record match %s: %s", record["id"], exc.code)

    async def leaderboard(
        self, board: str, day: str | None
    ) -> tuple[list[dict[str, Any]], str | None]:
        """The ``alltime`` board, or the ``daily`` board of ``day`` (today by default)."""
        if board == "alltime":
            return await self._store.alltime_board(), None
        day = day or today()
        return await self._store.daily_board(day), day

    async def match_summaries(self, player: str) -> list[dict[str, Any]]:
        """The player's finished matches, newest first, with the seat they played."""
        summaries = []
        for match_id in await self._store.player_matches(player):
            record = await self._store.get_match(match_id)
            if record is not None:
                keys = ("id", "room", "finished_at", "seats", "totals", "winners", "daily")
                summary = {k: record.get(k) for k in keys}
                players = record.get("players") or []
                summary["seat"] = players.index(player) if player in players else None
                summaries.append(summary)
        return summaries

    async def get_match(self, match_id: str) -> dict[str, Any] | None:
        return await self._store.get_match(match_id)

    async def daily_deal(self, player: str) -> tuple[RoomOptions, dict[str, Any]]:
        """Today's deal for ``player``: the room's options and its ``daily`` record.

        The first try of the day is ranked (claimed now); the seed comes from a secret kept
        in the store, the same for every process, so everyone gets the same cards.
        """
        day = today()
        ranked = await self._store.claim_daily(day, player)
        secret = await self._store.secret("daily")
        seed = hmac.new(secret.encode(), day.encode(), hashlib.sha256).hexdigest()[:32]
        level = self._settings.daily_level
        options = RoomOptions.model_validate(
            {
                "seats": 4,
                "target": self._settings.daily_target,
                "bots": [None, level, level, level],
                "seed": seed,
            }
        )
        return options, {"day": day, "ranked": ranked, "seed": seed}
