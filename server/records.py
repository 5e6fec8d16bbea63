"""Finished matches kept and counted: match history, ratings, the leaderboards and the
daily deal.

Abandoning is not playing: a person who left a rated match to a bot, or whom a bot was
covering (away) when it ended, takes the last place in the rating (tied with any other such
person) and never counts as having won it, even when the bot finished first; on the daily
board an abandoned try is not ranked. The match is still in their history and counts as
played.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import logging
from typing import Any

from protocol.errors import KingsCornerError
from protocol.messages import RoomOptions

from . import ratings
from .config import Settings
from .identity import tag_of
from .store.base import Store

log = logging.getLogger(__name__)
#: What a player played in a finished match: (player id, name, seat).
Person = tuple[str, str, int]
#: A person's rating before and after one match (``before``, ``after``, ``matches``).
Change = dict[str, int]
#: Reads of the ratings before giving up on a match another process keeps rating first.
_RATING_TRIES = 8


def tagged_seats(record: dict[str, Any]) -> list[dict[str, Any] | None]:
    """A match record's seats, each person's with the tag of the identity that played it."""
    players = record.get("players") or []
    out: list[dict[str, Any] | None] = []
    for seat, info in enumerate(record.get("seats") or []):
        player = players[seat] if seat < len(players) else None
        out.append(None if info is None else {**info, "tag": tag_of(player) if player else None})
    return out


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
    ) -> list[Change | None] | None:
        """Keep a finished match in history, rate it and count it on the leaderboards;
        return each seat's rating change (None for a bot), or None for an unrated match.

        Called once per match, by the process whose append finished it; a store failure is
        logged, not raised (the match itself is stored already).
        """
        store = self._store
        hands = len(record["results"])
        abandoned = set(record.get("abandoned") or ())
        changes: list[Change | None] | None = None
        try:
            if record.get("rated") and people:
                changes = await self._rate(record, people, abandoned)
            record["ratings"] = changes
            await store.save_match(record["id"], record, [p for p, _, _ in people])
            for player, name, seat in people:
                won = seat in record["winners"] and seat not in abandoned
                await store.record_result(player, name, won, record["totals"][seat], hands)
                await store.set_name(player, name)
            if daily is not None and daily["ranked"] and people and people[0][2] not in abandoned:
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
        return changes

    async def _rate(
        self, record: dict[str, Any], people: list[Person], abandoned: set[int]
    ) -> list[Change | None] | None:
        """Rate the match from its final order; bots keep their fixed ratings.

        Read, compute, then store only if nobody rated one of these people meanwhile (a
        person may finish two matches at once on two processes); else read again.
        """
        seat_of = {seat: player for player, _, seat in people}
        if len(set(seat_of.values())) != len(seat_of):
            return None  # one identity in two seats: nobody rates against themselves
        ranks = ratings.places(record["totals"], abandoned)
        for _ in range(_RATING_TRIES):
            known = await self._store.ratings(list(seat_of.values()))
            before: list[ratings.Skill] = []
            for seat, info in enumerate(record["seats"]):
                player = seat_of.get(seat)
                if player is None:
                    before.append(ratings.bot_skill(info["level"] if info else None))
                else:
                    had = known.get(player)
                    before.append((had["mu"], had["sigma"]) if had else ratings.DEFAULT)
            after = ratings.rate(before, ranks)
            expected = {p: int(known.get(p, {}).get("matches", 0)) for p in seat_of.values()}
            stored = {
                p: {"mu": after[s][0], "sigma": after[s][1], "matches": expected[p] + 1}
                for s, p in seat_of.items()
            }
            board = {
                p: ratings.conservative((r["mu"], r["sigma"]))
                for p, r in stored.items()
                if r["matches"] >= ratings.MIN_MATCHES
            }
            if await self._store.update_ratings(expected, stored, board):
                return [
                    None
                    if seat not in seat_of
                    else {
                        "before": ratings.display(before[seat]),
                        "after": ratings.display(after[seat]),
                        "matches": expected[seat_of[seat]] + 1,
                    }
                    for seat in range(len(record["seats"]))
                ]
        log.warning("could not rate match %s: its players kept changing", record["id"])
        return None

    async def leaderboard(
        self, board: str, day: str | None
    ) -> tuple[list[dict[str, Any]], str | None]:
        """The ``alltime`` board, the ``rating`` board ("Top players", each with at least
        :data:`~server.ratings.MIN_MATCHES` rated matches), or the ``daily`` board of
        ``day`` (today by default). Every row names its player as they are called now,
        with their tag."""
        store = self._store
        if board == "alltime":
            rows, day = await store.alltime_board(), None
        elif board == "rating":
            rows = [
                {
                    "player": row["player"],
                    "rating": ratings.display((row["mu"], row["sigma"])),
                    "matches": row["matches"],
                }
                for row in await store.rating_board()
            ]
            day = None
        else:
            day = day or today()
            rows = await store.daily_board(day)
        names = await store.names([row["player"] for row in rows])
        for row in rows:
            row["name"] = names.get(row["player"], row.get("name", "?"))
            row["tag"] = tag_of(row["player"])
        return rows, day

    async def profile(self, player: str, name: str) -> dict[str, Any]:
        """What a person sees of themselves: name, tag, rating and rated matches."""
        rating = (await self._store.ratings([player])).get(player)
        skill = (rating["mu"], rating["sigma"]) if rating else ratings.DEFAULT
        matches = int(rating["matches"]) if rating else 0
        return {
            "player_id": player,
            "name": name,
            "tag": tag_of(player),
            "rating": ratings.display(skill),
            "matches": matches,
            "listed": matches >= ratings.MIN_MATCHES,
            "min_matches": ratings.MIN_MATCHES,
        }

    async def match_summaries(self, player: str) -> list[dict[str, Any]]:
        """The player's finished matches, newest first, with the seat they played."""
        summaries = []
        for match_id in await self._store.player_matches(player):
            record = await self._store.get_match(match_id)
            if record is not None:
                keys = ("id", "room", "finished_at", "seats", "totals", "winners", "daily")
                summary = {k: record.get(k) for k in keys}
                players = record.get("players") or []
                summary["seats"] = tagged_seats(record)
                summary["seat"] = players.index(player) if player in players else None
                summary["abandoned"] = record.get("abandoned") or []
                summary["ratings"] = record.get("ratings")
                summaries.append(summary)
        return summaries

    async def get_match(self, match_id: str) -> dict[str, Any] | None:
        record = await self._store.get_match(match_id)
        if record is not None:
            record["seats"] = tagged_seats(record)
        return record

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
