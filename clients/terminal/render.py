"""Pure text rendering of one viewer's document for the terminal client.

Every function here takes plain data (the viewer's ``{room, game}`` document, log lines,
chat frames) and returns text; nothing reads the network or the terminal, so the output
can be checked in tests. Only what the document holds is shown: a seat's document has its
own hand and nobody else's, a spectator's has no hand at all.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from clients.i18n import texts
from clients.words import (
    describe_change,
    describe_error,
    describe_event,
    describe_provisional,
    describe_unrated,
    describe_your_change,
    level_name,
    plural,
    rating_wait,
    unrated_reason,
    who,
)
from protocol.engine import CORNERS, SIDES
from protocol.engine.cards import RANKS

from .options import summary as options_summary
from .variants import place_lines, refill_note

Doc = Mapping[str, Any]

SUIT_SYMBOLS = {"H": "♥", "D": "♦", "C": "♣", "S": "♠"}
RED_SUITS = frozenset({"H", "D"})
#: Cards look like cards: red or black on a light background.
_RED = "\x1b[31;47m"
_BLACK = "\x1b[30;47m"
_BOLD = "\x1b[1m"
_RESET = "\x1b[0m"
#: How many table-log lines the board shows.
LOG_LINES = 8


@dataclass(frozen=True, slots=True)
class Style:
    """How to draw cards (ANSI colours for a tty, suit symbols or letters) and in which
    language to word the table log and refusals (see :mod:`clients.words`)."""

    color: bool = False
    symbols: bool = True
    lang: str = "en"


PLAIN = Style(color=False, symbols=True)


def tr(lang: str, key: str, **params: Any) -> str:
    """The catalogues' text ``key`` in ``lang`` (English's when the language is unknown),
    its ``{name}`` values filled from ``params``. The line mode's own wording is under
    ``term.line.``; where the web client or the full screen says the same, their key."""
    template = texts(lang)[key]
    return template.format_map(params) if params else template


def card_count(n: int | str, count: int, lang: str = "en") -> str:
    """``1 card``, ``3 cards`` (Czech: ``3 karty``, ``5 karet``); ``n`` is ``count`` as
    shown (padded, say)."""
    return tr(lang, f"term.line.cards_{plural(count, lang)}", n=n)


def card(code: str, style: Style = PLAIN) -> str:
    """One card, e.g. ``7♥`` (``7H`` without symbols), coloured when ``style.color``."""
    rank, suit = code[:-1], code[-1]
    text = rank + (SUIT_SYMBOLS.get(suit, suit) if style.symbols else suit)
    if not style.color:
        return text
    return f"{_RED if suit in RED_SUITS else _BLACK}{text}{_RESET}"


def cards(codes: Sequence[str], style: Style = PLAIN) -> str:
    return " ".join(card(c, style) for c in codes)


#: Hands are shown by suit, the colours alternating: ♠ ♥ ♣ ♦.
SUIT_ORDER = {"S": 0, "H": 1, "C": 2, "D": 3}


def sort_key(code: str) -> tuple[int, int]:
    """Hands are shown by suit (alternating colours), highest rank first within a suit."""
    return SUIT_ORDER.get(code[-1], 9), -RANKS.index(code[:-1]) if code[:-1] in RANKS else 0


def sorted_hand(hand: Iterable[str]) -> list[str]:
    """A hand as every screen shows it (the table, plain mode, results, replays)."""
    return sorted(hand, key=sort_key)


def action_label(text: str, style: Style = PLAIN) -> str:
    """An action's text form made readable: ``7H>N`` as ``7♥ → N``, ``N>E`` as
    ``pile N → E``, ``draw`` as ``draw a card``, ``end`` as ``end turn`` (in the style's
    language; the piles keep the names typed in actions)."""
    if text == "end":
        return tr(style.lang, "term.line.act_end")
    if text == "draw":
        return tr(style.lang, "term.line.act_draw")
    left, _, right = text.partition(">")
    if left in SIDES or left in CORNERS:
        return tr(style.lang, "term.line.act_pile", src=left, dst=right)
    return f"{card(left, style)} → {right}"


#: The bots' own names (``Bot 3``), which no person may take.
_BOT_NAME = re.compile(r"Bot \d+")


def seat_name(doc: Doc, seat: int | None, lang: str = "en", *, person: bool = False) -> str:
    """The display name of ``seat`` in ``doc`` (``Seat n`` when empty), as the table tells
    its people apart: ``Ana#4F7K`` where another seat's person goes by the same name (two
    new people are both "Player"; ``Player (seat 2)`` for a seat taken before the server
    gave a person a tag as they sat),
    and a bot that took over the seat of a person who left (the server keeps that person's
    name on it) as ``bot for Bea``: with ``person`` (a rating, which is that person's), as
    ``Bea``."""
    if seat is None:
        return "?"
    seats = doc["room"]["seats"]
    entry = seats[seat] if 0 <= seat < len(seats) else None
    if not entry:
        return texts(lang)["lobby.seat_n"].format(n=seat + 1)
    name = str(entry["name"])
    if entry.get("kind") == "bot":
        if person or _BOT_NAME.fullmatch(name):
            return name
        return texts(lang)["term.bot_for"].format(name=name)
    same = name.casefold()
    twins = [
        other
        for i, other in enumerate(seats)
        if i != seat
        and other
        and other.get("kind") != "bot"
        and str(other["name"]).casefold() == same
    ]
    if not twins:
        return name
    tag = entry.get("tag")
    if isinstance(tag, str) and tag:
        return who(name, tag)
    # A new identity the server has not kept yet has no tag: its seat tells it apart.
    return texts(lang)["term.name_seat"].format(name=name, n=seat + 1)


def plate(entry: Mapping[str, Any], width: int | None = None) -> str:
    """A seated person as every seat plate shows them: ``Ana#4F7K`` (a bot, or a person
    the server gave no tag yet, by name alone). Cut to ``width``, the tag kept whole: it is
    what tells two people of one name apart."""
    name = str(entry["name"])
    tag = entry.get("tag")
    suffix = f"#{tag}" if isinstance(tag, str) and tag and entry.get("kind") != "bot" else ""
    if width is not None and len(name) + len(suffix) > width:
        name = name[: max(1, width - len(suffix))]
    return (name + suffix)[:width] if width is not None else name + suffix


def _who(entry: Mapping[str, Any] | None, lobby: bool = False, lang: str = "en") -> str:
    if entry is None:
        return tr(lang, "term.line.seat_free")
    if entry["kind"] == "bot":
        if not entry["level"]:
            return tr(lang, "tui.bot")
        return tr(lang, "term.line.seat_bot", level=level_name(str(entry["level"]), lang))
    if entry["away"]:
        return tr(lang, "term.line.seat_away")
    text = tr(lang, "term.line.seat_connected" if entry["connected"] else "term.line.seat_offline")
    if lobby and "ready" in entry:
        text += ", " + tr(lang, "wait.ready" if entry["ready"] else "wait.not_ready")
    return text


def render_seats(doc: Doc, me: int | None, lang: str = "en") -> str:
    """One line per seat: turn marker, number, name, who plays it, cards and total."""
    room = doc["room"]
    game = doc.get("game")
    lines = [tr(lang, "wait.seats") + ":"]
    # The card counts in one column: as wide as the widest way of writing two digits.
    forms = ("one", "few", "other")
    width = max(len(tr(lang, f"term.line.cards_{form}", n="00")) for form in forms)
    for i, entry in enumerate(room["seats"]):
        mark = "▶" if game is not None and game["phase"] == "playing" and game["turn"] == i else " "
        name = plate(entry) if entry is not None else seat_name(doc, i, lang)
        tags = []
        if i == me:
            tags.append(tr(lang, "seat.you"))
        if room.get("host") == i and game is None:
            tags.append(tr(lang, "wait.host"))
        if game is not None and game["dealer"] == i:
            tags.append(tr(lang, "tui.dealer"))
        label = name + (f" ({', '.join(tags)})" if tags else "")
        if i == me and entry is not None and not entry.get("away"):
            # The viewer's own seat is connected: this very connection shows it. A patch
            # about an older connection of the seat (closed after a rejoin) may say not.
            entry = {**entry, "connected": True}
        who = _who(entry, lobby=game is None and room.get("host") != i, lang=lang)
        line = f" {mark} {i + 1}. {label:<24} {who:<26}"
        if game is not None:
            count = game["counts"][i]
            cards_text = card_count(f"{count:>2}", count, lang)
            total = tr(lang, "term.line.seat_total", n=f"{game['totals'][i]:>3}")
            line += f" {cards_text:<{width}}   {total}"
            if game.get("collected") is not None:  # corners scoring
                line += "   " + tr(lang, "term.line.seat_corners", n=game["collected"][i])
        lines.append(line.rstrip())
    return "\n".join(lines)


def render_pile(name: str, pile: Sequence[str], style: Style = PLAIN) -> str:
    """``N : base 8♣ … top 7♥ (2 cards)``; a one-card pile shows that card once."""
    head = f"{name:<2}:"
    lang = style.lang
    if not pile:
        empty = "term.line.corner_empty" if name in CORNERS else "term.line.side_empty"
        return f"{head} {tr(lang, empty)}"
    count = f"({card_count(len(pile), len(pile), lang)})"
    if len(pile) == 1:
        return f"{head} {card(pile[0], style)}  {count}"
    return f"{head} {card(pile[0], style)} … {card(pile[-1], style)}  {count}"


def render_table(game: Mapping[str, Any], style: Style = PLAIN) -> str:
    """Every pile's base, top and count, side piles beside corners, and the stock."""
    piles = game["piles"]
    lines = [tr(style.lang, "term.line.table")]
    for side, corner in zip(SIDES, CORNERS, strict=True):
        left = render_pile(side, piles[side], style)
        pad = 34 + (len(left) - _visible_len(left))
        lines.append(f"  {left:<{pad}} {render_pile(corner, piles[corner], style)}")
    lines.append("  " + tr(style.lang, "stock.label", n=game["stock"]))
    return "\n".join(lines)


def _visible_len(text: str) -> int:
    """Length without ANSI escape sequences."""
    length, i = 0, 0
    while i < len(text):
        if text[i] == "\x1b":
            end = text.find("m", i)
            i = end + 1 if end >= 0 else len(text)
            continue
        length += 1
        i += 1
    return length


def render_scores(doc: Doc, lang: str = "en") -> str:
    """Penalties hand by hand and the totals against the target, one column per seat."""
    game = doc["game"]
    seats = game["seats"]
    names = [seat_name(doc, i, lang)[:10] for i in range(seats)]
    width = max(6, *(len(n) for n in names))
    lines = [tr(lang, "term.line.scores", target=game["target"])]
    lines.append("  " + " " * 8 + "".join(f"{n:>{width + 2}}" for n in names))
    for no, row in enumerate(game["scores"], start=1):
        hand = tr(lang, "tui.hand_col", n=no)
        lines.append(f"  {hand:<8}" + "".join(f"{p:>{width + 2}}" for p in row))
    total = tr(lang, "tui.total_col")
    lines.append(f"  {total:<8}" + "".join(f"{t:>{width + 2}}" for t in game["totals"]))
    return "\n".join(lines)


def render_result(
    doc: Doc, style: Style = PLAIN, *, prompt: bool = True, me: int | None = None
) -> str:
    """The end of a hand (who went out, penalties, the hands left, now public) and of the
    match (the winners and the ratings, see :func:`rating_lines`); with ``prompt``, how the
    next hand comes after a hand."""
    game = doc["game"]
    lang = style.lang
    result = game.get("result")
    lines: list[str] = []
    if result is not None:
        if result["reason"] == "emptied" and result["out"] is not None:
            out = seat_name(doc, result["out"], lang)
            lines.append(tr(lang, "tui.result_out", n=game["hand_no"], name=out))
        else:
            lines.append(tr(lang, "tui.result_blocked", n=game["hand_no"]))
        for i, (penalty, left) in enumerate(zip(result["penalties"], result["left"], strict=True)):
            shown = cards(sorted_hand(left), style) if left else tr(lang, "tui.no_cards")
            name = seat_name(doc, i, lang)
            row = tr(lang, "term.line.result_row", name=name, p=penalty, cards=shown)
            lines.append(f"  {row}")
    if game["phase"] == "finished" and game.get("winners") is not None:
        winners = tr(lang, "result.and").join(seat_name(doc, i, lang) for i in game["winners"])
        lines.append(tr(lang, "tui.match_over", names=winners))
        lines.extend(place_lines(game, lambda i: seat_name(doc, i, lang), lang))
        lines.extend(rating_lines(doc, me, lang))
    elif game["phase"] == "hand_over" and prompt:
        lines.append(tr(lang, "term.line.next_hand"))
    return "\n".join(lines)


def rating_lines(doc: Doc, me: int | None = None, lang: str = "en") -> list[str]:
    """What a finished match did to the ratings, for viewer ``me``: why it changes none,
    or that the server is still rating it, or each rated person's change (yours first, with
    the provisional mark explained). Empty before the match is over."""
    room, game = doc["room"], doc.get("game")
    if game is None or game["phase"] != "finished" or "rated" not in room:
        return []
    if not room.get("rated"):
        return [describe_unrated(unrated_reason(room), lang)]
    ratings = room.get("ratings")
    if not ratings:
        return [rating_wait(lang)]
    lines: list[str] = []
    seats = len(room["seats"])
    mine = ratings[me] if me is not None and 0 <= me < len(ratings) else None
    if mine:
        lines.append(describe_your_change(mine, lang, seats))
        if mine.get("provisional"):
            lines.append(f"  {describe_provisional(int(mine['matches']), None, lang)}")
    for seat, change in enumerate(ratings):
        if change and seat != me:
            name = seat_name(doc, seat, lang, person=True)
            lines.append(f"  {name}: {describe_change(change, lang, seats)}")
    return lines


def render_actions(legal: Sequence[str], style: Style = PLAIN) -> str:
    """The numbered legal actions, several to a line."""
    items = [f"{n:>2}) {action_label(text, style)}" for n, text in enumerate(legal, start=1)]
    lines = []
    for start in range(0, len(items), 4):
        row = items[start : start + 4]
        lines.append("  " + "".join(_pad(item, 20) for item in row).rstrip())
    return "\n".join(lines)


def _pad(text: str, width: int) -> str:
    return text + " " * max(1, width - _visible_len(text))


def seat_names(doc: Doc | None, lang: str = "en") -> Callable[[int | None], str]:
    """:func:`seat_name` for the seats of ``doc`` (``Seat n`` for all when there is none)."""
    if doc is None:
        seat_n = texts(lang)["lobby.seat_n"]
        return lambda seat: "?" if seat is None else seat_n.format(n=seat + 1)
    return lambda seat: seat_name(doc, seat, lang)


def describe(line: Mapping[str, Any], doc: Doc | None, style: Style = PLAIN) -> str:
    """One table-log event in words, in ``style``'s language."""
    return describe_event(line, seat_names(doc, style.lang), style.lang, lambda c: card(c, style))


def render_log(
    log: Sequence[Mapping[str, Any]],
    doc: Doc | None = None,
    style: Style = PLAIN,
    limit: int = LOG_LINES,
) -> str:
    """The last ``limit`` table-log events, worded."""
    shown = list(log)[-limit:]
    return "\n".join(f"  · {describe(line, doc, style)}" for line in shown)


def chat_line(frame: Mapping[str, Any]) -> str:
    """A chat message as one line: ``[Ana] hello``."""
    return f"[{frame['name']}] {frame['text']}"


def log_line(line: Mapping[str, Any], doc: Doc | None = None, style: Style = PLAIN) -> str:
    return f"· {describe(line, doc, style)}"


def error_line(frame: Mapping[str, Any], doc: Doc | None = None, style: Style = PLAIN) -> str:
    """A refusal worded from its code and parameters: ``! 6♠ does not fit ... (does_not_fit)``."""
    words = describe_error(frame, style.lang, seat_names(doc, style.lang), lambda c: card(c, style))
    return f"! {words} ({frame['code']})"


def turn_line(doc: Doc, me: int | None, lang: str = "en") -> str:
    """Whose turn it is (with the opening refill's window while it is open), or what the
    room is waiting for."""
    game = doc.get("game")
    room = doc["room"]
    seats = room["seats"]
    mine = seats[me] if me is not None and 0 <= me < len(seats) else None
    if game is None:
        free = sum(1 for s in seats if s is None)
        if mine is not None and room.get("host") == me:
            unready = [
                str(s["name"])
                for i, s in enumerate(seats)
                if s is not None and s["kind"] == "human" and i != me and s.get("ready") is False
            ]
            text = tr(lang, f"term.line.host_wait_{plural(free, lang)}", n=free)
            if unready:
                text += " " + tr(lang, "wait.waiting_for", names=", ".join(unready))
            return text
        host = room.get("host")
        named = seat_name(doc, host, lang) if host is not None else tr(lang, "term.line.the_host")
        text = tr(lang, "term.line.waiting_host", host=named)
        if mine is not None and mine.get("ready") is False:
            text += " " + tr(lang, "term.line.say_ready")
        return text
    if mine is not None and mine["away"] and game["phase"] != "finished":
        away = tr(lang, "term.line.away")
    else:
        away = ""
    if game["phase"] == "finished":
        if room.get("daily") is not None and me is not None:
            return tr(lang, "term.line.daily_over")
        if "rematch" not in room or me is None:
            return ""
        votes = [seat_name(doc, i, lang) for i in room["rematch"]]
        text = tr(lang, "term.line.rematch")
        return text + (" " + tr(lang, "tui.votes", names=", ".join(votes)) if votes else "")
    if game["phase"] != "playing":
        return away
    if game["turn"] == me:
        text = tr(lang, "term.line.your_turn")
        if game["moved"]:
            text += " " + tr(lang, "term.line.moved")
    else:
        text = tr(lang, "tui.turn_of", name=seat_name(doc, game["turn"], lang))
    refill = refill_note(game, lang)
    if refill is not None:
        text = f"{text} {refill}"
    return f"{text} {away}" if away else text


def daily_label(doc: Doc, lang: str = "en") -> str | None:
    """``Daily deal (ranked)`` or ``Daily deal (practice)`` in a daily-deal room, else None."""
    daily = doc["room"].get("daily")
    if not daily:
        return None
    return tr(lang, "tui.daily_ranked" if daily.get("ranked") else "tui.daily_practice")


def phase_name(phase: str, lang: str = "en") -> str:
    """A room's phase as the board's head line says it: ``lobby``, ``playing``..."""
    words = texts(lang)
    return words.get(f"term.line.phase.{phase}") or words.get(f"phase.{phase}", phase)


def render(
    doc: Doc,
    me: int | None = None,
    *,
    log: Sequence[Mapping[str, Any]] = (),
    style: Style = PLAIN,
) -> str:
    """The whole screen for viewer ``me`` (None: a spectator): room, seats, table, hand,
    scores, the last log lines and, on the viewer's turn, the numbered legal actions."""
    room = doc["room"]
    game = doc.get("game")
    lang = style.lang
    phase = phase_name(game["phase"] if game is not None else room["phase"], lang)
    head = f"{tr(lang, 'matches.room', code=room['code'])} · {phase}"
    daily = daily_label(doc, lang)
    if daily is not None:
        head = f"{daily} · {head}"
    if game is not None:
        head += " · " + tr(lang, "tui.hand_no", n=game["hand_no"])
    parts = [head + " · " + options_summary(room["options"], lang), render_seats(doc, me, lang)]
    if game is not None:
        parts.append(render_table(game, style))
        if "hand" in game:
            parts.append(hand_line(game["hand"], style))
        parts.append(render_scores(doc, lang))
        if game.get("result") is not None or game["phase"] == "finished":
            parts.append(render_result(doc, style, me=me))
    if log:
        parts.append(tr(lang, "term.line.log") + "\n" + render_log(log, doc, style))
    status = turn_line(doc, me, lang)
    if status:
        parts.append(status)
    legal = game.get("legal") if game is not None else None
    if legal:
        parts.append(actions_text(legal, style))
    return "\n".join(parts)


def hand_line(hand: Sequence[str], style: Style = PLAIN) -> str:
    """``Your hand (3): 7♥ 5♥ 2♠``, by suit then rank."""
    shown = cards(sorted_hand(hand), style) if hand else tr(style.lang, "term.line.hand_empty")
    return f"{tr(style.lang, 'tui.your_hand', n=len(hand))}: {shown}"


def actions_text(legal: Sequence[str], style: Style = PLAIN) -> str:
    """The numbered legal actions, under a line that says how to choose one."""
    return tr(style.lang, "term.line.actions") + "\n" + render_actions(legal, style)


def render_moves(doc: Doc, style: Style = PLAIN) -> str:
    """What changed for the viewer during their own turn, after one of their moves: the
    hand and the legal actions (the move itself is in the log; ``look`` prints the
    whole board)."""
    game = doc.get("game") or {}
    parts = []
    if "hand" in game:
        parts.append(hand_line(game["hand"], style))
    if game.get("legal"):
        parts.append(actions_text(game["legal"], style))
    return "\n".join(parts)


def help_text(lang: str = "en") -> str:
    """The commands line mode reads (``help``), in ``lang``: the words typed stay English."""
    return tr(lang, "term.line.help")


#: The commands, in English (:func:`help_text` in another language).
HELP = help_text()


__all__ = [
    "HELP",
    "PLAIN",
    "Style",
    "action_label",
    "card",
    "cards",
    "chat_line",
    "daily_label",
    "describe",
    "error_line",
    "help_text",
    "log_line",
    "phase_name",
    "rating_lines",
    "render",
    "render_actions",
    "render_log",
    "render_pile",
    "render_result",
    "render_scores",
    "render_seats",
    "render_table",
    "seat_name",
    "seat_names",
    "tr",
    "turn_line",
]
