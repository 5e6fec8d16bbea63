"""The full-screen lobby against a real server: a new room from the form, leaving it,
quick play, the daily deal, the leaderboards, your matches and their replay."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from textual.widgets import RichLog

from clients.net import GameClient
from clients.terminal.tokens import TokenFile
from clients.terminal.tui.app import KingsCornerApp
from clients.terminal.tui.game import GameScreen
from clients.terminal.tui.look import Look
from clients.terminal.tui.replayview import ReplayScreen
from server.app import GameServer, port_of, start_server
from tests.clients.tui_driver import RUN, one_turn_deck, save, shows, until
from tests.server.conftest import test_settings


@pytest.fixture
async def server() -> AsyncIterator[GameServer]:
    """Bots in threads (see tui_driver), and a daily deal of one hand against random bots."""
    game = await start_server(test_settings(bot_workers=0, daily_target=1, daily_level="random"))
    yield game
    await game.shutdown()


def pane(app: KingsCornerApp, name: str) -> str:
    """The lines of the room screen's log or chat pane."""
    return "\n".join(strip.text for strip in app.screen.query_one(name, RichLog).lines)


def lobby_app(url: str, tmp_path: Path, name: str = "Ana") -> KingsCornerApp:
    tokens = TokenFile(tmp_path / "tokens.json")
    client = GameClient(url, name, reconnect=True)
    client.player = tokens.player(url)
    return KingsCornerApp(client, Look(), tokens=tokens)


async def test_a_new_room_from_the_form_then_quick_play_and_the_daily_deal(
    server: GameServer, url: str, tmp_path: Path
) -> None:
    app = lobby_app(url, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await shows(pilot, "n  new room (bots, variants)")
        for item in ("j  join", "w  watch", "2 3 4  quick play", "d  today's daily deal"):
            assert item in screen
        save(app, "lobby-80x24")
        await pilot.press("n")
        screen = await shows(pilot, "New room")
        assert "Seat 4" in screen and "bot hard" in screen
        save(app, "create-80x24")
        focused = app.screen.focused
        assert focused is not None and focused.id == "seats"  # Enter opens it: no room yet
        await pilot.click("#create")  # the defaults: four seats, three hard bots
        screen = await shows(pilot, "Waiting room · room code")
        code = app.client.room
        assert code is not None and isinstance(app.screen, GameScreen)
        assert screen.count("bot hard") >= 3
        assert app.client.doc is not None and len(app.client.doc["room"]["seats"]) == 4

        await pilot.press("c", *"from the first room", "enter")
        await until(pilot, lambda: "from the first room" in pane(app, "#chat"), what="chat")

        # l once asks, l again leaves for good: back in the lobby, the seat token forgotten.
        await pilot.press("l")
        await shows(pilot, "Press l again")
        await pilot.press("l")
        await shows(pilot, f"You left room {code}.")
        assert app.client.room is None and app.game_screen is None
        assert TokenFile(tmp_path / "tokens.json").get(url, code) is None

        await pilot.press("2")  # quick play at a table of two: a bot fills it
        screen = await shows(pilot, "Your hand (7)")
        assert "Bot 2" in screen
        assert app.client.doc is not None
        assert [s["kind"] for s in app.client.doc["room"]["seats"]] == ["human", "bot"]
        await pilot.press("l", "l")
        await shows(pilot, "You left room")

        await pilot.press("d")
        screen = await shows(pilot, "Daily deal (ranked)")
        assert app.client.doc is not None and len(app.client.doc["room"]["seats"]) == 4
        # Every room starts clean: no chat of the rooms left before.
        assert "from the first room" not in pane(app, "#chat")
        await pilot.press("ctrl+q")
    await app.client.close()


async def test_boards_matches_and_the_replay_viewer(url: str, tmp_path: Path) -> None:
    # A finished match first, played by the same identity the app will use.
    player = GameClient(url, "Ana")
    await player.connect()
    code = await player.create(
        seats=2, bots=[None, "random"], decks=[list(one_turn_deck())], dealer=1
    )
    await player.start()
    for card in ("7H", "6S", "5H", "4S", "3H", "2S", "AH"):
        await player.act(f"{card}>N")
    assert player.game is not None and player.game["phase"] == "finished"
    assert RUN[0] == "7H"
    TokenFile(tmp_path / "tokens.json").put_player(url, player.player or "", player.player_id)
    await player.close()

    app = lobby_app(url, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await shows(pilot, "b  leaderboards")
        await pilot.press("b")
        await shows(pilot, "Daily deal leaderboard")
        await pilot.press("tab")
        screen = await shows(pilot, "All-time leaderboard")
        assert "Ana" not in screen  # a match on a chosen deal is on no board
        await pilot.press("escape")
        await pilot.press("m")
        screen = await shows(pilot, "Your finished matches")
        assert f"{code}-" in screen and re.search(r"Ana#\w+\* 0", screen)  # with the tag
        await pilot.press("enter")
        screen = await shows(pilot, "step 0/7")
        assert isinstance(app.screen, ReplayScreen)
        assert "Hand 1 dealt by seat 2 (Bot 2); seat 1 (Ana) plays first." in screen
        assert "K♥" in screen  # every hand is open: the bot's cards too
        await pilot.press("right")
        screen = await shows(pilot, "step 1/7")
        assert "seat 1 (Ana) played 7♥ on N." in screen
        await pilot.press("end")
        screen = await shows(pilot, "step 7/7")
        assert "Match over: Ana won." in screen and "Bot 2: 34 penalty" in screen
        save(app, "replay-80x24")
        await pilot.press("pageup")
        screen = await shows(pilot, "step 0/7")
        await pilot.press("end", "left")
        screen = await shows(pilot, "step 6/7")
        assert "8♣ 7♥ 6♠ 5♥" in screen  # the table again, one card before the end
        await pilot.press("home")
        await shows(pilot, "step 0/7")
        await pilot.press("escape")
        await shows(pilot, "Your finished matches")
        await pilot.press("escape")
        await shows(pilot, "r  replay a match by its id")
        await pilot.press("ctrl+q")
    await app.client.close()


async def test_the_replay_command_opens_the_viewer_alone(
    server: GameServer, tmp_path: Path
) -> None:
    http = f"http://127.0.0.1:{port_of(server)}"
    app = KingsCornerApp(GameClient(http), Look(), replay_id="NOSUCH-1", replay_only=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: bool(app.notes), what="a note")
    assert app.return_code == 1
    assert "has no finished match NOSUCH-1" in app.notes[-1]
