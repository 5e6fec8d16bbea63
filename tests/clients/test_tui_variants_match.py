"""A whole corners match with the opening refill in the full-screen client, by key presses
against the real server: the room made from an :class:`Entry` carrying both options, a
corner collected by the player's own pile moves in the first turn, the seats' corners
beside them, and the result placed by corners.

The deal is the one of ``tests/web/test_variants_match.py`` (read its docstring): thirteen
pile moves onto NE, each refilled from the stock, collect that corner for Ana; she plays
10♥ and ends her turn; the heuristic bot goes out. Ana is placed first on her corner though
the bot has no penalty.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from clients.net import GameClient
from clients.terminal.app import Entry
from clients.terminal.render import plate
from clients.terminal.tokens import TokenFile
from clients.terminal.tui.app import KingsCornerApp
from clients.terminal.tui.keys import KEY_OF_PILE
from clients.terminal.tui.look import Look
from server.app import GameServer
from server.room import VARIANTS_FORMAT, Room
from tests.clients.tui_driver import log_text, save, screen_text, server, shows, until
from tests.web.test_variants_match import ANA_PENALTY, BOT, MOVES, corners_deck

__all__ = ["server"]  # the fixture, imported to override the shared one

REFILL_NOTE = "Opening refill: a side pile moved away refills from the stock."
#: The stock once dealt: 52 cards, 14 in the two hands, 4 on the side spaces.
DEALT_STOCK = 52 - 14 - 4


async def logged(pilot: Pilot[int], needle: str) -> None:
    """Wait until the table log holds ``needle``, its lines wrapped to the pane or not."""
    app = pilot.app
    assert isinstance(app, KingsCornerApp)

    def found() -> bool:
        return needle in re.sub(r"\s+", " ", log_text(app))

    await until(pilot, found, timeout=15, what=repr(needle))


def seat_row(screen: str, name: str) -> str:
    """The seats panel's line of ``name``: turn marker, name, cards, corners (and tags)."""
    rows = [
        line for line in screen.splitlines() if re.search(rf"[▶ ] {re.escape(name)}\s+\d", line)
    ]
    assert len(rows) == 1, screen
    return rows[0]


def figures(screen: str, name: str) -> tuple[int, int]:
    """The cards in hand and the corners collected the seats panel shows for ``name``."""
    found = re.search(rf"{re.escape(name)}\s+(\d+)\s+(\d+)", seat_row(screen, name))
    assert found is not None, seat_row(screen, name)
    return int(found.group(1)), int(found.group(2))


async def test_a_corners_match_with_the_opening_refill_by_keys(
    server: GameServer, url: str, tmp_path: Path
) -> None:
    entry = Entry(
        mode="create",
        seats=2,
        bots=("heuristic",),
        options={"scoring": "corners", "opening_refill": True},
        decks=(tuple(corners_deck()),),
        dealer=1,
    )
    client = GameClient(url, "Ana", reconnect=True)
    app = KingsCornerApp(client, Look(), entry=entry, tokens=TokenFile(tmp_path / "t.json"))

    def game() -> dict[str, Any]:
        assert client.game is not None
        return client.game

    async with app.run_test(size=(100, 30)) as pilot:
        await shows(pilot, "Waiting room · room code", timeout=20)
        code = client.room
        assert code is not None and client.doc is not None
        ana = plate(client.doc["room"]["seats"][0])  # as every plate names her: Ana#TAG
        assert ana.startswith("Ana")
        await pilot.press("s")  # the host starts
        screen = await shows(pilot, "Your hand (7)", timeout=20)
        assert "Your turn" in screen
        # The first turn: the refill's note, corners where totals stand, none collected yet.
        assert REFILL_NOTE in screen
        assert re.search(r"cards\s+corners", screen), screen
        assert figures(screen, ana) == (7, 0)
        assert figures(screen, "Bot 2") == (7, 0)

        # Thirteen pile moves onto NE by their keys: m, the side pile, then NE.
        for n, source in enumerate(MOVES, start=1):
            await pilot.press("m", KEY_OF_PILE[source], KEY_OF_PILE["NE"])

            def moved(n: int = n) -> bool:
                stock: int = game()["stock"]
                return stock == DEALT_STOCK - n

            await until(pilot, moved, timeout=15, what=f"move {n}, {source} onto NE")
            if n == 1:
                await logged(pilot, "Ana moved pile N onto NE; 9♠ from the stock refills N.")
            if n < len(MOVES):
                assert len(game()["piles"]["NE"]) == n
                assert game()["refill_open"] is True
                await shows(pilot, REFILL_NOTE)  # a pile move keeps the window open
                assert figures(screen_text(app), ana) == (7, 0)

        # The ace completed NE: Ana collected it, and the seats panel says so.
        await logged(pilot, "Ana completed the NE corner and collected it (1 so far).")
        assert game()["piles"]["NE"] == [] and game()["collected"] == [1, 0]
        await until(pilot, lambda: figures(screen_text(app), ana) == (7, 1), what="Ana's corner")
        screen = screen_text(app)
        assert figures(screen, "Bot 2") == (7, 0)
        assert REFILL_NOTE in screen
        save(app, "variants-match-collected-100x30")

        # 10♥ from the hand onto N closes the window; e ends the turn.
        await pilot.press("t", "h", KEY_OF_PILE["N"])
        await until(pilot, lambda: "10H" not in game()["hand"], what="10♥ played")
        await until(pilot, lambda: REFILL_NOTE not in screen_text(app), what="the note gone")
        assert game()["refill_open"] is False
        await pilot.press("e")

        # The bot goes out; the result places Ana first on her corner.
        screen = await shows(pilot, "Placed by corners collected", timeout=20)
        assert "Placed by corners collected, then by the lower penalty." in screen
        first = f"1. Ana: corners 1, penalty {ANA_PENALTY}"
        second = "2. Bot 2: corners 0, penalty 0"
        assert first in screen and second in screen, screen
        assert screen.index(first) < screen.index(second)
        assert "Match over: Ana won." in screen
        assert REFILL_NOTE not in screen
        save(app, "variants-match-result-100x30")
        assert game()["places"] == [1, 2] and game()["winners"] == [0]
        await pilot.press("ctrl+q")
    await client.close()

    # The server's own state: the stored log's marks and the match it folds.
    events = await server.store.read(code)
    assert events[0]["options"]["scoring"] == "corners"
    assert events[0]["options"]["opening_refill"] is True
    acts = [(e["seat"], e["a"], e.get("v")) for e in events if e["e"] == "act"]
    assert acts == [
        *[(0, f"{s}>NE", VARIANTS_FORMAT) for s in MOVES],
        (0, "10H>N", None),
        (0, "end", None),
        *[(1, f"{card}>E", None) for card in BOT],
    ]
    match = Room.from_events(events).match
    assert match is not None and match.phase == "finished"
    assert match.position.collected == (1, 0) and match.places == (1, 2)
