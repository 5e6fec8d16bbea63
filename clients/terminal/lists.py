"""The boards and a person's finished matches as text, for the terminal's line mode and the
full screen alike: :func:`render_leaderboard`, :func:`render_matches`, :func:`match_rating`."""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import Any

from clients.words import describe_unrated, describe_your_change, who


def render_leaderboard(reply: Mapping[str, Any], me: str | None = None) -> str:
    """A ``leaderboard`` reply as a table, best first, each person as ``Name#TAG``; the
    row of player id ``me`` is marked with ``▶`` and ``(you)``.

    Daily rows are ``{player, name, tag, penalty, hands}``; all-time rows are
    ``{player, name, tag, won, played, avg_penalty}``; rating rows (the top players, the
    established ones only) are ``{player, name, tag, rating, matches}``.
    """
    board = reply["board"]
    if board == "daily":
        title = f"Daily deal leaderboard, {reply.get('day')}"
    else:
        title = "Top players (by rating)" if board == "rating" else "All-time leaderboard"
    entries = list(reply["entries"])
    if not entries:
        if board == "daily":
            empty = "Nobody has finished today's daily deal yet."
        elif board == "rating":
            empty = "No established players yet."
        else:
            empty = "No matches yet."
        return f"{title}:\n  {empty}"
    if board == "daily":
        header = f"    {'#':>3}  {'name':<24} {'penalty':>7} {'hands':>5}"
    elif board == "rating":
        header = f"    {'#':>3}  {'name':<24} {'rating':>7} {'matches':>7}"
    else:
        header = f"    {'#':>3}  {'name':<24} {'won':>5} {'played':>6} {'avg penalty':>11}"
    lines = [f"{title}:", header]
    for rank, row in enumerate(entries, start=1):
        mine = me is not None and row.get("player") == me
        name = who(row.get("name", "?"), row.get("tag"))[:24]
        if board == "daily":
            figures = f"{row['penalty']:>7} {row['hands']:>5}"
        elif board == "rating":
            figures = f"{row['rating']:>7} {row['matches']:>7}"
        else:
            figures = f"{row['won']:>5} {row['played']:>6} {float(row['avg_penalty']):>11.1f}"
        line = f"  {'▶' if mine else ' '} {rank:>3}  {name:<24} {figures}"
        lines.append(line + ("  (you)" if mine else ""))
    if me is not None and not any(row.get("player") == me for row in entries):
        lines.append("  (you are not on this board)")
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
        return "You have no finished matches yet."
    lines = ["Your finished matches (newest first):"]
    for summary in matches:
        seats = summary.get("seats") or []
        totals = summary.get("totals") or []
        winners = set(summary.get("winners") or [])
        players = []
        for i, entry in enumerate(seats):
            name = who(entry["name"], entry.get("tag")) if entry else f"Seat {i + 1}"
            total = totals[i] if i < len(totals) else "?"
            players.append(f"{name}{'*' if i in winners else ''} {total}")
        text = f"  {summary.get('id')}  {_when(summary.get('finished_at'))}  {', '.join(players)}"
        daily = summary.get("daily")
        if daily:
            text += f"  [daily {daily.get('day')}{', ranked' if daily.get('ranked') else ''}]"
            if today is not None and str(daily.get("day")) >= today:
                text += " (replay once the day is over)"
        lines.append(text)
        rating = match_rating(summary, lang)
        if rating:
            lines.append(f"      {rating}")
    if replay_url is not None:
        lines.append(f"Replay one with: kings-corner replay ID --url {replay_url}")
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
