"""What the middle of the screen shows when there is no table to play on: the waiting
room before the start, and the result of a hand or of the match. Pure text from the
viewer's document."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

from rich.text import Text

from clients.terminal.coach import TurnLines, coach_title
from clients.terminal.render import plate, rating_lines, seat_name, sorted_hand
from clients.terminal.variants import standings
from clients.words import describe_event
from protocol.options_table import summary_words

from .board import seat_tags
from .look import Look
from .text import t

Doc = Mapping[str, Any]


def options_line(doc: Doc, lang: str) -> str:
    """The room's variants in a few words: target, draw, kings first, timer, fast bots."""
    words = summary_words(doc["room"]["options"])
    return " · ".join(t(lang, key, **params) for key, params in words)


def describe(event: Mapping[str, Any], doc: Doc | None, look: Look) -> str:
    """A table-log event in the viewer's language, cards drawn as on the table."""

    def names(seat: int | None) -> str:
        return seat_name(doc, seat, look.lang) if doc is not None else f"Seat {(seat or 0) + 1}"

    return describe_event(event, names, look.lang, look.card)


def waiting_text(doc: Doc, me: int | None, look: Look, online: bool) -> Text:
    """The waiting room: the code to share, the options, every seat with who sits there
    and whether they are ready, and the keys the viewer may press (host or guest)."""
    lang = look.lang
    room = doc["room"]
    out = Text()
    out.append(t(lang, "wait_title", code=room["code"]) + "\n", "bold")
    extra = [options_line(doc, lang)]
    if room.get("public"):
        extra.append(t(lang, "summary.public"))
    if room.get("locked"):
        extra.append(t(lang, "locked"))
    out.append(" · ".join(extra) + "\n\n")
    for i, entry in enumerate(room["seats"]):
        name = plate(entry, 20) if entry else t(lang, "free")
        tags = ", ".join(seat_tags(doc, i, me, lang, online))
        out.append(f" {i + 1}  {name:<16} ", "bold" if i == me else "")
        out.append(f"{tags}\n", "italic")
    out.append("\n")
    if me is None:
        out.append(t(lang, "wait_watch") + "\n", "dim")
    elif room.get("host") == me:
        out.append(t(lang, "wait_host") + "\n" + t(lang, "wait_host2") + "\n", "dim")
    else:
        host = seat_name(doc, room.get("host"), lang)
        out.append(t(lang, "wait_guest", host=host) + "\n", "dim")
    out.append(t(lang, "wait_share", code=room["code"]), "dim")
    return out


def coach_text(state: str, turns: list[TurnLines], look: Look, width: int = 0) -> Text:
    """The coach's section of the match's result: the review's state (``pending``,
    ``failed``), or the heading (as many turns as there are), the keys that replay a turn
    and each costly turn numbered, its lines indented (wrapped to ``width`` with the indent
    kept, when given); only ``coach.none`` when the coach found nothing."""
    lang = look.lang
    out = Text()
    if state in ("pending", "failed"):
        note = _wrapped(t(lang, f"coach.{state}"), width, "")
        out.append(note + "\n", "dim" if state == "pending" else "")
        return out
    if not turns:
        out.append(_wrapped(t(lang, "coach.none"), width, "") + "\n")
        return out
    out.append(_wrapped(coach_title(len(turns), lang), width, "") + "\n", "bold underline")
    keys = "coach_key" if len(turns) == 1 else "coach_keys"
    out.append(_wrapped(look.text(t(lang, keys, n=len(turns))), width, "") + "\n", "dim")
    for number, turn in enumerate(turns, start=1):
        _costly_turn(out, number, turn, look, width)
    return out


def _costly_turn(
    out: Text,
    number: int,
    turn: TurnLines,
    look: Look,
    width: int,
    lead: str = "",
    *,
    short: bool = False,
    hint: str = "",
) -> None:
    """Append costly turn ``number``: its key and its first line, then its lines indented
    (after ``lead``, a mark of one column or none), all wrapped to ``width``; ``short``: the
    better line alone after the first line. ``hint`` (dim, a key to press) follows the first
    line, on it when it fits: where a panel scrolled to the turn shows it."""
    out.append(lead)
    out.append(f"{number}", "bold reverse")
    taken = len(lead) + 1
    indent = " " * (taken + 1)
    head = " " + look.text(turn.head)
    if short:
        head += " · " + look.text(turn.better)
    head = _wrapped(head, width, indent, taken)
    out.append(head, "bold")
    if hint:
        last = len(head.rsplit("\n", 1)[-1]) + (taken if "\n" not in head else 0)
        shown = look.text(hint)
        if width <= 0 or last + 3 + len(shown) <= width:
            out.append("   " + shown, "dim")
        else:
            out.append("\n" + _wrapped(indent + shown, width, indent), "dim")
    out.append("\n")
    if short:
        return
    for line in turn.lines():
        out.append(_wrapped(indent + look.text(line), width, indent) + "\n")


def replay_coach_text(
    state: str,
    turns: list[TurnLines],
    look: Look,
    width: int,
    at: int,
    compact: bool,
    hint: str = "",
) -> Text:
    """The coach's turns beside a replay (its title is the panel's): the review's state
    (``pending``, ``failed``), none found, or each costly turn numbered by its key, the one
    the replay is at (step ``at``) marked, with ``hint`` beside it. ``compact`` (under the
    table of a narrow terminal): each turn in short (its first line and the better line)
    but the marked one whole; else the keys and each turn whole. Every line is wrapped to
    ``width``, never cut."""
    lang = look.lang
    if state in ("pending", "failed") or not turns:
        note = t(lang, f"coach.{state}" if state in ("pending", "failed") else "coach.none")
        return Text(_wrapped(note, width, ""), "dim" if state == "pending" else "")
    mark = "▶" if look.symbols else ">"
    out = Text()
    if not compact:
        keys = "replay_coach_key" if len(turns) == 1 else "replay_coach_keys"
        out.append(_wrapped(look.text(t(lang, keys, n=len(turns))), width, "") + "\n", "dim")
    for number, turn in enumerate(turns, start=1):
        here = turn.step == at
        lead = mark if here else " "
        shown = hint if here else ""
        _costly_turn(out, number, turn, look, width, lead, short=compact and not here, hint=shown)
    out.rstrip()
    return out


def _wrapped(line: str, width: int, indent: str, taken: int = 0) -> str:
    """``line`` wrapped to ``width`` (none when 0), its later lines indented by ``indent``;
    ``taken`` columns of its first line are already used. A number keeps its per cent sign
    (``40 %``) on its line."""
    if width <= 0 or len(line) + taken <= width:
        return line
    wrapper = textwrap.TextWrapper(
        width=width, subsequent_indent=indent, break_on_hyphens=False, drop_whitespace=True
    )
    first, *rest = wrapper.wrap("x" * taken + line.replace(" %", "\u00a0%"))
    return "\n".join([first[taken:], *rest])


def result_text(doc: Doc, me: int | None, look: Look, coach: Text | None = None) -> Text:
    """The end of a hand (who went out, each penalty with the cards left, now public) and
    the scores hand by hand. At the end of the match the winners, the ratings (yours first,
    or why the match changes none) and the rematch keys come first: the hand's details
    below are what a short terminal cuts. The ``coach``'s section comes last, below the
    totals (the panel scrolls down to it: the keys line says so)."""
    lang = look.lang
    room, game = doc["room"], doc["game"]
    result = game.get("result")
    out = Text()
    if game["phase"] == "finished" and game.get("winners") is not None:
        winners = t(lang, "result.and").join(seat_name(doc, i, lang) for i in game["winners"])
        out.append(t(lang, "match_over", names=winners) + "\n", "bold")
        for line in rating_lines(doc, me, lang):
            out.append(line.strip() + "\n", "" if line.startswith(" ") else "bold")
        if me is not None and room.get("daily"):
            out.append(t(lang, "daily_over") + "\n", "dim")
        elif me is not None:
            out.append(t(lang, "rematch_keys") + "\n", "dim")
            votes = [seat_name(doc, i, lang) for i in room.get("rematch") or []]
            if votes:
                out.append(t(lang, "votes", names=", ".join(votes)) + "\n", "dim")
        out.append("\n")
    if result is not None:
        if result["reason"] == "emptied" and result["out"] is not None:
            head = t(
                lang, "result_out", n=game["hand_no"], name=seat_name(doc, result["out"], lang)
            )
        else:
            head = t(lang, "result_blocked", n=game["hand_no"])
        out.append(head + "\n", "bold")
        for i, (penalty, left) in enumerate(zip(result["penalties"], result["left"], strict=True)):
            out.append(
                " " + t(lang, "result_row", name=seat_name(doc, i, lang)[:14], p=penalty) + "  "
            )
            if left:
                out.append_text(look.cards(sorted_hand(left)))
            else:
                out.append(t(lang, "no_cards"), "dim")
            out.append("\n")
    ranked = standings(game)
    if ranked:  # corners scoring: one hand, placed by corners collected, then penalty
        out.append("\n" + t(lang, "result.by_corners") + "\n", "bold")
        for row in ranked:
            name = seat_name(doc, row.seat, lang)[:16]
            line = t(lang, "place_row", place=row.place, name=name, n=row.corners, p=row.penalty)
            out.append(" " + line + "\n", "bold" if row.place == 1 else "")
        return _with_coach(out, coach)
    out.append("\n" + t(lang, "totals", target=game["target"]) + "\n", "bold")
    seats = game["seats"]
    # Four columns still fit the narrowest middle (42 characters at 80 columns).
    width = 9 if seats < 4 else 8
    names = [seat_name(doc, i, lang)[: width - 1] for i in range(seats)]
    out.append(f" {'':<8}" + "".join(f"{n:>{width}}" for n in names) + "\n", "dim")
    for no, row in enumerate(game["scores"][-4:], start=max(1, len(game["scores"]) - 3)):
        label = t(lang, "hand_col", n=no)
        out.append(f" {label:<8}" + "".join(f"{p:>{width}}" for p in row) + "\n")
    total = t(lang, "total_col")
    out.append(f" {total:<8}" + "".join(f"{p:>{width}}" for p in game["totals"]), "bold")
    if game["phase"] == "hand_over" and me is not None:
        out.append("\n\n" + t(lang, "next_hand"), "dim")
    return _with_coach(out, coach)


def _with_coach(out: Text, coach: Text | None) -> Text:
    if coach is not None:
        out.append("\n\n")
        out.append_text(coach)
        out.rstrip()
    return out


__all__ = [
    "coach_text",
    "describe",
    "options_line",
    "replay_coach_text",
    "result_text",
    "seat_name",
    "waiting_text",
]
