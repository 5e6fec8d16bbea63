"""Ratings in the terminal clients, as the server decides them: each person's place among the
seats counted for them (or why none), the provisional mark, why a match is not rated, and
your rating with the rated matches so far. Documents of every shape are fed to the line
mode and the full screen; then a real rated match against three hard bots, end to end, in
both."""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from textual.app import App
from textual.pilot import Pilot

from clients.net import GameClient
from clients.terminal.app import Entry, TerminalClient
from clients.terminal.lists import match_rating, render_matches
from clients.terminal.render import rating_lines, render
from clients.terminal.tokens import TokenFile
from clients.terminal.tui.app import KingsCornerApp
from clients.terminal.tui.boards import MatchesScreen, match_label
from clients.terminal.tui.game import GameScreen
from clients.terminal.tui.look import Look
from clients.words import (
    describe_change,
    describe_matches,
    describe_profile,
    describe_unrated,
    number,
    who,
)
from server.app import GameServer
from server.ratings import MIN_MATCHES
from tests.clients.tui_driver import ARTIFACTS, save, server, shows, until

__all__ = ["server"]  # the fixture, imported to override the shared one

NBSP = "\u00a0"
PLACED: dict[str, Any] = {
    "before": 1000,
    "after": 1012,
    "matches": 3,
    "provisional": True,
    "place": 2,
    "of": 4,
    "reason": "placed",
}
SETTLED = {**PLACED, "before": 1034, "after": 1046, "matches": 12, "provisional": False}
ABANDONED = {**SETTLED, "after": 999, "place": 4, "reason": "abandoned"}
NOBODY = {**PLACED, "after": 1000, "matches": 0, "place": 1, "of": 1, "reason": "no_opponents"}


# --- the words --------------------------------------------------------------------------


def test_each_change_in_three_languages() -> None:
    assert describe_change(PLACED) == "2nd of 4: +12 (1,000 → 1,012?)"
    assert describe_change(SETTLED) == "2nd of 4: +12 (1,034 → 1,046)"
    assert describe_change(ABANDONED) == "Left the match: last of 4: \u221235 (1,034 → 999)"
    assert describe_change(NOBODY) == "No opponent counted: \u00b10"
    assert describe_change({"before": 1000, "after": 1034, "matches": 1}) == ("+34 (1,000 → 1,034)")
    for place, nth in ((1, "1st"), (3, "3rd"), (4, "4th")):
        assert describe_change({**SETTLED, "place": place}).startswith(f"{nth} of 4: ")
    assert describe_change(PLACED, "es") == "2.º de 4: +12 (1000 → 1012?)"
    assert describe_change(ABANDONED, "es") == "Abandono: último de 4: \u221235 (1034 → 999)"
    assert describe_change(SETTLED, "cs") == f"2. ze 4: +12 (1{NBSP}034 → 1{NBSP}046)"
    assert describe_change(NOBODY, "cs") == "Nezapočítal se žádný soupeř: \u00b10"
    assert describe_unrated("aborted") == (
        "Not rated: someone left before the match really began, so it counts for nobody."
    )
    assert describe_unrated("daily", "es") == (
        "Reparto del día: no puntúa (tiene su propia clasificación)."
    )
    assert describe_unrated("something_new") == "This match changes no rating."


def test_rated_matches_singular_and_plural_and_numbers_as_each_language_writes_them() -> None:
    assert [describe_matches(n) for n in (0, 1, 2)] == [
        "0 rated matches",
        "1 rated match",
        "2 rated matches",
    ]
    assert [describe_matches(n, "es") for n in (1, 5)] == [
        "1 partida puntuada",
        "5 partidas puntuadas",
    ]
    assert [describe_matches(n, "cs") for n in (1, 2, 4, 5, 22)] == [
        "1 hodnocený zápas",
        "2 hodnocené zápasy",
        "4 hodnocené zápasy",
        "5 hodnocených zápasů",
        "22 hodnocených zápasů",
    ]
    assert [number(1034, lang) for lang in ("en", "es", "cs")] == ["1,034", "1034", f"1{NBSP}034"]
    assert number(12345, "es") == "12.345"
    profile = {"name": "Ana", "tag": None, "rating": 1000, "matches": 0, "listed": False}
    profile |= {"min_matches": 10, "provisional": True}
    assert describe_profile(profile) == (
        "Ana · rating 1,000? · provisional — settles after 10 rated matches (0 so far)"
    )
    settled = {**profile, "tag": "4F7K", "rating": 1234, "matches": 1, "provisional": False}
    assert describe_profile(settled) == "Ana#4F7K · rating 1,234 · 1 rated match"
    assert describe_profile({**settled, "matches": 3}, "cs") == (
        f"Ana#4F7K · hodnocení 1{NBSP}234 · 3 hodnocené zápasy"
    )
    assert who("Ana", None) == "Ana" and who("Ana", "4F7K") == "Ana#4F7K"


# --- fed documents: the line mode and the full screen ------------------------------------


def finished_doc(**room: Any) -> dict[str, Any]:
    """A four-seat match (Ana and three bots) just over, its room as ``room`` says."""
    seats = [{"name": "Ana", "kind": "human", "level": None, "away": False, "connected": True}]
    seats += [
        {"name": f"Bot {n}", "kind": "bot", "level": "hard", "away": False, "connected": True}
        for n in (2, 3, 4)
    ]
    base = {"code": "ABCDEF", "phase": "playing", "seats": seats, "host": 0, "rematch": []}
    base |= {"daily": None, "options": {"target": 1, "draw": "end"}, "rated": True}
    base |= {"unrated": None, "ratings": None}
    game = {
        "phase": "finished",
        "hand_no": 1,
        "seats": 4,
        "turn": 0,
        "dealer": 3,
        "target": 1,
        "moved": False,
        "stock": 20,
        "piles": {p: [] for p in ("N", "E", "S", "W", "NE", "SE", "SW", "NW")},
        "counts": [2, 0, 1, 3],
        "hand": ["6H", "5S"],
        "legal": [],
        "scores": [[2, 0, 1, 12]],
        "totals": [2, 0, 1, 12],
        "winners": [1],
        "result": {
            "reason": "emptied",
            "out": 1,
            "penalties": [2, 0, 1, 12],
            "left": [["6H", "5S"], [], ["4S"], ["KH", "AC", "2C"]],
        },
    }
    return {"room": base | room, "game": game}


def rated(change: dict[str, Any] | None) -> dict[str, Any]:
    return {"rated": True, "unrated": None, "ratings": [change, None, None, None]}


def test_the_line_mode_says_each_change_and_each_unrated_room() -> None:
    doc = finished_doc(**rated(PLACED))
    assert rating_lines(doc, 0) == [
        "Your rating: 2nd of 4: +12 (1,000 → 1,012?)",
        "  provisional — settles after 10 rated matches (3 so far)",
    ]
    assert rating_lines(doc, None) == ["  Ana: 2nd of 4: +12 (1,000 → 1,012?)"]
    assert rating_lines(finished_doc(**rated(SETTLED)), 0, "es") == [
        "Tu puntuación: 2.º de 4: +12 (1034 → 1046)"
    ]
    assert rating_lines(finished_doc(**rated(None)), 0) == []
    assert rating_lines(finished_doc(ratings=None), 0) == ["Updating ratings…"]
    for reason in ("casual", "chosen_deal", "daily", "aborted"):
        doc = finished_doc(rated=False, unrated=reason)
        assert rating_lines(doc, 0) == [describe_unrated(reason)]
    # A server from before the reasons: told from the room.
    older = finished_doc(rated=False, options={"target": 1, "draw": "end", "casual": True})
    del older["room"]["unrated"]
    assert rating_lines(older, 0) == ["Casual match: no rating changes."]
    # Printed with the board once the match is over.
    board = render(finished_doc(**rated(ABANDONED)), 0)
    assert "Match over: Bot 2 won.\nYour rating: Left the match: last of 4: \u221235" in board

    rows = [
        {"id": "M1", "seat": 0, "ratings": [PLACED, None], "unrated": None},
        {"id": "M2", "seat": 0, "ratings": None, "unrated": "aborted"},
        {"id": "M3", "seat": 0, "ratings": None},
    ]
    for row in rows:
        row |= {"seats": [{"name": "Ana"}, {"name": "Bot 2"}], "totals": [0, 9], "winners": [0]}
    listing = render_matches(rows).splitlines()
    assert listing[2] == "      Your rating: 2nd of 4: +12 (1,000 → 1,012?)"
    assert listing[4].strip().startswith("Not rated: someone left before the match")
    assert listing[5].startswith("  M3 ") and len(listing) == 6
    assert match_rating(rows[1], "cs").startswith("Nehodnotí se: ")
    assert match_label(rows[0]).endswith("\n    Your rating: 2nd of 4: +12 (1,000 → 1,012?)")
    assert "\n" not in match_label(rows[2])


async def test_the_line_mode_prints_the_ratings_when_they_come() -> None:
    """The server rates a match a moment after its end: the lines follow the board."""
    lines: list[str] = []
    client = GameClient("ws://127.0.0.1:9/", "Ana")
    client.seat, client.room = 0, "ABCDEF"
    app = TerminalClient(client, write=lines.append)
    client.doc = finished_doc(ratings=None)
    app.show_updates()
    assert "Match over: Bot 2 won.\nUpdating ratings…" in lines[-1]
    client.doc = finished_doc(**rated(PLACED))
    app.show_updates()
    assert lines[-1] == (
        "Your rating: 2nd of 4: +12 (1,000 → 1,012?)\n"
        "  provisional — settles after 10 rated matches (3 so far)"
    )
    count = len(lines)
    app.show_updates()
    assert len(lines) == count  # once


class Table(App[None]):
    """The room screen alone, over a client whose document the test sets."""

    def __init__(self, client: GameClient, look: Look) -> None:
        super().__init__()
        self.client = client
        self.look = look

    async def on_mount(self) -> None:
        await self.push_screen(GameScreen(self.client, self.look))


def text_of(app: App[Any]) -> str:
    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        record=True,
        color_system=None,
        legacy_windows=False,
    )
    console.print(
        app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    )
    return console.export_text()


def left_panel(app: App[Any]) -> str:
    """What the box at the left of the screen (the result, the lobby's menu) says, its
    wrapped lines joined again."""
    parts = []
    for line in text_of(app).splitlines():
        inside = line.strip()
        if inside.startswith(("│", "|")):
            parts.append(re.split(r"[│|]", inside[1:], maxsplit=1)[0].strip())
    return " ".join(" ".join(parts).split())


async def wait_for(pilot: Pilot[Any], check: Callable[[], bool], what: str) -> None:
    try:
        async with asyncio.timeout(10):
            while not check():
                await pilot.pause(0.02)
    except TimeoutError:
        raise AssertionError(f"no {what}:\n{text_of(pilot.app)}") from None


async def test_the_full_screen_result_at_80_by_24(tmp_path: Path) -> None:
    client = GameClient("ws://127.0.0.1:9/", "Ana")
    client.seat, client.room = 0, "ABCDEF"
    client.doc = finished_doc(**rated(PLACED))
    app = Table(client, Look())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: "Match over" in text_of(app), "result")
        screen = text_of(app)
        # Every line of the result fits: the four totals, the rating with its mark and why.
        assert re.search(r"total\s+2\s+0\s+1\s+12", screen), screen
        flat = left_panel(app)
        assert "Your rating: 2nd of 4: +12 (1,000 → 1,012?)" in flat, screen
        assert "provisional — settles after 10 rated matches (3 so far)" in flat, screen
        assert "r rematch · R (host) forces it" in screen
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        app.save_screenshot("rating-fed-80x24.svg", str(ARTIFACTS))
        screen_of = app.screen
        assert isinstance(screen_of, GameScreen)
        for reason in ("aborted", "daily"):
            client.doc = finished_doc(rated=False, unrated=reason)
            screen_of.refresh_view()
            await pilot.pause(0.05)
            flat = left_panel(app)
            assert describe_unrated(reason) in flat, text_of(app)
            assert "Your rating" not in flat
        client.doc = finished_doc(**rated(ABANDONED))
        screen_of.refresh_view()
        await pilot.pause(0.05)
        assert "Left the match: last of 4: \u221235" in left_panel(app)


# --- a real rated match against three hard bots --------------------------------------------


def choose(legal: list[str]) -> str:
    """A card onto a pile when one fits, else end the turn (pile moves could go round)."""
    cards = [action for action in legal if action != "end" and action[0] not in "NESW"]
    return cards[0] if cards else "end"


async def play_out(client: GameClient) -> None:
    """Play the viewer's turns until the match is over (the bots play theirs)."""

    def mine_or_over(c: GameClient) -> bool:
        game = c.game
        return game is not None and (game["phase"] == "finished" or bool(game.get("legal")))

    async with asyncio.timeout(120):
        while True:
            await client.until(mine_or_over, timeout=60)
            game = client.game
            assert game is not None
            if game["phase"] == "finished":
                return
            await client.act(choose(list(game["legal"])))


HARD = Entry(mode="create", seats=4, bots=("hard", "hard", "hard"), options={"target": 1})
OF_FOUR = re.compile(
    r"Your rating: (1st|2nd|3rd|4th) of 4: [+\u2212\u00b1][\d,]+ \(1,000 → [\d,]+\?\)"
)


async def test_a_rated_match_end_to_end_in_the_line_mode(server: GameServer, url: str) -> None:
    lines: list[str] = []
    client = GameClient(url, "Ana")
    app = TerminalClient(client, write=lines.append)
    await client.connect()
    assert (await app.profile()).startswith("You: Ana")
    await app.enter(HARD)
    follower = asyncio.create_task(app.follow())
    try:
        await client.send({"type": "start", "fill": "hard"})
        await play_out(client)
        async with asyncio.timeout(15):
            while not any(OF_FOUR.search(line) for line in lines):
                await asyncio.sleep(0.05)
        text = "\n".join(lines)
        assert f"provisional — settles after {MIN_MATCHES} rated matches (1 so far)" in text
        said = OF_FOUR.search(text)
        assert said is not None
        history = await app.matches()
        assert said.group(0) in history, history
        me = await app.profile()
        assert re.fullmatch(
            rf"You: Ana(#[0-9A-Z]{{4}})? · rating [\d,]+\? · provisional — settles after "
            rf"{MIN_MATCHES} rated matches \(1 so far\)",
            me,
        ), me
    finally:
        follower.cancel()
        await client.close()


async def test_a_rated_match_end_to_end_on_the_full_screen(
    server: GameServer, url: str, tmp_path: Path
) -> None:
    tokens = TokenFile(tmp_path / "tokens.json")
    client = GameClient(url, "Ana", reconnect=True)
    app = KingsCornerApp(client, Look(), tokens=tokens)
    async with app.run_test(size=(80, 24)) as pilot:
        await shows(pilot, "n  new room")
        await shows(pilot, "Ana")
        await shows(pilot, "rating 1,000?")
        await until(
            pilot,
            lambda: f"settles after {MIN_MATCHES} rated matches (0 so far)" in left_panel(app),
            what="the profile in the lobby",
        )
        save(app, "rating-lobby-80x24")
        app.start_entry(HARD)
        await shows(pilot, "Waiting room · room code")
        await pilot.press("s")
        await until(pilot, lambda: client.game is not None, what="the start")
        await play_out(client)
        await until(
            pilot,
            lambda: bool(OF_FOUR.search(left_panel(app))),
            timeout=15,
            what="the rating, of 4",
        )
        flat = left_panel(app)
        assert f"provisional — settles after {MIN_MATCHES} rated matches (1 so far)" in flat
        save(app, "rating-result-80x24")
        (ARTIFACTS / "rating-result-80x24.txt").write_text(text_of(app))
        said = OF_FOUR.search(flat)
        assert said is not None

        # Leave: the lobby says the new rating, then the history says the same as the result.
        await pilot.press("l", "l")
        await shows(pilot, "n  new room")
        await until(pilot, lambda: "(1 so far)" in left_panel(app), what="the new rating")
        save(app, "rating-lobby-after-80x24")
        await pilot.press("m")
        await until(pilot, lambda: isinstance(app.screen, MatchesScreen), what="matches")
        await until(
            pilot,
            lambda: said.group(0) in " ".join(text_of(app).split()),
            what="the history's rating line",
        )
        save(app, "rating-history-80x24")
        await pilot.press("ctrl+q")
    await client.close()
