"""The two variants in both terminal modes, from documents: corners collected beside each
seat, a corners match's places (ties shared), the opening refill's note while its window is
open, and the ``collected`` and refilling ``moved`` log lines in words."""

from __future__ import annotations

from typing import Any

from clients.terminal.render import log_line, render
from clients.terminal.tui.game import GameScreen
from clients.terminal.variants import standings
from clients.words import describe_event
from tests.clients.test_tui_snapshots import ScreenApp, room_screen
from tests.clients.tui_driver import screen_text
from tests.web.test_options_variants import corners_room


def first_turn() -> dict[str, Any]:
    doc = corners_room("ABCDEF", play=False).doc(0)
    assert doc["game"]["refill_open"] is True
    doc["game"]["collected"] = [1, 0, 2]
    return doc


def finished() -> dict[str, Any]:
    doc = corners_room("ABCDEF", play=True).doc(0)
    doc["game"] |= {"collected": [1, 2, 1], "places": [2, 1, 2], "winners": [1]}
    doc["game"]["result"]["penalties"] = [3, 0, 3]
    return doc


def test_places_come_from_the_server_and_are_computed_alike_while_playing() -> None:
    game = finished()["game"]
    assert [(r.place, r.seat) for r in standings(game)] == [(1, 1), (2, 0), (2, 2)]
    game["places"] = None  # while played: more corners first, then the lower penalty
    game["collected"] = [1, 1, 0]
    game["result"]["penalties"] = [4, 2, 0]
    assert [(r.place, r.seat) for r in standings(game)] == [(1, 1), (2, 0), (3, 2)]
    assert standings({"collected": None}) == []


def test_the_log_lines_of_the_variants_in_each_language() -> None:
    def names(seat: int | None) -> str:
        return ["Ana", "Bot", "Ben"][seat or 0]

    moved = {"ev": "moved", "seat": 0, "from": "N", "to": "NE", "refill": "7H"}
    collected = {"ev": "collected", "seat": 2, "corner": "SW", "total": 2}
    assert describe_event(moved, names) == "Ana moved pile N onto NE; 7H from the stock refills N."
    assert describe_event(collected, names) == (
        "Ben completed the SW corner and collected it (2 so far)."
    )
    assert "del mazo rellena N" in describe_event(moved, names, "es")
    assert "roh SW" in describe_event(collected, names, "cs")
    plain = {"ev": "moved", "seat": 0, "from": "N", "to": "NE"}
    assert describe_event(plain, names) == "Ana moved pile N onto NE."
    assert "refills" in log_line(moved, first_turn())


def test_line_mode_shows_corners_the_refill_and_the_places() -> None:
    screen = render(first_turn(), 0)
    assert "opening refill · corners collected" in screen
    assert "corners 2" in screen and "corners 0" in screen
    assert "Opening refill: a side pile moved away refills from the stock." in screen
    over = render(finished(), 0)
    assert "Placed by corners collected, then by the lower penalty." in over
    assert "  1. Bot 2: corners 2, penalty 0" in over
    assert "  2. Ana: corners 1, penalty 3" in over and "  2. Ben: corners 1, penalty 3" in over
    assert "Opening refill:" not in over


async def test_the_full_screen_shows_corners_the_refill_and_the_places() -> None:
    app = ScreenApp(room_screen(first_turn()))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        text = screen_text(app)  # type: ignore[arg-type]
        assert "cards corners" in text
        assert "Opening refill: a side pile moved away refills from the stock." in text
        rows = text.splitlines()
        at = next(n for n, line in enumerate(rows) if "Ben" in line and " 2 " in line)
        # Its tags beside it, or under it when they do not fit: never cut.
        assert "offline" in rows[at] + rows[at + 1]
    app = ScreenApp(room_screen(finished()))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        text = screen_text(app)  # type: ignore[arg-type]
        assert "Placed by corners collected, then by the lower penalty." in text
        assert "1. Bot 2: corners 2, penalty 0" in text
        assert "2. Ana: corners 1, penalty 3" in text
        assert "2. Ben: corners 1, penalty 3" in text
        assert "Opening refill" not in text
