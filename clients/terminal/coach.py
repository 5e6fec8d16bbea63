"""The coach in the terminal: the three costliest turns of a finished match, worded.

The server reviews every person's turns a few seconds after a match with people ends
(``GET /api/matches/ID/review``: ``202`` while it works, then the review). Fetching is
:func:`fetch_review` (one request) and :func:`await_review` (polling while it is pending,
a bounded number of times); :func:`find_match` learns the id of the match that just ended
from the player's history, as the web client's "replay this match" does, and
:func:`load_review` does both. Everything else is pure: :func:`coach_lines` turns one
seat's review into the lines the line mode prints and the full screen shows, in the
player's language, the cards drawn by the ``card`` function of the client: a turn where the
player could have gone out says so first, and where the played and the better line share a
start (the review's ``fork``) that start is said once, then each line from there.
:func:`line_tables` plays a better line on a replay's table, a move at a time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from clients.i18n import texts
from clients.net import GameClient
from clients.words import describe_gain, describe_reason

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
    """One costly turn, worded: where it was (``alert`` first when the player could have
    gone out), what was played and the better line (``moves``: where they part), what it
    would have saved and what the better line gains; ``step`` is where its replay starts,
    ``seat`` who played it, ``line`` the better line's moves (action texts) from there."""

    where: str
    alert: str
    moves: tuple[str, ...]
    saved: str
    why: str
    step: int
    seat: int = 0
    line: tuple[str, ...] = ()
    fork: int = 0

    @property
    def head(self) -> str:
        """The turn's first line: that the player could have gone out, else where it was."""
        return self.alert or self.where

    @property
    def better(self) -> str:
        """The better line, worded (from the fork on when the lines share a start)."""
        return self.moves[-1] if self.moves else ""

    def lines(self) -> list[str]:
        """The lines under :attr:`head`."""
        first = [self.where] if self.alert else []
        return [line for line in (*first, *self.moves, self.saved, self.why) if line]


def _fork(turn: Mapping[str, Any], played: Sequence[str], better: Sequence[str]) -> int:
    """Where the played and the better line part (the review's ``fork``, kept within the
    moves the two share)."""
    try:
        fork = int(turn.get("fork") or 0)
    except (TypeError, ValueError):
        return 0
    fork = max(0, min(fork, len(played), len(better)))
    return fork if list(played[:fork]) == list(better[:fork]) else 0


def turn_lines(turn: Mapping[str, Any], lang: str = "en", card: Card = _plain) -> TurnLines:
    """One entry of a seat's ``costliest``, worded in ``lang``: when the lines share a
    start (``fork``), that start once, then what was played and the better line from
    there."""
    words = texts(lang)
    position = turn.get("position") or {}
    hand = " ".join(card(c) for c in sorted_hand(list(position.get("hand") or [])))
    where = words["coach.where"].format(hand=int(turn.get("hand", 0)) + 1, cards=hand)
    alert = words["coach.could_go_out"] if turn.get("could_go_out") else ""
    played_moves = [str(m) for m in turn.get("played") or []]
    better_moves = [str(m) for m in turn.get("better") or []]
    fork = _fork(turn, played_moves, better_moves)

    def moves(actions: Sequence[str]) -> str:
        return moves_text(actions, card) if actions else words["coach.then_end"]

    lines: tuple[str, ...]
    if fork:
        lines = (
            words["coach.as_played"].format(moves=moves_text(played_moves[:fork], card)),
            words["coach.then_played"].format(moves=moves_text(played_moves[fork:], card))
            if played_moves[fork:]
            else words["coach.then_ended"],
            words["coach.then_better"].format(moves=moves(better_moves[fork:])),
        )
    else:
        played = (
            words["coach.played"].format(moves=moves_text(played_moves, card))
            if played_moves
            else words["coach.played_none"]
        )
        lines = (played, words["coach.better"].format(moves=moves(better_moves)))
    chance = turn.get("win_chance") or {}
    saved = words["coach.saved"].format(
        points=points_text(turn.get("cost"), lang),
        played=percent(chance.get("played")),
        better=percent(chance.get("better")),
    )
    reason = turn.get("reason")
    # A review from before the coach said what its line gains words its reason as a hint's.
    why = describe_gain(reason, lang, card) or describe_reason(reason, lang, card)
    return TurnLines(
        where,
        alert,
        lines,
        saved,
        why,
        int(turn.get("step", 0)),
        int(turn.get("seat", 0)),
        tuple(better_moves),
        fork,
    )


def coach_title(count: int, lang: str = "en") -> str:
    """The coach's heading for ``count`` costly turns ("" for none)."""
    key = {0: "", 1: "coach.title_1", 2: "coach.title_2"}.get(count, "coach.title")
    return texts(lang)[key] if key else ""


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
    """The coach's section for one seat's review: the heading (as many turns as there
    are), then each costly turn numbered (its first line, then its lines indented, and
    ``replay``'s line for it when given); only ``coach.none`` when there is none."""
    words = texts(lang)
    turns = costliest(entry, lang, card)
    if not turns:
        return [words["coach.none"]]
    out = [coach_title(len(turns), lang)]
    for number, turn in enumerate(turns, start=1):
        out.append(f"{number}. {turn.head}")
        out.extend(f"   {line}" for line in turn.lines())
        if replay is not None:
            out.append(f"   {replay(turn)}")
    return out


# --- the better line ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Table:
    """The hands and the piles (card codes, the piles by name) after some moves of a
    better line; ``move`` is the one that led here (None: the turn as it began)."""

    hands: tuple[tuple[str, ...], ...]
    piles: Mapping[str, tuple[str, ...]]
    move: str | None = None

    @property
    def pile(self) -> str | None:
        """The pile :attr:`move` put cards on."""
        return self.move.partition(">")[2] if self.move else None


def line_tables(
    hands: Sequence[Sequence[str]],
    piles: Mapping[str, Sequence[str]],
    seat: int,
    moves: Sequence[str],
) -> list[Table]:
    """The table as ``seat`` plays ``moves`` from ``hands`` and ``piles``, the start first
    and then one after each move: a play (``7H>N``) takes the card from the seat's hand and
    puts it on the pile, a pile's move (``W>N``) lays all of one pile on the other and leaves
    it empty. The line stops before a move that cannot be made there."""
    now_hands = [tuple(hand) for hand in hands]
    now_piles = {name: tuple(pile) for name, pile in piles.items()}
    out = [Table(tuple(now_hands), dict(now_piles))]
    for move in moves:
        left, sep, right = move.partition(">")
        if not sep or right not in now_piles or not 0 <= seat < len(now_hands):
            break
        if left in PILES:
            if left not in now_piles or left == right or not now_piles[left]:
                break
            now_piles[right] += now_piles[left]
            now_piles[left] = ()
        else:
            hand = list(now_hands[seat])
            if left not in hand:
                break
            hand.remove(left)
            now_hands[seat] = tuple(hand)
            now_piles[right] += (left,)
        out.append(Table(tuple(now_hands), dict(now_piles), move))
    return out


__all__ = [
    "FIND_TRIES",
    "TRIES",
    "Card",
    "CoachError",
    "FetchReview",
    "LoadReview",
    "Table",
    "TurnLines",
    "await_review",
    "coach_lines",
    "coach_title",
    "costliest",
    "fetch_review",
    "find_match",
    "line_tables",
    "load_review",
    "move_text",
    "moves_text",
    "own_seat",
    "percent",
    "points_text",
    "seat_review",
    "turn_lines",
]
