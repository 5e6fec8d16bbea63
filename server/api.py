"""Read-only JSON API on the game port: leaderboards, match history and replays.

- ``GET /api/leaderboard?board=daily&day=YYYY-MM-DD`` (today by default), ``?board=alltime``
  or ``?board=rating`` (the "Top players": rating, rated matches)
- ``GET /api/matches/ID``: the record of a finished match (options, seed or decks, seats,
  action log); replaying it through the engine reproduces the match exactly
- ``GET /api/matches/ID/replay``: the match step by step, as a first view and then one JSON
  Patch per step, with every hand shown (the match is over)
- ``GET /api/matches/ID/review``: the coach's review of each person's turns (their three
  costliest, with the better play, its cost and the tip's reason); ``202`` with
  ``{"status": "pending"}`` until it is ready (docs/coach.md)
- ``GET /api/players/ID/matches``: a player's finished matches, newest first

A daily-deal match of the current UTC day is withheld until the day is over: its seed would
tell anyone still to play it every card of the day.
"""

from __future__ import annotations

import re
import urllib.parse
from http import HTTPStatus
from typing import Any

from websockets.http11 import Request

from protocol.diff import diff
from protocol.engine import NEXT_HAND, Options, action_from_text, new_match, public_view
from protocol.engine.match import Match
from protocol.errors import KingsCornerError

from .records import Records, today
from .reviews import Reviews

Reply = tuple[HTTPStatus, dict[str, Any]]
_ID = re.compile(r"^[A-Za-z0-9-]{1,40}$")
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_BOARDS = ("daily", "alltime", "rating")


async def handle(records: Records, reviews: Reviews, request: Request) -> Reply:
    """Answer one ``/api/...`` request."""
    url = urllib.parse.urlsplit(request.path)
    query = dict(urllib.parse.parse_qsl(url.query))
    parts = url.path.strip("/").split("/")
    try:
        if parts == ["api", "leaderboard"]:
            board = query.get("board", "daily")
            day = query.get("day")
            if board not in _BOARDS or (day is not None and not _DAY.match(day)):
                return HTTPStatus.BAD_REQUEST, {
                    "error": "board is daily, alltime or rating; day YYYY-MM-DD"
                }
            entries, day = await records.leaderboard(board, day)
            return HTTPStatus.OK, {"board": board, "day": day, "entries": entries}
        if len(parts) in (3, 4) and parts[1] == "matches" and _ID.match(parts[2]):
            record = await records.get_match(parts[2])
            if record is None:
                return HTTPStatus.NOT_FOUND, {"error": "no such match"}
            daily = record.get("daily")
            if daily is not None and daily["day"] >= today():
                return HTTPStatus.FORBIDDEN, {
                    "error": "daily matches are shown once the day is over"
                }
            if len(parts) == 3:
                return HTTPStatus.OK, record
            if parts[3] == "replay":
                return HTTPStatus.OK, replay_frames(record)
            if parts[3] == "review":
                review = await reviews.get(record)
                if review is None and not reviews.enabled:
                    return HTTPStatus.SERVICE_UNAVAILABLE, {"error": "reviews_off"}
                if review is None:
                    return HTTPStatus.ACCEPTED, {"status": "pending", "retry_after": 2}
                return HTTPStatus.OK, review
        if (
            len(parts) == 4
            and parts[1] == "players"
            and parts[3] == "matches"
            and _ID.match(parts[2])
        ):
            return HTTPStatus.OK, {"matches": await records.match_summaries(parts[2])}
    except KingsCornerError as exc:
        return HTTPStatus.SERVICE_UNAVAILABLE, {"error": exc.code}
    return HTTPStatus.NOT_FOUND, {"error": "unknown path"}


def _open_view(match: Match) -> dict[str, Any]:
    view = public_view(match)
    view["hands"] = [list(hand) for hand in match.position.hands]
    return view


def replay_frames(record: dict[str, Any]) -> dict[str, Any]:
    """The match as views with every hand open: the first whole, then a patch per step."""
    match = new_match(
        Options.from_dict(record["options"]),
        seed=record["seed"],
        decks=record.get("decks") or (),
        dealer=record["first_dealer"],
    )
    first = _open_view(match)
    previous = first
    steps: list[dict[str, Any]] = []
    hands = [0]
    for entry in record["log"]:
        if entry == NEXT_HAND:
            match = match.next_hand()
            hands.append(len(steps) + 1)
            step: dict[str, Any] = {"seat": None, "action": NEXT_HAND}
        else:
            seat = match.position.turn
            match = match.apply(action_from_text(entry))
            step = {"seat": seat, "action": entry}
        view = _open_view(match)
        step["ops"] = diff(previous, view)
        steps.append(step)
        previous = view
    return {
        "id": record.get("id"),
        "seats": record.get("seats"),
        "first": first,
        "steps": steps,
        "hands": hands,
        "totals": list(match.totals),
        "winners": list(match.winners),
    }
