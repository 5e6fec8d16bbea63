"""The full screen survives a dropped connection (it reconnects and resumes its seat with
the token) and a restart (``--join CODE`` finds the seat in the token file); the own seat
never shows as offline while we are connected."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from textual.pilot import Pilot

from clients.net import GameClient
from clients.terminal.app import Entry
from clients.terminal.tokens import TokenFile
from clients.terminal.tui.app import KingsCornerApp
from clients.terminal.tui.look import Look
from server.app import GameServer
from server.live_room import LiveRoom
from tests.clients.tui_driver import one_turn_deck, screen_text, server, shows, until

__all__ = ["server"]  # the fixture, imported to override the shared one


async def online(pilot: Pilot[int], app: KingsCornerApp) -> None:
    """Wait until Ana's own plate is drawn and does not say she is offline (the plate is
    drawn in a later refresh than the line naming the seat); fails if it never is."""

    def drawn() -> bool:
        # The plate is the line naming Ana and, when "you, host, dealer" does not fit
        # beside her name and tag, the line under it.
        lines = screen_text(app).splitlines()
        plates = [
            " ".join(lines[i : i + 2])
            for i, ln in enumerate(lines)
            if re.search(r"│(▶ |  )Ana\b", ln)  # a row of the Seats panel, not the log
        ]
        mine = [p for p in plates if "you" in p]
        return bool(mine) and "offline" not in mine[0]

    await until(pilot, drawn, what="Ana's own plate, online")


# A grace longer than the restart takes on a busy machine: the seat waits, no bot covers it.
@pytest.mark.settings(grace=30.0)
async def test_a_dropped_connection_and_a_restart_come_back_to_the_seat(
    server: GameServer, url: str, tmp_path: Path
) -> None:
    token_file = tmp_path / "tokens.json"
    entry = Entry(mode="create", seats=2, bots=("random",), decks=(one_turn_deck(),), dealer=1)
    client = GameClient(url, "Ana", reconnect=True)
    app = KingsCornerApp(client, Look(), entry=entry, tokens=TokenFile(token_file))
    async with app.run_test(size=(80, 24)) as pilot:
        await shows(pilot, "Waiting room")
        code = client.room
        assert code is not None
        await pilot.press("s")
        await shows(pilot, "Your hand (7)")
        await pilot.press("7", "h", "8")
        await until(pilot, lambda: client.game is not None and len(client.game["hand"]) == 6)

        # The connection drops under the app: it reconnects and resumes the seat.
        live = server.lobby.rooms[code]
        assert client.ws is not None
        await client.ws.close()
        await until(pilot, lambda: client.reconnects == 1 and client.close_code is None)
        await until(
            pilot,
            lambda: live.room.seats[0] is not None and live.room.seats[0].connected,
            what="the server to see the seat back",
        )
        screen = await shows(pilot, "Your hand (6)")
        await online(pilot, app)
        assert client.seat == 0 and client.doc is not None
        assert client.doc["game"]["piles"]["N"] == ["8C", "7H"]

        # e ends the turn (drawing a card); the bot plays, then it is our turn again.
        await pilot.press("e")
        await until(
            pilot,
            lambda: {"ev": "drew", "seat": 0} in client.log,
            what="our turn ended by drawing",
        )
        await until(
            pilot,
            lambda: client.game is not None and client.game["turn"] == 0,
            what="our turn again",
        )
        await shows(pilot, "Your turn")
        hand = sorted(client.game["hand"]) if client.game else []
        assert len(hand) == 7
        await pilot.press("ctrl+q")
    await client.close()
    await until_disconnected(live)

    # A new run with --join CODE (any case) finds the seat token in the token file.
    again = GameClient(url, "Ana", reconnect=True)
    app = KingsCornerApp(
        again, Look(), entry=Entry(mode="join", room=code.lower()), tokens=TokenFile(token_file)
    )
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await shows(pilot, f"You are in seat 1 of room {code}.")
        assert again.seat == 0 and again.game is not None
        assert sorted(again.game["hand"]) == hand
        assert "Your hand (7)" in screen
        await online(pilot, app)
        assert [s.name if s else None for s in live.room.seats] == ["Ana", "Bot 2"]
        await pilot.press("ctrl+q")
    await again.close()


async def until_disconnected(live: LiveRoom) -> None:
    room = live.room
    async with asyncio.timeout(10):
        while room.seats[0] is not None and room.seats[0].connected:
            await asyncio.sleep(0.02)
