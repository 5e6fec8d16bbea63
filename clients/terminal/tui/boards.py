"""The leaderboards (today's daily deal, all time) and your finished matches, each on a
screen of its own; Enter on a match opens its replay."""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Protocol, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from clients.net import GameClient, ServerError
from clients.terminal.lists import match_rating
from clients.words import describe_error, who

from .look import Look, plain_borders
from .text import t

#: The boards in the order Tab goes through them.
BOARDS = ("daily", "alltime", "rating")


def board_text(reply: Mapping[str, Any], me: str | None, lang: str) -> Text:
    """A ``leaderboard`` reply as a table, best first, each person as ``Name#TAG``, the
    viewer's row marked ``▶``."""
    board = reply["board"]
    out = Text()
    if board == "daily":
        title = t(lang, "board_daily", day=reply.get("day"))
    else:
        title = t(lang, "board_rating" if board == "rating" else "board_alltime")
    out.append(title + "\n\n", "bold")
    entries = list(reply.get("entries") or [])
    if not entries:
        out.append(t(lang, "board_empty"), "dim")
        return out
    name = t(lang, "col_name")
    if board == "daily":
        head = f"    {'#':>3}  {name:<24} {t(lang, 'col_penalty'):>8} {t(lang, 'col_hands'):>6}"
    elif board == "rating":
        head = f"    {'#':>3}  {name:<24} {t(lang, 'col_rating'):>9} {t(lang, 'col_matches'):>9}"
    else:
        head = (
            f"    {'#':>3}  {name:<24} {t(lang, 'col_won'):>7} {t(lang, 'col_played'):>7}"
            f" {t(lang, 'col_avg'):>6}"
        )
    out.append(head + "\n", "dim")
    for rank, row in enumerate(entries, start=1):
        mine = me is not None and row.get("player") == me
        person = who(row.get("name", "?"), row.get("tag"))[:24]
        if board == "daily":
            figures = f"{row['penalty']:>8} {row['hands']:>6}"
        elif board == "rating":
            figures = f"{row['rating']:>9} {row['matches']:>9}"
        else:
            figures = f"{row['won']:>7} {row['played']:>7} {float(row['avg_penalty']):>6.1f}"
        line = f"  {'▶' if mine else ' '} {rank:>3}  {person:<24} {figures}\n"
        out.append(line, "bold" if mine else "")
    return out


def match_label(summary: Mapping[str, Any], lang: str = "en") -> str:
    """One finished match: id, when, the seats with totals (winners starred); under it what
    the match did to your rating, or why nothing."""
    seats = summary.get("seats") or []
    totals = summary.get("totals") or []
    winners = set(summary.get("winners") or [])
    players = []
    for i, entry in enumerate(seats):
        name = who(entry["name"], entry.get("tag")) if entry else f"Seat {i + 1}"
        total = totals[i] if i < len(totals) else "?"
        players.append(f"{name}{'*' if i in winners else ''} {total}")
    stamp = summary.get("finished_at")
    when = ""
    if isinstance(stamp, int | float):
        when = datetime.datetime.fromtimestamp(stamp, datetime.UTC).strftime("%m-%d %H:%M")
    daily = summary.get("daily")
    mark = f" [daily {daily.get('day')}]" if daily else ""
    line = f"{summary.get('id')}  {when}  {', '.join(players)}{mark}"
    rating = match_rating(summary, lang)
    return f"{line}\n    {rating}" if rating else line


class Opener(Protocol):
    def open_replay(self, match_id: str) -> None: ...


class BoardsScreen(Screen[None]):
    """Today's daily-deal board; Tab goes on to the all-time one and the top players (by
    rating), ``t`` straight to the top players, Esc goes back."""

    CSS = """
    BoardsScreen { padding: 0 1; }
    #board { height: 1fr; }
    #keys { height: 1; color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", show=False),
        Binding("tab", "switch", show=False),
        Binding("t", "top", show=False),
    ]

    def __init__(self, client: GameClient, look: Look, board: str = "daily") -> None:
        super().__init__()
        self.client = client
        self.look = look
        self.board = board

    def compose(self) -> ComposeResult:
        yield Static(id="board")
        yield Static(t(self.look.lang, "board_keys"), id="keys")

    async def on_mount(self) -> None:
        plain_borders(self, self.look)
        await self.load()

    async def load(self) -> None:
        board = self.query_one("#board", Static)
        try:
            reply = await self.client.request(
                {"type": "leaderboard", "board": self.board}, "leaderboard"
            )
        except ServerError as exc:
            board.update(describe_error(exc.frame, self.look.lang))
            return
        except (TimeoutError, ConnectionError) as exc:
            board.update(str(exc))
            return
        board.update(board_text(reply, self.client.player_id, self.look.lang))

    async def action_switch(self) -> None:
        self.board = BOARDS[(BOARDS.index(self.board) + 1) % len(BOARDS)]
        await self.load()

    async def action_top(self) -> None:
        self.board = "rating"
        await self.load()

    def action_back(self) -> None:
        self.dismiss()


class MatchesScreen(Screen[None]):
    """Your finished matches, newest first: Enter replays the one chosen."""

    CSS = """
    MatchesScreen { padding: 0 1; }
    #title { height: 1; text-style: bold; }
    #matches { height: 1fr; }
    #keys { height: 1; color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", show=False)]

    def __init__(self, client: GameClient, look: Look) -> None:
        super().__init__()
        self.client = client
        self.look = look
        self.matches: Sequence[Mapping[str, Any]] = ()

    def compose(self) -> ComposeResult:
        yield Static(t(self.look.lang, "matches_title"), id="title")
        yield OptionList(id="matches")
        yield Static(t(self.look.lang, "matches_keys"), id="keys")

    async def on_mount(self) -> None:
        plain_borders(self, self.look)
        listing = self.query_one("#matches", OptionList)
        try:
            reply = await self.client.request({"type": "my_matches"}, "matches")
        except (ServerError, TimeoutError, ConnectionError) as exc:
            listing.add_option(Option(str(exc), disabled=True))
            return
        self.matches = list(reply.get("matches") or [])
        if not self.matches:
            listing.add_option(Option(t(self.look.lang, "matches_none"), disabled=True))
        for summary in self.matches:
            label = match_label(summary, self.look.lang)
            listing.add_option(Option(label, id=str(summary.get("id"))))
        if self.matches:
            listing.highlighted = 0
        listing.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            cast(Opener, self.app).open_replay(event.option.id)

    def action_back(self) -> None:
        self.dismiss()


__all__ = ["BOARDS", "BoardsScreen", "MatchesScreen", "board_text", "match_label"]
