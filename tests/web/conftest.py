"""The web client in real Chromium against a real server.

The server runs in a background thread with its own event loop, so the tests can drive
Chromium with Playwright's sync API (which refuses to run inside an asyncio loop). Every
page opened through :func:`pages` is watched for console errors and uncaught exceptions;
a test fails if any page logged one.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

from server.app import GameServer, port_of, start_server
from tests.server.conftest import test_settings as server_settings

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


async def _cancel_the_rest() -> None:
    """Cancel the tasks a shutdown left (grace timers, say) and let them finish."""
    current = asyncio.current_task()
    tasks = [task for task in asyncio.all_tasks() if task is not current]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


class ServerThread:
    """A game server on a free loopback port, served from its own thread and loop."""

    def __init__(self, **overrides: object) -> None:
        self.settings = server_settings(**overrides)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.game: GameServer | None = None

    def start(self) -> None:
        self.thread.start()
        future = asyncio.run_coroutine_threadsafe(start_server(self.settings), self.loop)
        self.game = future.result(timeout=10)

    def stop(self) -> None:
        if self.game is not None:
            asyncio.run_coroutine_threadsafe(self.game.shutdown(), self.loop).result(timeout=10)
        asyncio.run_coroutine_threadsafe(_cancel_the_rest(), self.loop).result(timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()

    def drop_connections(self) -> None:
        """Close every client connection from the server's side, as a network cut would."""
        assert self.game is not None
        game = self.game

        async def drop() -> None:
            for conn in list(game.connections):
                await conn.ws.close(1012, "dropped by the test")

        asyncio.run_coroutine_threadsafe(drop(), self.loop).result(timeout=10)

    @property
    def url(self) -> str:
        assert self.game is not None
        return f"http://127.0.0.1:{port_of(self.game)}/"


@pytest.fixture(scope="session")
def web_server() -> Iterator[ServerThread]:
    # Bots move at once; a player who reloads keeps the seat (long grace); a finished hand
    # waits for "next hand" long enough for the tests to look at it. The daily deal is one
    # hand (target 1) against random bots, so a test can play it to the end quickly.
    server = ServerThread(
        bot_delay=0.0, grace=30.0, hand_pause=30.0, daily_target=1, daily_level="random"
    )
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    # Per module, not per session: while Playwright's sync API is open its event loop counts
    # as running, and a test process (pytest-xdist) that goes on to an asyncio test of
    # another directory could not start that test's loop.
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@dataclass
class Pages:
    """Opens pages, each in its own browser context (its own storage, like its own device)."""

    browser: Browser
    base_url: str
    contexts: list[BrowserContext] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def open(
        self,
        label: str,
        *,
        viewport: dict[str, int] | None = None,
        locale: str = "en-US",
        phone: bool = False,
        clipboard: bool = False,
        path: str = "/",
        setup: Callable[[Page], None] | None = None,
    ) -> Page:
        # Reduced motion: no transitions, so Playwright finds every element stable at once.
        options: dict[str, Any] = {
            "viewport": viewport or DESKTOP,
            "locale": locale,
            "reduced_motion": "reduce",
        }
        if phone:
            options.update(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
        if clipboard:
            options["permissions"] = ["clipboard-read", "clipboard-write"]
        context = self.browser.new_context(**options)
        context.set_default_timeout(10_000)
        self.contexts.append(context)
        page = context.new_page()
        self.watch(page, label)
        if setup is not None:
            setup(page)
        page.goto(self.base_url.rstrip("/") + path)
        return page

    def watch(self, page: Page, label: str) -> None:
        def on_console(message: Any) -> None:
            if message.type == "error":
                self.problems.append(f"{label}: console error: {message.text}")

        def on_error(error: Any) -> None:
            self.problems.append(f"{label}: page error: {error}")

        def on_dialog(dialog: Any) -> None:
            # The client never opens alert/confirm/prompt: one is injected script running.
            self.problems.append(f"{label}: dialog opened: {dialog.type} {dialog.message!r}")
            dialog.dismiss()

        page.on("console", on_console)
        page.on("pageerror", on_error)
        page.on("dialog", on_dialog)

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def pages(browser: Browser, web_server: ServerThread) -> Iterator[Pages]:
    opened = Pages(browser, web_server.url)
    yield opened
    opened.close()
    assert opened.problems == [], "\n".join(opened.problems)


Shot = Callable[[Page, str], None]


@pytest.fixture
def shot(artifacts: Path) -> Shot:
    def take(page: Page, name: str) -> None:
        page.screenshot(path=str(artifacts / f"{name}.png"))

    return take


@pytest.fixture
def shots(artifacts: Path) -> Shot:
    """Screenshots of a page at desktop size (1280x800) and phone size (390x844)."""

    def take(page: Page, name: str) -> None:
        before = page.viewport_size or DESKTOP
        for size, suffix in ((DESKTOP, "desktop"), (PHONE, "phone")):
            page.set_viewport_size(size)
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(artifacts / f"{name}-{suffix}.png"))
        page.set_viewport_size(before)

    return take
