"""Finished matches kept and counted: match history, ratings, the leaderboards and the
daily deal.

Who is rated against whom, and what abandoning, kicks, provisional ratings and bot ratings
mean, is decided by :mod:`server.ratings` and written down for players in docs/ratings.md.
Each stored rating is ``{mu, sigma, matches, bot_mu, bot_sigma}``. Every
match is in the history of everyone who played it, leavers and kicked people included; only
rated matches count on the all-time board; on the daily board an abandoned try is not
ranked.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import logging
from typing import Any, Protocol

from protocol.errors import KingsCornerError
from protocol.messages import RoomOptions

from . import ratings
from .config import Settings
from .store.base import IdentityStore, RecordStore, SecretStore, StandingStore

log = logging.getLogger(__name__)
#: What a player played in a finished match: (player id, name, seat).
Person = tuple[str, str, int]
#: A person's rating change in one match: ``before``, ``after``, ``matches``,
#: ``provisional``, ``place``, ``of`` and ``reason`` (see docs/ratings.md).
Change = dict[str, Any]
#: Reads of the ratings before giving up on a match another process keeps rating first.
_RATING_TRIES = 8


def seat_people(record: dict[str, Any]) -> dict[str, str]:
    """The identities that played a match record's seats, each with its seat's name."""
    players = record.get("players") or []
    seats = record.get("seats") or []
    return {
        player: str(seats[seat].get("name", "?"))
        for seat, player in enumerate(players)
        if player and seat < len(seats) and seats[seat] is not None
    }


def tagged_seats(record: dict[str, Any], tags: dict[str, str]) -> list[dict[str, Any] | None]:
    """A match record's seats, each person's with the tag (from ``tags``, by player) of the
    identity that played it; a bot's is None."""
    players = record.get("players") or []
    out: list[dict[str, Any] | None] = []
    for seat, info in enumerate(record.get("seats") or []):
        player = players[seat] if seat < len(players) else None
        out.append(None if info is None else {**info, "tag": tags.get(player) if player else None})
    return out


def today() -> str:
    """Today's date in UTC, as the daily deal counts days."""
    return datetime.datetime.now(datetime.UTC).date().isoformat()


def _change(before: ratings.Skill, outcome: ratings.Outcome, matches: int) -> Change:
    """What a person is shown of their rating change (``doc.room.ratings``)."""
    return {
        "before": ratings.display(before),
        "after": ratings.display(outcome.skill),
        "matches": matches,
        "provisional": matches < ratings.PROVISIONAL_MATCHES,
        "place": outcome.place,
        "of": outcome.of,
        "reason": outcome.reason,
    }


def _bot_rating(stored: dict[str, Any] | None) -> ratings.Skill:
    """A person's bot rating as stored (``bot_mu``, ``bot_sigma``); a new player's, or a
    rating stored before bot ratings were kept, starts at the default."""
    if stored is None or "bot_mu" not in stored:
        return ratings.DEFAULT
    return (float(stored["bot_mu"]), float(stored["bot_sigma"]))


class StoreForRecords(RecordStore, StandingStore, IdentityStore, SecretStore, Protocol):
    """The roles of the store :class:`Records` uses: records and standing, identities for
    the names and tags boards show, and the secret the daily deal is dealt from."""


class Records:
    """History, leaderboards and daily deals, over the store."""

    def __init__(self, settings: Settings, store: StoreForRecords) -> None:
        self._settings = settings
        self._store = store

    async def record_finished(
        self, record: dict[str, Any], people: list[Person], daily: dict[str, Any] | None
    ) -> list[Change | None] | None:
        """Keep a finished match in history, rate it and count it on the leaderboards;
        return each seat's rating change (None for a seat not rated), or None for an
        unrated match.

        Only a rated match counts on the all-time board (a casual or chosen-deal win is
        not a win there); the ranked daily counts on the daily board, unrated. Called once
        per match, by the process whose append finished it; a store failure is logged, not
        raised (the match itself is stored already).
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
                if record.get("rated"):
                    won = seat in record["winners"] and seat not in abandoned
                    await store.record_result(player, name, won, record["totals"][seat], hands)
                await store.name_and_tag(player, name)  # a kept name wins (rename changes it)
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
        """Rate the match by the rules of :mod:`server.ratings`; bots keep their ratings.

        Read, compute, then store only if nobody rated one of these people meanwhile (a
        person may finish two matches at once on two processes); else read again.
        """
        seat_of = {seat: player for player, _, seat in people}
        if len(set(seat_of.values())) != len(seat_of):
            return None  # one identity in two seats: nobody rates against themselves
        # What orders the seats, lower first: the penalty totals, or under corners
        # scoring the places (corners collected, then penalty; ties shared).
        totals = record.get("places") or record["totals"]
        kicked = set(record.get("kicked") or ())
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
            bots = {s: _bot_rating(known.get(p)) for s, p in seat_of.items()}
            expected = {p: int(known.get(p, {}).get("matches", 0)) for p in seat_of.values()}
            provisional = {
                s for s, p in seat_of.items() if expected[p] < ratings.PROVISIONAL_MATCHES
            }
            results = ratings.outcomes(
                before, totals, seat_of, abandoned, provisional, kicked=kicked, bots=bots
            )
            stored: dict[str, dict[str, Any]] = {
                p: {
                    "mu": results[s].skill[0],
                    "sigma": results[s].skill[1],
                    "matches": expected[p] + int(results[s].moved),
                    "bot_mu": results[s].bots[0],
                    "bot_sigma": results[s].bots[1],
                }
                for s, p in seat_of.items()
            }
            board = {
                p: ratings.board_score((r["mu"], r["sigma"]))
                for p, r in stored.items()
                if r["matches"] >= ratings.PROVISIONAL_MATCHES
            }
            if await self._store.update_ratings(expected, stored, board):
                return [
                    None
                    if seat not in seat_of
                    else _change(before[seat], results[seat], stored[seat_of[seat]]["matches"])
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
                # Established players only (rows stored under an earlier, shorter rule
                # may be on the board still), best first.
                if row["matches"] >= ratings.PROVISIONAL_MATCHES
            ]
            rows.sort(key=lambda row: -row["rating"])
            day = None
        else:
            day = day or today()
            rows = await store.daily_board(day)
        names = await store.names([row["player"] for row in rows])
        for row in rows:
            row["name"] = names.get(row["player"], row.get("name", "?"))
        tags = await self.tags({row["player"]: row["name"] for row in rows})
        for row in rows:
            row["tag"] = tags[row["player"]]
        return rows, day

    async def tags(self, shown: dict[str, str]) -> dict[str, str]:
        """The tags of ``shown``'s players (player -> the name they are shown with), read
        in one step; a player kept before tags were is given one now (for its kept name,
        else the one shown)."""
        tags = await self._store.tags(list(shown))
        for player in [p for p in shown if p not in tags]:
            _, tags[player] = await self._store.name_and_tag(player, shown[player])
        return tags

    async def profile(self, player: str, name: str) -> dict[str, Any]:
        """What a person sees of themselves: name, tag, rating and rated matches. Their
        name and tag are kept from now on: the kept name wins over ``name``."""
        name, tag = await self._store.name_and_tag(player, name)
        rating = (await self._store.ratings([player])).get(player)
        skill = (rating["mu"], rating["sigma"]) if rating else ratings.DEFAULT
        matches = int(rating["matches"]) if rating else 0
        return {
            "player_id": player,
            "name": name,
            "tag": tag,
            "rating": ratings.display(skill),
            "matches": matches,
            "listed": matches >= ratings.PROVISIONAL_MATCHES,
            "provisional": matches < ratings.PROVISIONAL_MATCHES,
            "min_matches": ratings.PROVISIONAL_MATCHES,
        }

    async def match_summaries(self, player: str) -> list[dict[str, Any]]:
        """The player's finished matches, newest first, with the seat they played."""
        records = []
        for match_id in await self._store.player_matches(player):
            record = await self._store.get_match(match_id)
            if record is not None:
                records.append(record)
        tags = await self.tags({p: n for r in records for p, n in seat_people(r).items()})
        summaries = []
        for record in records:
            keys = ("id", "room", "finished_at", "seats", "totals", "winners", "daily")
            summary = {k: record.get(k) for k in keys}
            players = record.get("players") or []
            summary["seats"] = tagged_seats(record, tags)
            summary["seat"] = players.index(player) if player in players else None
            summary["abandoned"] = record.get("abandoned") or []
            summary["ratings"] = record.get("ratings")
            summary["unrated"] = record.get("unrated")
            summaries.append(summary)
        return summaries

    async def get_match(self, match_id: str) -> dict[str, Any] | None:
        record = await self._store.get_match(match_id)
        if record is not None:
            record["seats"] = tagged_seats(record, await self.tags(seat_people(record)))
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
