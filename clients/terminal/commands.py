"""Turning one typed line into a command, without any I/O.

``parse(line, legal)`` understands a number (the numbered legal action), an action's text
(``7H>N``, ``N>E``, ``end``; case and spaces around ``>`` do not matter) and the words
``hint``, ``chat TEXT``, ``start [LEVEL]``, ``sit N``, ``ready``, ``unready``, ``next``,
``back``, ``rematch [force]``, ``look``, ``leaderboard [daily|alltime|rating]``, ``matches``,
``me``, ``coach``, ``leave``, ``quit`` and ``help``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from clients.i18n import texts
from protocol.bots import LEVELS
from protocol.engine import action_from_text
from protocol.errors import BadAction

Word = Literal["hint", "next", "back", "look", "matches", "me", "coach", "leave", "quit", "help"]
BoardName = Literal["daily", "alltime", "rating"]


@dataclass(frozen=True, slots=True)
class Act:
    """Take ``action`` (text form, e.g. ``7H>N``)."""

    action: str


@dataclass(frozen=True, slots=True)
class Say:
    """Send ``text`` to the room's chat."""

    text: str


@dataclass(frozen=True, slots=True)
class Start:
    """Start the match, filling empty seats with bots of ``level`` (None: the default)."""

    level: str | None = None


@dataclass(frozen=True, slots=True)
class Sit:
    """Move to ``seat`` (0-based) before the start."""

    seat: int


@dataclass(frozen=True, slots=True)
class Ready:
    """Say you are ready to start (or, with ``ready`` False, no longer ready)."""

    ready: bool = True


@dataclass(frozen=True, slots=True)
class Rematch:
    """Vote for another match at this table; the host may ``force`` it."""

    force: bool = False


@dataclass(frozen=True, slots=True)
class Board:
    """Show a leaderboard: today's ``daily`` deal, ``alltime`` or the top players by
    ``rating``."""

    board: BoardName = "daily"


@dataclass(frozen=True, slots=True)
class Simple:
    """A command without arguments."""

    word: Word


@dataclass(frozen=True, slots=True)
class Invalid:
    """A line that is no command; ``message`` says why."""

    message: str


Command = Act | Say | Start | Sit | Ready | Rematch | Board | Simple | Invalid

_BOARDS: dict[str, BoardName] = {
    "": "daily",
    "daily": "daily",
    "alltime": "alltime",
    "all": "alltime",
    "rating": "rating",
    "top": "rating",
}

_WORDS: dict[str, Word] = {
    "hint": "hint",
    "next": "next",
    "back": "back",
    "look": "look",
    "l": "look",
    "": "look",
    "matches": "matches",
    "history": "matches",
    "me": "me",
    "profile": "me",
    "rating": "me",
    "coach": "coach",
    "leave": "leave",
    "quit": "quit",
    "exit": "quit",
    "q": "quit",
    "help": "help",
    "?": "help",
}


def normalize_action(text: str) -> str:
    """``7h > n`` as ``7H>N``; ``END`` as ``end``, ``Draw`` as ``draw``."""
    compact = "".join(text.split())
    if compact.lower() in ("end", "draw"):
        return compact.lower()
    return compact.upper()


def _say(lang: str, key: str, **params: object) -> str:
    """Why a line is no command, in ``lang`` (the catalogues' text ``key``)."""
    return texts(lang)[key].format_map(params)


def parse(line: str, legal: Sequence[str] = (), lang: str = "en") -> Command:
    """The command typed as ``line``, given the viewer's current legal actions; an
    :class:`Invalid` line's message is in ``lang`` (the words typed are English in all)."""
    text = line.strip()
    head, _, rest = text.partition(" ")
    word = head.lower()
    rest = rest.strip()
    if word in ("chat", "say"):
        return Say(rest) if rest else Invalid(_say(lang, "term.line.chat_empty"))
    if word == "start":
        if not rest:
            return Start()
        level = rest.lower()
        if level not in LEVELS:
            return Invalid(_say(lang, "term.line.bad_level", level=rest, levels=", ".join(LEVELS)))
        return Start(level)
    if word == "sit":
        if rest.isdigit() and int(rest) >= 1:
            return Sit(int(rest) - 1)
        return Invalid(_say(lang, "term.line.which_seat"))
    if word in ("ready", "unready") and not rest:
        return Ready(word == "ready")
    if word in ("leaderboard", "board", "lb"):
        board = _BOARDS.get(rest.lower())
        if board is None:
            return Invalid(_say(lang, "term.line.which_board"))
        return Board(board)
    if word == "rematch" and rest.lower() in ("", "force"):
        return Rematch(force=rest.lower() == "force")
    if word in _WORDS and not rest:
        return Simple(_WORDS[word])
    if text.isdigit():
        number = int(text)
        if not legal:
            return Invalid(_say(lang, "term.line.no_choice"))
        if not 1 <= number <= len(legal):
            return Invalid(_say(lang, "term.line.choose_range", n=len(legal)))
        return Act(legal[number - 1])
    action = normalize_action(text)
    try:
        action_from_text(action)
    except BadAction:
        return Invalid(_say(lang, "term.line.unknown", text=text))
    return Act(action)


__all__ = [
    "Act",
    "Board",
    "BoardName",
    "Command",
    "Invalid",
    "Ready",
    "Rematch",
    "Say",
    "Simple",
    "Sit",
    "Start",
    "normalize_action",
    "parse",
]
