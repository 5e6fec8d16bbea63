"""The command line of ``kings-corner play``, above both terminal modes: its flags, the
:class:`Entry` they make (how to get into a room) and the typed lines line mode reads.
Split from :mod:`clients.terminal.app`, which follows a room once entered; the full-screen
lobby makes an :class:`Entry` too.

The room options' flags are the declaration's (:func:`clients.terminal.options.add_flags`):
an option declared in :mod:`protocol.options_table` is a flag here without a line changed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TextIO

from clients.i18n import LANGUAGES
from clients.words import language
from protocol.options_table import option

from .options import DEFAULT_LEVEL, LEVELS, add_flags, chosen
from .tokens import default_path

Mode = Literal["create", "join", "watch", "quick", "daily"]
#: Reads the next typed line; None at the end of input.
ReadLine = Callable[[], Awaitable[str | None]]

DEFAULT_URL = "ws://127.0.0.1:8000/"
DEFAULT_FILL = DEFAULT_LEVEL


@dataclass(frozen=True, slots=True)
class Entry:
    """How to get into a room: create one, join or watch one by code, quick play, or
    today's daily deal."""

    mode: Mode = "create"
    room: str | None = None
    seat: int | None = None
    seats: int = 4
    #: Bot levels for the seats after yours when creating (None: a seat left for a person).
    bots: tuple[str | None, ...] = ()
    #: The new room's options, by their declared names (:mod:`protocol.options_table`):
    #: those chosen only, every other at its default (``public``, ``casual``, ``pace``...).
    options: Mapping[str, Any] = field(default_factory=dict)
    #: Stacked decks (one per hand, index 0 the top) and the first dealer, for a deal
    #: that is the same every time (tournaments, tests).
    decks: tuple[tuple[str, ...], ...] = ()
    dealer: int | None = None

    @property
    def known_room(self) -> str | None:
        """The room this entry goes to when it is known before connecting (join and watch
        by code): the connection names it in its URL (:meth:`GameClient.connect`)."""
        return self.room if self.mode in ("join", "watch") else None


def stdin_reader() -> ReadLine:
    """Lines from standard input, read by a daemon thread so quitting never waits on it.
    At a terminal, lines are edited with the arrow keys and kept in a history (readline),
    after a ``>`` prompt; from a pipe they are read as they come, without a prompt."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str | None] = asyncio.Queue()
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    if interactive:
        with contextlib.suppress(ImportError):
            import readline  # noqa: F401  (importing it gives input() editing and history)

    def pump() -> None:
        if interactive:
            while True:
                try:
                    line = input(PROMPT)
                except EOFError:
                    break
                loop.call_soon_threadsafe(queue.put_nowait, line)
        else:
            for line in sys.stdin:
                loop.call_soon_threadsafe(queue.put_nowait, line)
        loop.call_soon_threadsafe(queue.put_nowait, None)

    threading.Thread(target=pump, name="stdin", daemon=True).start()
    return queue.get


#: The prompt line mode reads a command after, at a terminal.
PROMPT = "> "


def prompt_writer(stream: TextIO, typed: Callable[[], str] = lambda: "") -> Callable[[str], None]:
    """Print to ``stream`` (a terminal) above the ``>`` prompt: what arrives while a
    command is being typed clears the prompt's line, is printed, and the prompt comes back
    under it with what was typed so far (``typed``), so there is always a prompt to type at."""

    def write(text: str) -> None:
        stream.write(f"\r\x1b[K{text}\n{PROMPT}{typed()}")
        stream.flush()

    return write


def _levels(text: str) -> tuple[str | None, ...]:
    out: list[str | None] = []
    for item in text.split(","):
        level = item.strip().lower()
        if level in ("", "-", "none", "human"):
            out.append(None)
        elif level in LEVELS:
            out.append(level)
        else:
            raise argparse.ArgumentTypeError(
                f"unknown bot level {item!r}; levels are {', '.join(LEVELS)}"
            )
    return tuple(out)


def parser() -> argparse.ArgumentParser:
    """The command-line options of ``kings-corner play``."""
    p = argparse.ArgumentParser(prog="kings-corner play", description="Play from a terminal.")
    p.add_argument("--url", default=DEFAULT_URL, help=f"server WebSocket URL ({DEFAULT_URL})")
    p.add_argument("--name", default="Player", help="your display name")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--create", action="store_true", help="create a room (the default)")
    how.add_argument("--join", metavar="CODE", help="join room CODE (back to your seat)")
    how.add_argument("--watch", metavar="CODE", help="watch room CODE as a spectator")
    how.add_argument("--quick", metavar="SEATS", type=int, choices=(2, 3, 4), help="quick play")
    how.add_argument(
        "--daily", action="store_true", help="play today's daily deal (ranked once a day)"
    )
    how.add_argument(
        "--leaderboard",
        nargs="?",
        const="daily",
        choices=("daily", "alltime", "rating"),
        help="print a leaderboard (daily by default, alltime, or rating: the top players) and exit",
    )
    p.add_argument("--seat", type=int, help="with --join: the seat to take (1-based)")
    seats = option("seats")
    assert seats.low is not None and seats.high is not None
    p.add_argument(
        "--seats",
        type=int,
        default=seats.default,
        choices=range(seats.low, seats.high + 1),
        help="with --create",
    )
    p.add_argument(
        "--bots",
        type=_levels,
        default=(),
        help="with --create: bot levels for the seats after yours, e.g. medium,medium,- "
        "('-' keeps a seat for a person)",
    )
    add_flags(p)
    p.add_argument(
        "--fill", choices=LEVELS, default=DEFAULT_FILL, help="bot level 'start' fills seats with"
    )
    p.add_argument(
        "--token-file", type=Path, help=f"where seat and player tokens are kept ({default_path()})"
    )
    p.add_argument(
        "--recover",
        metavar="CODE",
        help="become the player a recovery code belongs to (shown by the web client or by "
        "--recovery-code), keep that identity in the token file, and exit",
    )
    p.add_argument(
        "--recovery-code",
        action="store_true",
        help="print a new recovery code for this player (shown once; the one before stops "
        "working) and exit",
    )
    p.add_argument("--no-color", action="store_true", help="no colours (also when NO_COLOR is set)")
    p.add_argument("--ascii", action="store_true", help="suit letters instead of symbols")
    p.add_argument(
        "--plain",
        action="store_true",
        help="line mode, one line per event (for scripts and screen readers); the default "
        "when standard input or output is not a terminal",
    )
    p.add_argument(
        "--lang",
        choices=LANGUAGES,
        default=language(),
        help="language of the table log and refusals (default: KC_LANG or LANG, else en)",
    )
    return p


def full_screen(args: argparse.Namespace) -> bool:
    """Whether to run the full-screen client: both ends are a terminal and no ``--plain``
    (nor ``--leaderboard``, ``--recover`` or ``--recovery-code``, which print and exit)."""
    once = args.leaderboard is not None or args.recover or args.recovery_code
    return not args.plain and not once and sys.stdin.isatty() and sys.stdout.isatty()


def entry_from(args: argparse.Namespace) -> Entry:
    """The :class:`Entry` the command line asks for (a new room unless it names another)."""
    if args.join:
        seat = args.seat - 1 if args.seat else None
        return Entry(mode="join", room=args.join, seat=seat)
    if args.watch:
        return Entry(mode="watch", room=args.watch)
    if args.quick:
        return Entry(mode="quick", seats=args.quick)
    if args.daily:
        return Entry(mode="daily", seats=4)
    return Entry(mode="create", seats=args.seats, bots=args.bots, options=chosen(args))


__all__ = [
    "DEFAULT_FILL",
    "DEFAULT_URL",
    "PROMPT",
    "Entry",
    "Mode",
    "ReadLine",
    "entry_from",
    "full_screen",
    "parser",
    "prompt_writer",
    "stdin_reader",
]
