"""Driving the full-screen client in the tests: the screen as text, waiting on it, and a
stacked deck whose first hand one seat can play out in a single turn."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import RichLog

from clients.terminal.tui.app import KingsCornerApp
from protocol.engine.cards import RANKS, SUITS
from server.app import GameServer, start_server
from tests.server.conftest import test_settings

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "terminal"

#: Seat 0's hand: every card fits on the last, starting on the 8♣ of N.
RUN = ["7H", "6S", "5H", "4S", "3H", "2S", "AH"]
#: Seat 1's hand: two kings and five more, 34 penalty points (the match ends at 25).
HEAVY = ["KH", "KC", "KD", "QD", "QH", "JC", "JS"]
#: N, E, S, W as dealt.
TABLE = ["8C", "9D", "KS", "2D"]


@pytest.fixture
async def server(request: pytest.FixtureRequest) -> AsyncIterator[GameServer]:
    """The real server of ``tests/clients/conftest.py``, its bots thinking in threads: the
    headless app holds the standard streams that bot worker processes would inherit. A
    test's ``settings`` mark changes more."""
    marker = request.node.get_closest_marker("settings")
    game = await start_server(test_settings(bot_workers=0, **(marker.kwargs if marker else {})))
    yield game
    await game.shutdown()


def one_turn_deck() -> tuple[str, ...]:
    """With two seats and seat 1 dealing, seat 0 gets :data:`RUN` and moves first."""
    top = [card for pair in zip(RUN, HEAVY, strict=True) for card in pair] + TABLE
    rest = [f"{r}{s}" for s in SUITS for r in RANKS if f"{r}{s}" not in top]
    deck = tuple(top + rest)
    assert len(set(deck)) == 52
    return deck


def screen_text(app: KingsCornerApp) -> str:
    """What the terminal shows now, as plain text (modal screens over the ones below)."""
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


async def until(
    pilot: Pilot[int], check: Callable[[], bool], timeout: float = 10.0, what: str = ""
) -> None:
    """Let the app run until ``check()`` holds."""
    try:
        async with asyncio.timeout(timeout):
            while not check():
                await pilot.pause(0.02)
    except TimeoutError:
        app = pilot.app
        assert isinstance(app, KingsCornerApp)
        raise AssertionError(f"timed out waiting for {what}:\n{screen_text(app)}") from None


async def shows(pilot: Pilot[int], needle: str, timeout: float = 10.0) -> str:
    """Wait until the screen shows ``needle``; returns the screen."""
    app = pilot.app
    assert isinstance(app, KingsCornerApp)
    await until(pilot, lambda: needle in screen_text(app), timeout, repr(needle))
    return screen_text(app)


def log_text(app: KingsCornerApp) -> str:
    """Every line the table log holds, scrolled out of sight or not."""
    log = app.screen.query_one("#log", RichLog)
    return "\n".join(line.text for line in log.lines)


async def logged(pilot: Pilot[int], needle: str, timeout: float = 10.0) -> None:
    """Wait until the table log holds ``needle`` (a bot's turn may scroll it out of sight
    before a busy machine looks at the screen)."""
    app = pilot.app
    assert isinstance(app, KingsCornerApp)
    await until(pilot, lambda: needle in log_text(app), timeout, repr(needle))


def save(app: KingsCornerApp, name: str) -> Path:
    """Keep an SVG of the screen among the test artifacts (for people to look at)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return Path(app.save_screenshot(f"{name}.svg", str(ARTIFACTS)))
