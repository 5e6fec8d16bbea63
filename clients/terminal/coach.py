"""The coach in the terminal: the three costliest turns of a finished match, worded.

The server reviews every person's turns a few seconds after a match with people ends
(``GET /api/matches/ID/review``: ``202`` while it works, then the review). Fetching is
:func:`fetch_review` (one request) and :func:`await_review` (polling while it is pending,
a bounded number of times); :func:`find_match` learns the id of the match that just ended
from the player's history, as the web client's "replay this match" does, and
:func:`load_review` does both. Everything else is pure: :func:`coach_lines` turns one
seat's review into the lines the line mode prints and the full screen shows, in the
player's language, the cards drawn by the ``card`` function of the client.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from clients.i18n import texts
from clients.net import GameClient
from clients.words import describe_reason

from .render import sorted_hand
from .replay import http_base, match_json

#: A card code as the client draws it: ``7D`` as ``7♦``.
Card = Callable[[str], str]
#: One request for the review: the document, or None while the server is still working.
FetchReview = Callable[[str, str], dict[str, Any] | None]
#: The whole way from a finished room to its review: ``(match id, review)``.
LoadReview = Callable[[GameClient, Mapping[str, Any]], Awaitable[tuple[str, dict[str, Any]]]]

#: The piles' names (the left side of a pile's move).
PILES = frozenset({"N", "E", "S", "W", "NE", "SE", "SW", "NW"})
#: How many times a pending review is asked for again (about a minute at 2 s apart).
TRIES = 30
#: How many times the player's history is asked for the match that just ended.
FIND_TRIES = 8


class CoachError(Exception):
    """The review cannot be had (yet): the message says why, for people."""


# --- fetching ---------------------------------------------------------------------------


def fetch_review(url: str, match_id: str, timeout: float = 10.0) -> dict[str, Any] | None:
    """The review of finished match ``match_id`` from the server at ``url``; None while the
    server is still working on it (``202``). Raises :class:`CoachError`."""
    status, review = match_json(url, match_id, "review", CoachError, timeout=timeout)
    if status == 202:
        return None
    if not isinstance(review, dict) or not isinstance(review.get("seats"), list):
        raise CoachError(f"The server at {http_base(url)} sent no review.")
    return review


async def await_review(
    url: str,
    match_id: str,
    *,
    fetch: FetchReview = fetch_review,
    tries: int = TRIES,
    wait: float = 2.0,
) -> dict[str, Any]:
    """The review, asked for again every ``wait`` seconds while it is pending, at most
    ``tries`` times; raises :class:`CoachError` when it does not come."""
    for attempt in range(tries):
        review = await asyncio.to_thread(fetch, url, match_id)
        if review is not None:
            return review
        if attempt + 1 < tries:
            await asyncio.sleep(wait)
    raise CoachError("The coach's review is not ready.")


def _match_of(matches: Sequence[Mapping[str, Any]], room: str, totals: Sequence[int]) -> str | None:
    for entry in matches:  # newest first
        if entry.get("room") == room and list(entry.get("totals") or []) == list(totals):
            return str(entry["id"])
    return None


async def find_match(client: GameClient, doc: Mapping[str, Any], wait: float = 0.3) -> str:
    """The id of the match that just ended in ``doc``'s room: the newest of the player's
    finished matches in that room with its totals (the history is written just after the
    last move, so it is asked again a few times). Raises :class:`CoachError`."""
    room, game = doc["room"]["code"], doc["game"]
    for attempt in range(FIND_TRIES):
        try:
            reply = await client.request({"type": "my_matches"}, "matches")
        except Exception as exc:  # the server's refusal, a timeout, the connection gone
            raise CoachError(f"The match history could not be had: {exc}") from None
        found = _match_of(reply.get("matches") or [], room, game["totals"])
        if found is not None:
            return found
        if attempt + 1 < FIND_TRIES:
            await asyncio.sleep(wait)
    raise CoachError("The match is not in your history.")


async def load_review(client: GameClient, doc: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The id of the match that just ended in ``doc``'s room and its review."""
    match_id = await find_match(client, doc)
    return match_id, await await_review(client.url, match_id)


# --- the words --------------------------------------------------------------------------


def _plain(code: str) -> str:
    return code


def move_text(action: str, card: Card = _plain) -> str:
    """An action's text form as the coach writes it: ``7D>N`` as ``7♦→N``, ``N>W`` as
    ``N→W``; anything else as it is."""
    left, sep, right = action.partition(">")
    if not sep:
        return action
    return f"{left if left in PILES else card(left)}→{right}"


def moves_text(actions: Sequence[str], card: Card = _plain) -> str:
    return ", ".join(move_text(a, card) for a in actions)


def percent(share: object) -> int:
    """A share (0 to 1) as a whole percentage."""
    try:
        return round(float(share) * 100)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0


def points_text(cost: object, lang: str) -> str:
    """Penalty points with one decimal at most, the decimal mark of the language."""
    try:
        value = round(float(cost), 1)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        value = 0.0
    text = f"{value:g}" if value != int(value) else str(int(value))
    return text.replace(".", ",") if lang in ("es", "cs") else text


@dataclass(frozen=True, slots=True)
class TurnLines:
    """One costly turn, worded: where it was, what was played, the better line, what it
    would have saved and why; ``step`` is where its replay starts."""

    where: str
    played: str
    better: str
    saved: str
    why: str
    step: int

    def lines(self) -> list[str]:
        return [line for line in (self.played, self.better, self.saved, self.why) if line]


def turn_lines(turn: Mapping[str, Any], lang: str = "en", card: Card = _plain) -> TurnLines:
    """One entry of a seat's ``costliest``, worded in ``lang``."""
    words = texts(lang)
    position = turn.get("position") or {}
    hand = " ".join(card(c) for c in sorted_hand(list(position.get("hand") or [])))
    where = words["coach.where"].format(hand=int(turn.get("hand", 0)) + 1, cards=hand)
    played_moves = list(turn.get("played") or [])
    if played_moves:
        played = words["coach.played"].format(moves=moves_text(played_moves, card))
    else:
        played = words["coach.played_none"]
    better_moves = list(turn.get("better") or [])
    better_text = moves_text(better_moves, card) if better_moves else words["coach.then_end"]
    better = words["coach.better"].format(moves=better_text)
    chance = turn.get("win_chance") or {}
    saved = words["coach.saved"].format(
        points=points_text(turn.get("cost"), lang),
        played=percent(chance.get("played")),
        better=percent(chance.get("better")),
    )
    why = describe_reason(turn.get("reason"), lang, card)
    return TurnLines(where, played, better, saved, why, int(turn.get("step", 0)))


def seat_review(review: Mapping[str, Any] | None, seat: int | None) -> Mapping[str, Any] | None:
    """The entry of ``seat`` in ``review`` (None for a bot's seat or none at all)."""
    if review is None or seat is None:
        return None
    seats = review.get("seats") or []
    entry = seats[seat] if 0 <= seat < len(seats) else None
    return entry if isinstance(entry, Mapping) else None


def own_seat(record: Mapping[str, Any], player_id: str | None) -> int | None:
    """The seat the player ``player_id`` (a public id) played in match ``record`` (its
    ``players``, as the server keeps them; a bot's seat has none), or None: someone else's
    match, or no identity known."""
    players = record.get("players") or []
    if player_id is None or player_id not in players:
        return None
    return list(players).index(player_id)


def costliest(
    entry: Mapping[str, Any] | None, lang: str = "en", card: Card = _plain
) -> list[TurnLines]:
    """A seat's costliest turns (at most three, costliest first), worded."""
    if entry is None:
        return []
    return [turn_lines(turn, lang, card) for turn in list(entry.get("costliest") or [])[:3]]


def coach_lines(
    entry: Mapping[str, Any] | None,
    lang: str = "en",
    card: Card = _plain,
    replay: Callable[[TurnLines], str] | None = None,
) -> list[str]:
    """The coach's section for one seat's review: the title, then each costly turn
    numbered (its where, then its lines indented, and ``replay``'s line for it when
    given); ``coach.none`` when there is none."""
    words = texts(lang)
    out = [words["coach.title"]]
    turns = costliest(entry, lang, card)
    if not turns:
        out.append(words["coach.none"])
        return out
    for number, turn in enumerate(turns, start=1):
        out.append(f"{number}. {turn.where}")
        out.extend(f"   {line}" for line in turn.lines())
        if replay is not None:
            out.append(f"   {replay(turn)}")
    return out


__all__ = [
    "FIND_TRIES",
    "TRIES",
    "Card",
    "CoachError",
    "FetchReview",
    "LoadReview",
    "TurnLines",
    "await_review",
    "coach_lines",
    "costliest",
    "fetch_review",
    "find_match",
    "load_review",
    "move_text",
    "moves_text",
    "own_seat",
    "percent",
    "points_text",
    "seat_review",
    "turn_lines",
]
