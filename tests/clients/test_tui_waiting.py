"""The waiting room by keys: the host changes the options, adds a bot, waits for the
guest to be ready and starts; refusals are worded on the screen."""

from __future__ import annotations

from pathlib import Path

from clients.net import GameClient
from clients.terminal.app import Entry
from clients.terminal.tokens import TokenFile
from clients.terminal.tui.app import KingsCornerApp
from clients.terminal.tui.look import Look
from tests.clients.tui_driver import server, shows, until

__all__ = ["server"]  # the fixture, imported to override the shared one


async def test_the_host_configures_adds_a_bot_and_starts_when_the_guest_is_ready(
    url: str, tmp_path: Path
) -> None:
    client = GameClient(url, "Ana", reconnect=True)
    app = KingsCornerApp(
        client,
        Look(),
        entry=Entry(mode="create", seats=3),
        tokens=TokenFile(tmp_path / "t.json"),
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await shows(pilot, "Waiting room")
        code = client.room
        assert code is not None
        guest = GameClient(url, "Ben")
        await guest.connect()
        await guest.join(code)
        screen = await shows(pilot, "Ben")
        assert "not ready" in screen

        def options() -> dict[str, object]:
            assert client.doc is not None
            return dict(client.doc["room"]["options"])

        await pilot.press("d")
        await until(pilot, lambda: options()["draw"] == "start", what="draw at start")
        await pilot.press("+")
        await until(pilot, lambda: options()["target"] == 30, what="target 30")
        await pilot.press("f")
        await until(pilot, lambda: options()["kings_first"] is True, what="kings first")
        screen = await shows(pilot, "target 30 · draw at start · kings first")
        await pilot.press("a", "3")
        await until(
            pilot,
            lambda: client.doc is not None and client.doc["room"]["seats"][2] is not None,
            what="a bot in seat 3",
        )
        assert client.doc is not None and client.doc["room"]["seats"][2]["kind"] == "bot"

        await pilot.press("s")  # Ben is not ready: refused, and said so
        await shows(pilot, "Waiting for Ben to be ready.")
        assert client.game is None
        await guest.ready()
        await pilot.press("s")
        await shows(pilot, "Your hand (")
        assert client.game is not None and client.game["target"] == 30
        await pilot.press("ctrl+q")
        await guest.close()
    await client.close()
