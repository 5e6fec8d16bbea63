"""The full-screen table fits an 80 by 24 terminal and uses the room of a bigger one; cards
fall back to letters without symbols; the keys shown are the keys that work."""

from __future__ import annotations

from pathlib import Path

from clients.net import GameClient
from clients.terminal.app import Entry
from clients.terminal.tokens import TokenFile
from clients.terminal.tui.app import KingsCornerApp
from clients.terminal.tui.lobby import CreateScreen
from clients.terminal.tui.look import Look, can_show_symbols, look_for
from tests.clients.tui_driver import one_turn_deck, save, screen_text, server, shows, until

__all__ = ["server"]  # the fixture, imported to override the shared one

PILE_TITLES = ("7 NW", "8 N", "9 NE", "4 W", "6 E", "1 SW", "2 S", "3 SE")


def app_for(url: str, tmp_path: Path, look: Look) -> KingsCornerApp:
    entry = Entry(mode="create", seats=2, bots=("random",), decks=(one_turn_deck(),), dealer=1)
    client = GameClient(url, "Ana", reconnect=True)
    return KingsCornerApp(client, look, entry=entry, tokens=TokenFile(tmp_path / "t.json"))


async def test_the_table_fits_80_by_24_and_grows_with_the_terminal(
    url: str, tmp_path: Path
) -> None:
    app = app_for(url, tmp_path, Look())
    async with app.run_test(size=(80, 24)) as pilot:
        await shows(pilot, "Waiting room")
        save(app, "waiting-80x24")
        await pilot.press("s")
        screen = await shows(pilot, "Your hand (7)")
        lines = screen.rstrip("\n").split("\n")
        assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
        for title in PILE_TITLES:
            assert title in screen, title
        assert "Stock 34" in screen and "Seats" in screen and "Table log" in screen
        assert "Chat" in screen
        # The whole hand, the seats with their counts, and the keys on the last line.
        hand_line = next(line for line in lines if "7♥" in line and "A♥" in line)
        for card in ("6♠", "4♠", "2♠", "7♥", "5♥", "3♥", "A♥"):
            assert card in hand_line
        seat_at = next(n for n, line in enumerate(lines) if "Bot 2" in line)
        assert " 7 " in lines[seat_at]
        # Its tags, whole: beside the name, or on the line under it when they do not fit.
        assert "bot random" in lines[seat_at] + lines[seat_at + 1]
        assert "you" in next(line for line in lines if "Ana" in line and "host" in line)
        assert lines[-1].strip().startswith("←→⏎ or 7c card · 1-9 pile")
        assert "Room " in lines[0] and "hand 1" in lines[0]
        # The cross: N above the stock above S, W left of it and E right of it.
        row = {title: i for i, line in enumerate(lines) for title in PILE_TITLES if title in line}
        assert row["8 N"] < row["4 W"] < row["2 S"]
        assert row["4 W"] == row["6 E"]
        middle = lines[next(i for i, line in enumerate(lines) if "Stock 34" in line)]
        assert middle.index("Stock 34") > 10
        await pilot.press("7", "h")
        screen = await shows(pilot, "▸8 N")
        save(app, "table-80x24")

        # Bigger: the side panes widen, the log shows more.
        await pilot.resize_terminal(140, 40)
        # The resize is a message to the app: until it is laid out again, the screen is the
        # 80 by 24 one, which shows "▸8 N" too.
        await until(pilot, lambda: len(screen_text(app).splitlines()) == 40, what="40 rows")
        screen = await shows(pilot, "▸8 N")
        lines = screen.rstrip("\n").split("\n")
        assert len(lines) == 40 and max(len(line) for line in lines) > 100
        seat_line = next(line for line in lines if "Bot 2" in line)
        assert "bot random" in seat_line
        save(app, "table-140x40")
        await pilot.press("ctrl+q")
    await app.client.close()


async def test_letters_instead_of_symbols_and_no_colour(url: str, tmp_path: Path) -> None:
    look = look_for(ascii_only=False, lang="en", env={"NO_COLOR": "1"}, encoding="ascii")
    assert look == Look(symbols=False, color=False, lang="en")
    assert can_show_symbols("utf-8") and not can_show_symbols("latin-1")
    assert look_for(ascii_only=True, env={}, encoding="utf-8").symbols is False
    app = app_for(url, tmp_path, look)
    async with app.run_test(size=(80, 24)) as pilot:
        await shows(pilot, "Waiting room")
        await pilot.press("s")
        screen = await shows(pilot, "Your hand (7)")
        assert "7H" in screen and "AH" in screen and "8C" in screen
        assert not any(symbol in screen for symbol in "♣♦♥♠▸▶╭←→⏎…")
        assert "Left/Right/Enter or 7c card | 1-9 pile" in screen
        await pilot.press("7", "h")
        screen = await shows(pilot, "7H chosen")
        assert ">8 N" in screen
        save(app, "ascii-80x24")
        await pilot.press("?")
        screen = await shows(pilot, "Keys")
        assert "7 then c is 7C" in screen
        # Every character on screen is ASCII: the help's border too, and the forms'.
        assert not [c for c in screen if ord(c) > 127], screen
        save(app, "ascii-help-80x24")
        await pilot.press("escape")
        await app.push_screen(CreateScreen(look))
        screen = await shows(pilot, "New room")
        assert not [c for c in screen if ord(c) > 127], screen
        save(app, "ascii-form-80x24")
        await pilot.press("escape")
        await pilot.press("ctrl+q")
    await app.client.close()
