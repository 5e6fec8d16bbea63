"""The boards and a person's finished matches as text, for the terminal's line mode and the
full screen alike: :func:`render_leaderboard`, :func:`render_matches`, :func:`match_rating`."""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import Any

from clients.words import describe_unrated, describe_your_change, who

from .render import tr


def render_leaderboard(reply: Mapping[str, Any], me: str | None = None, lang: str = "en") -> str:
    """A ``leaderboard`` reply as a table, best first, each person as ``Name#TAG``; the
    row of player id ``me`` is marked with ``▶`` and ``(you)`` (in ``lang``).

    Daily rows are ``{player, name, tag, penalty, hands}``; all-time rows are
    ``{player, name, tag, won, played, avg_penalty}``; rating rows (the top players, the
    established ones only) are ``{player, name, tag, rating, matches}``.
    """
    board = reply["board"]
    if board == "daily":
        title = tr(lang, "term.line.board_daily", day=reply.get("day"))
    elif board == "rating":
        title = tr(lang, "term.line.board_rating")
    else:
        title = tr(lang, "tui.board_alltime")
    entries = list(reply["entries"])
    if not entries:
        if board == "daily":
            empty = tr(lang, "boards.empty_daily")
        elif board == "rating":
            empty = tr(lang, "term.line.board_empty_rating")
        else:
            empty = tr(lang, "term.line.board_empty")
        return f"{title}:\n  {empty}"
    # Each column: the row's field, the key of its head, its least width.
    columns: tuple[tuple[str, str, int], ...]
    if board == "daily":
        columns = (("penalty", "tui.col_penalty", 7), ("hands", "tui.col_hands", 5))
    elif board == "rating":
        columns = (("rating", "tui.col_rating", 7), ("matches", "tui.col_matches", 7))
    else:
        columns = (
            ("won", "tui.col_won", 5),
            ("played", "tui.col_played", 6),
            ("avg_penalty", "term.line.col_avg", 11),
        )
    heads = [tr(lang, key) for _, key, _ in columns]
    # Each column as wide as its figures or its head in this language, whichever is wider.
    widths = [max(least, len(head)) for (_, _, least), head in zip(columns, heads, strict=True)]
    name = tr(lang, "tui.col_name")
    header = f"    {'#':>3}  {name:<24} " + " ".join(
        f"{head:>{width}}" for head, width in zip(heads, widths, strict=True)
    )
    lines = [f"{title}:", header]
    you = f"  ({tr(lang, 'boards.you')})"
    for rank, row in enumerate(entries, start=1):
        mine = me is not None and row.get("player") == me
        person = who(row.get("name", "?"), row.get("tag"))[:24]
        cells = [
            f"{float(row[field]):.1f}" if field == "avg_penalty" else str(row[field])
            for field, _, _ in columns
        ]
        figures = " ".join(f"{cell:>{width}}" for cell, width in zip(cells, widths, strict=True))
        line = f"  {'▶' if mine else ' '} {rank:>3}  {person:<24} {figures}"
        lines.append(line + (you if mine else ""))
    if me is not None and not any(row.get("player") == me for row in entries):
        lines.append("  " + tr(lang, "term.line.board_absent"))
    return "\n".join(lines)


def _when(stamp: object) -> str:
    if not isinstance(stamp, int | float):
        return "?"
    moment = datetime.datetime.fromtimestamp(stamp, datetime.UTC)
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def render_matches(
    matches: Sequence[Mapping[str, Any]],
    replay_url: str | None = None,
    today: str | None = None,
    lang: str = "en",
) -> str:
    """A ``matches`` reply: one finished match per line, newest first, with its id, when it
    ended, the seats with their totals (winners starred) and a daily-deal mark, and under it
    what the match did to your rating (or why nothing). With ``replay_url``, how to replay
    one; a daily deal of ``today`` (or later) is marked as replayable only once the day is
    over."""
    if not matches:
        return tr(lang, "tui.matches_none")
    lines = [tr(lang, "term.line.matches_title")]
    for summary in matches:
        seats = summary.get("seats") or []
        totals = summary.get("totals") or []
        winners = set(summary.get("winners") or [])
        players = []
        for i, entry in enumerate(seats):
            name = (
                who(entry["name"], entry.get("tag")) if entry else tr(lang, "lobby.seat_n", n=i + 1)
            )
            total = totals[i] if i < len(totals) else "?"
            players.append(f"{name}{'*' if i in winners else ''} {total}")
        text = f"  {summary.get('id')}  {_when(summary.get('finished_at'))}  {', '.join(players)}"
        daily = summary.get("daily")
        if daily:
            key = "term.line.match_daily_ranked" if daily.get("ranked") else "term.line.match_daily"
            text += "  " + tr(lang, key, day=daily.get("day"))
            if today is not None and str(daily.get("day")) >= today:
                text += " " + tr(lang, "term.line.replay_later")
        lines.append(text)
        rating = match_rating(summary, lang)
        if rating:
            lines.append(f"      {rating}")
    if replay_url is not None:
        lines.append(tr(lang, "term.line.replay_how", url=replay_url))
    return "\n".join(lines)


def match_rating(summary: Mapping[str, Any], lang: str = "en") -> str:
    """What a finished match (a ``matches`` row) did to your rating, as the match's end said
    it, or why it changed none; "" for a match from before the server said either."""
    ratings = summary.get("ratings")
    seat = summary.get("seat")
    mine = None
    if isinstance(ratings, Sequence) and isinstance(seat, int) and 0 <= seat < len(ratings):
        mine = ratings[seat]
    if mine:
        return describe_your_change(mine, lang)
    reason = summary.get("unrated")
    if isinstance(reason, str) and reason:
        return describe_unrated(reason, lang)
    return ""
