"""``kings-corner replay ID``: step through a finished match in the terminal.

In a terminal the full-screen viewer shows it (:mod:`clients.terminal.tui`); with
``--plain`` or input that is not a terminal, this line mode does.

The match record comes from the server (``GET /api/matches/ID``) and is rebuilt here by
the local rules engine, one step per entry of its log: the deal of the first hand, then
every action, and ``next`` where the following hand was dealt. Each step shows the table
with every hand open (the match is over, nothing is secret any more), what happened, and
the scores. Keys: Enter or ``n`` forward, ``b`` back, ``h N`` the deal of hand N, ``s`` the
start, ``e`` the end, ``q`` quit.

Everything but :func:`fetch_record` and :func:`main` is pure: :func:`build` turns a record
into a :class:`Replay`, :func:`navigate` answers one typed line with the step to show,
:func:`render_step` draws a step. Reading lines is a seam (:data:`ReadLine`), as in the
play client: the command line reads standard input, tests pass their own lines.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clients.i18n import LANGUAGES, section
from clients.words import language
from protocol.engine import (
    NEXT_HAND,
    Draw,
    EndTurn,
    Match,
    Move,
    Options,
    Play,
    action_from_text,
    new_match,
    public_view,
)
from protocol.errors import KingsCornerError

from .render import (
    PLAIN,
    Style,
    card,
    cards,
    render_result,
    render_scores,
    render_table,
    sorted_hand,
)

#: Reads the next typed line; None at the end of input.
ReadLine = Callable[[], str | None]
Write = Callable[[str], None]

DEFAULT_URL = "http://127.0.0.1:8000"
#: Match ids as the server accepts them.
_ID = re.compile(r"^[A-Za-z0-9-]{1,40}$")

KEYS = "Enter/n next · b back · h N hand N · s start · e end · q quit"
HELP = """Replay keys:
  Enter, n   the next step
  b          the step before
  h N        the deal of hand N
  s          the deal of the first hand
  e          the end of the match
  q          quit"""


class ReplayError(Exception):
    """The match cannot be replayed; the message says why, for people."""


# --- fetching ---------------------------------------------------------------------------


def http_base(url: str) -> str:
    """The HTTP origin of a server address: ``ws://h:p/`` becomes ``http://h:p``,
    ``wss://`` becomes ``https://``, a bare ``h:p`` gets ``http://``."""
    text = url.strip()
    if "://" not in text:
        text = "http://" + text
    parts = urllib.parse.urlsplit(text)
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme.lower(), parts.scheme.lower())
    return f"{scheme}://{parts.netloc}"


def match_json(
    url: str,
    match_id: str,
    part: str,
    error: type[Exception],
    refusals: Mapping[int, str] | None = None,
    timeout: float = 10.0,
) -> tuple[int, Any]:
    """``GET /api/matches/ID`` (``part`` "") or ``/api/matches/ID/part`` from the server at
    ``url`` (HTTP or WebSocket address): the status and the decoded JSON (None for a ``202``).
    Anything else raises ``error``, worded for people; ``refusals`` words some HTTP errors
    (``{base}`` and ``{match}`` are filled in)."""
    if not _ID.match(match_id):
        raise error(f"{match_id!r} is not a match id (letters, digits and '-').")
    base = http_base(url)
    address = f"{base}/api/matches/{urllib.parse.quote(match_id)}" + (f"/{part}" if part else "")
    request = urllib.request.Request(address, headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, body = int(response.status), response.read()
    except urllib.error.HTTPError as exc:
        worded = (refusals or {}).get(exc.code, "The server at {base} answered {code} {reason}.")
        message = worded.format(base=base, match=match_id, code=exc.code, reason=exc.reason)
        raise error(message) from None
    except (urllib.error.URLError, OSError) as exc:
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        raise error(f"Cannot reach the server at {base}: {reason}.") from None
    if status == 202:
        return status, None
    try:
        return status, json.loads(body)
    except ValueError:
        raise error(f"The server at {base} sent something that is not JSON.") from None


def fetch_record(url: str, match_id: str, timeout: float = 10.0) -> dict[str, Any]:
    """The record of finished match ``match_id`` from the server at ``url`` (HTTP or
    WebSocket address); raises :class:`ReplayError` when it cannot be had (a daily deal of
    the current day is withheld until the day is over)."""
    refusals = {
        403: "Match {match} is a daily deal of a day that is not over yet: its replay is "
        "shown once the day (UTC) is over.",
        404: "The server at {base} has no finished match {match}.",
    }
    _, record = match_json(url, match_id, "", ReplayError, refusals, timeout)
    if not isinstance(record, dict):
        raise ReplayError(f"The server at {http_base(url)} sent no match record.")
    return record


# --- rebuilding -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    """One position of the replay and how it was reached."""

    #: 0 is the deal of the first hand; step i follows the record's log entry i - 1.
    index: int
    #: The hand being played (1-based).
    hand: int
    #: Who acted (None for a deal).
    seat: int | None
    #: The log entry: an action's text, ``next`` (a deal), or None for the first deal.
    entry: str | None
    #: The match after this step.
    match: Match


@dataclass(frozen=True, slots=True)
class Replay:
    """A finished match rebuilt step by step from its record."""

    record: Mapping[str, Any]
    steps: tuple[Step, ...]
    #: The index of each hand's deal, hand 1 first.
    hand_starts: tuple[int, ...]

    @property
    def last(self) -> int:
        """The index of the last step (the end of the match)."""
        return len(self.steps) - 1

    @property
    def end(self) -> Match:
        return self.steps[-1].match

    @property
    def totals(self) -> list[int]:
        """The totals the replay ends with (those of the record, unless the engine differs)."""
        return list(self.end.totals)

    @property
    def winners(self) -> list[int]:
        return list(self.end.winners)

    def names(self) -> list[str]:
        """The display name of every seat, from the record's seats."""
        seats = self.record.get("seats") or []
        out = []
        for i in range(self.end.options.seats):
            entry = seats[i] if i < len(seats) else None
            name = entry.get("name") if isinstance(entry, Mapping) else None
            out.append(str(name) if name else f"Seat {i + 1}")
        return out

    def mismatch(self) -> str | None:
        """Why the replay disagrees with the record's totals or winners, if it does."""
        totals, winners = self.record.get("totals"), self.record.get("winners")
        if totals is not None and list(totals) != self.totals:
            return f"the record's totals are {list(totals)}, the replay's {self.totals}"
        if winners is not None and list(winners) != self.winners:
            return f"the record's winners are {list(winners)}, the replay's {self.winners}"
        return None


def build(record: Mapping[str, Any]) -> Replay:
    """Rebuild ``record`` (``GET /api/matches/ID``) through the local engine, keeping the
    match after every step; raises :class:`ReplayError` when the record does not replay."""
    try:
        match = new_match(
            Options.from_dict(record["options"]),
            seed=record["seed"],
            decks=record.get("decks") or (),
            dealer=record["first_dealer"],
        )
        steps = [Step(0, 1, None, None, match)]
        starts = [0]
        for entry in record["log"]:
            if entry == NEXT_HAND:
                match = match.next_hand()
                starts.append(len(steps))
                steps.append(Step(len(steps), match.hand_index + 1, None, entry, match))
            else:
                seat = match.position.turn
                match = match.apply(action_from_text(entry))
                steps.append(Step(len(steps), match.hand_index + 1, seat, entry, match))
    except (KeyError, TypeError, ValueError, KingsCornerError) as exc:
        raise ReplayError(f"The match record does not replay: {exc!r}.") from None
    return Replay(record, tuple(steps), tuple(starts))


# --- stepping ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Go:
    """What a typed line asks for: the step to show (None: quit) and a note for the user."""

    index: int | None
    note: str | None = None


def navigate(replay: Replay, index: int, line: str) -> Go:
    """The answer to ``line`` typed while step ``index`` is shown."""
    word, _, rest = line.strip().lower().partition(" ")
    rest = rest.strip()
    if word in ("", "n", "next") and not rest:
        if index >= replay.last:
            return Go(index, "This is the end of the match: b goes back, q quits.")
        return Go(index + 1)
    if word in ("b", "back") and not rest:
        if index <= 0:
            return Go(0, "This is the deal of the first hand: Enter goes forward.")
        return Go(index - 1)
    if word in ("h", "hand"):
        count = len(replay.hand_starts)
        if not rest.isdigit() or not 1 <= int(rest) <= count:
            return Go(index, f"Which hand? h N, with N from 1 to {count}.")
        return Go(replay.hand_starts[int(rest) - 1])
    if word in ("s", "start") and not rest:
        return Go(0)
    if word in ("e", "end") and not rest:
        return Go(replay.last)
    if word in ("q", "quit", "exit") and not rest:
        return Go(None)
    if word in ("?", "help") and not rest:
        return Go(index, HELP)
    return Go(index, f"Not a replay key: {line.strip()!r}. Keys: {KEYS}.")


# --- showing ----------------------------------------------------------------------------


#: The replay's captions, by language: the catalogues' ``term.caption.…`` texts
#: (clients.words words the live table log).
CAPTIONS = section("caption.")


def _seat(replay: Replay, seat: int, lang: str = "en") -> str:
    words = CAPTIONS.get(lang, CAPTIONS["en"])
    name = replay.names()[seat]
    if name == f"Seat {seat + 1}":
        return words["seat"].format(n=seat + 1)
    return words["seat_named"].format(n=seat + 1, name=name)


def move_caption(replay: Replay, seat: int, move: str, style: Style = PLAIN) -> str:
    """What a card move (``7H>N``, ``W>N``) by ``seat`` does, as the captions say it:
    ``seat 1 (Ana) played 7♥ on N.``; the move itself when it is no card move."""
    words = CAPTIONS.get(style.lang, CAPTIONS["en"])
    who = _seat(replay, seat, style.lang)
    try:
        action = action_from_text(move)
    except (KingsCornerError, ValueError):
        return move
    if isinstance(action, Play):
        return (
            words["played"].format(who=who, card=card(action.card, style), pile=action.pile) + "."
        )
    if isinstance(action, Move):
        return words["moved"].format(who=who, src=action.src, dst=action.dst) + "."
    return move


def caption(replay: Replay, index: int, style: Style = PLAIN) -> str:
    """What step ``index`` did, e.g. ``seat 2 (Bot 2) played 7♥ on N.``, in ``style``'s
    language."""
    words = CAPTIONS.get(style.lang, CAPTIONS["en"])
    lang = style.lang
    step = replay.steps[index]
    match = step.match
    if step.seat is None:
        dealer = _seat(replay, match.position.dealer, lang)
        first = _seat(replay, match.position.turn, lang)
        return words["dealt"].format(hand=step.hand, dealer=dealer, first=first)
    before = replay.steps[index - 1].match
    assert step.entry is not None
    action = action_from_text(step.entry)
    who = _seat(replay, step.seat, lang)
    if isinstance(action, Play):
        text = words["played"].format(who=who, card=card(action.card, style), pile=action.pile)
    elif isinstance(action, Move):
        text = words["moved"].format(who=who, src=action.src, dst=action.dst)
    elif isinstance(action, Draw):
        text = words["drew"].format(who=who, noun=words["a_card"])
    else:
        assert isinstance(action, EndTurn)
        text = words["ended"].format(who=who)
    mine, others = "", []
    for seat, (was, now) in enumerate(
        zip(before.position.hands, match.position.hands, strict=True)
    ):
        # A play's card left the hand: more cards now means a refill came with it.
        drawn = len(now) - len(was) + (seat == step.seat and isinstance(action, Play))
        if drawn > 0:
            noun = words["a_card"] if drawn == 1 else words["cards"].format(n=drawn)
            if seat == step.seat:
                if not isinstance(action, Draw):
                    mine = words["and_drew"].format(noun=noun)
            else:
                others.append(words["drew"].format(who=_seat(replay, seat, lang), noun=noun))
    text += mine + "".join(f"; {other}" for other in others) + "."
    if match.position.result is not None and before.position.result is None:
        text += words["hand_over"].format(hand=step.hand)
        if match.phase == "finished":
            text += words["match_over"]
    return text


def _doc(replay: Replay, match: Match) -> dict[str, Any]:
    """A viewer document as render.py expects it: the record's seats, the public view."""
    return {
        "room": {"seats": [{"name": name} for name in replay.names()]},
        "game": public_view(match),
    }


def render_hands(replay: Replay, match: Match, style: Style = PLAIN) -> str:
    """One line per seat with every card of its hand open, turn and dealer marked."""
    pos = match.position
    names = replay.names()
    seats = replay.record.get("seats") or []
    lines = ["Seats (all hands open):"]
    for i, hand in enumerate(pos.hands):
        playing = pos.result is None
        mark = "▶" if playing and pos.turn == i else " "
        label = names[i] + (" (dealer)" if pos.dealer == i else "")
        entry = seats[i] if i < len(seats) else None
        kind = ""
        if isinstance(entry, Mapping):
            kind = "bot " + str(entry.get("level") or "") if entry.get("kind") == "bot" else "human"
        shown = cards(sorted_hand(hand), style) if hand else "(no cards)"
        count = f"{len(hand)} card{'' if len(hand) == 1 else 's'}"
        lines.append(
            f" {mark} {i + 1}. {label:<24} {kind.strip():<12} total {match.totals[i]:>3}"
            f"   {count}: {shown}"
        )
    return "\n".join(lines)


def render_step(replay: Replay, index: int, style: Style = PLAIN) -> str:
    """The whole screen of step ``index``: where we are, what happened, every hand, the
    table, the scores and, at the end of a hand or of the match, its result."""
    step = replay.steps[index]
    match = step.match
    record = replay.record
    head = f"Replay of match {record.get('id') or '?'}"
    daily = record.get("daily")
    if isinstance(daily, Mapping):
        head += f" · daily deal of {daily.get('day')}"
    head += f" · step {index} of {replay.last} · hand {step.hand} of {len(replay.hand_starts)}"
    doc = _doc(replay, match)
    parts = [
        head,
        caption(replay, index, style),
        render_hands(replay, match, style),
        render_table(doc["game"], style),
        render_scores(doc, style.lang),
    ]
    if match.position.result is not None:
        parts.append(render_result(doc, style, prompt=False))
    parts.append(f"Keys: {KEYS}")
    return "\n".join(parts)


def run(
    replay: Replay,
    read_line: ReadLine,
    write: Write,
    *,
    style: Style = PLAIN,
    start: int = 0,
) -> int:
    """Show step ``start``, then answer typed lines until ``q`` or the end of input."""
    index = start
    write(render_step(replay, index, style))
    while True:
        line = read_line()
        if line is None:
            return 0
        go = navigate(replay, index, line)
        if go.index is None:
            return 0
        if go.note is not None:
            write(go.note)
        if go.index != index or go.note is None:
            index = go.index
            write(render_step(replay, index, style))


# --- the command line -------------------------------------------------------------------


def stdin_line() -> str | None:
    """The next line of standard input; None at its end."""
    line = sys.stdin.readline()
    return line if line else None


def parser() -> argparse.ArgumentParser:
    """The command-line options of ``kings-corner replay``."""
    p = argparse.ArgumentParser(
        prog="kings-corner replay", description="Step through a finished match."
    )
    p.add_argument("id", metavar="ID", help="the match id (the 'matches' command lists yours)")
    p.add_argument(
        "--url",
        default=DEFAULT_URL,
        help=f"the server's HTTP (or WebSocket) address ({DEFAULT_URL})",
    )
    p.add_argument("--hand", type=int, metavar="N", help="start at the deal of hand N")
    p.add_argument(
        "--step", type=int, metavar="N", help="start at step N (the coach names its turns' steps)"
    )
    p.add_argument(
        "--token-file",
        type=Path,
        help="where your player identity is kept, as for 'kings-corner play' (full screen: "
        "the coach's turns of your seat are shown in the replay of one of your matches)",
    )
    p.add_argument("--no-color", action="store_true", help="no colours (also when NO_COLOR is set)")
    p.add_argument("--ascii", action="store_true", help="suit letters instead of symbols")
    p.add_argument(
        "--plain",
        action="store_true",
        help="line mode (the default when standard input or output is not a terminal)",
    )
    p.add_argument(
        "--lang",
        choices=LANGUAGES,
        default=language(),
        help="language of the captions (default: KC_LANG or LANG, else en)",
    )
    return p


def _finished(stamp: object) -> str:
    if not isinstance(stamp, int | float):
        return ""
    moment = datetime.datetime.fromtimestamp(stamp, datetime.UTC)
    return f", finished {moment.strftime('%Y-%m-%d %H:%M')} UTC"


def main(
    argv: Sequence[str] | None = None,
    *,
    read_line: ReadLine | None = None,
    write: Write | None = None,
    tty: bool | None = None,
) -> int:
    """The line replay of ``kings-corner replay``: fetch, rebuild and step through a match;
    the seams default to the terminal (:mod:`clients.terminal.cli` chooses full screen)."""
    args = parser().parse_args(sys.argv[1:] if argv is None else list(argv))
    out: Write = write if write is not None else (lambda text: print(text, flush=True))
    colour = sys.stdout.isatty() if tty is None else tty
    style = Style(color=colour and not args.no_color, symbols=not args.ascii, lang=args.lang)
    try:
        replay = build(fetch_record(args.url, args.id))
    except ReplayError as exc:
        out(str(exc))
        return 1
    problem = replay.mismatch()
    if problem is not None:
        out(f"Warning: this engine replays the match differently ({problem}).")
    start = 0
    if args.hand is not None:
        go = navigate(replay, 0, f"h {args.hand}")
        if go.note is not None:
            out(go.note)
        start = go.index or 0
    if args.step is not None:
        start = max(0, min(args.step, replay.last))
    record = replay.record
    finished = _finished(record.get("finished_at"))
    out(
        f"Match {record.get('id')} in room {record.get('room')}{finished}: "
        f"{len(replay.names())} seats, {len(replay.hand_starts)} hands, {replay.last} steps."
    )
    try:
        return run(replay, read_line or stdin_line, out, style=style, start=start)
    except KeyboardInterrupt:
        return 130


__all__ = [
    "DEFAULT_URL",
    "Go",
    "ReadLine",
    "Replay",
    "ReplayError",
    "Step",
    "build",
    "caption",
    "fetch_record",
    "http_base",
    "main",
    "move_caption",
    "navigate",
    "parser",
    "render_hands",
    "render_step",
    "run",
]
