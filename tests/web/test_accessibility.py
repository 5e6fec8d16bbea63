"""Accessibility in Chromium: axe-core finds no serious or critical violation on the lobby,
the waiting room, the table, a result and the replay, at desktop and phone sizes; and every
move is announced in a live region, as the table log words it."""

from __future__ import annotations

import re
from typing import Any

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from .conftest import Pages
from .helpers import create_room, resize, stack_the_deck
from .test_replay import HAND_ONE, HAND_TWO, play_the_run

AXE = Axe()
#: axe-core's default rules, and the experimental one voice-control users need: a control's
#: accessible name holds the text it shows ("EN", "NW", a card's rank), so saying what you
#: see works (issue 47).
AXE_OPTIONS = {
    "resultTypes": ["violations"],
    "rules": {"label-content-name-mismatch": {"enabled": True}},
}
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


def serious(page: Page, where: str) -> list[str]:
    """The serious and critical violations axe-core finds on ``page`` now."""
    found: list[str] = []
    for size in (DESKTOP, PHONE):
        resize(page, size)
        results: dict[str, Any] = AXE.run(page, options=AXE_OPTIONS).response
        for violation in results["violations"]:
            if violation["impact"] in ("serious", "critical"):
                targets = [node["target"] for node in violation["nodes"]][:9]
                found.append(f"{where} {size['width']}px: {violation['id']} {targets}")
    page.set_viewport_size(DESKTOP)  # type: ignore[arg-type]
    return found


def test_no_serious_violations_from_lobby_to_replay(pages: Pages) -> None:
    ana = pages.open("axe", setup=lambda p: stack_the_deck(p, [HAND_ONE, HAND_TWO], dealer=0))
    problems = serious(ana, "lobby")
    create_room(ana, "Ana", ["random"], target=9)
    problems += serious(ana, "waiting room")
    ana.click("#start-go")
    expect(ana.locator("#end-turn")).to_be_enabled()
    problems += serious(ana, "table")
    play_the_run(ana)
    expect(ana.locator("#result-title")).to_have_text("Hand 1 is over")
    problems += serious(ana, "hand result")
    ana.click("#next-hand")
    expect(ana.locator("#end-turn")).to_be_enabled()
    play_the_run(ana)
    expect(ana.locator("#result-title")).to_have_text("Match over")
    problems += serious(ana, "match result")
    ana.click("#result-replay")
    expect(ana.locator("#replay-body")).to_be_visible()
    ana.click("#replay-next")
    problems += serious(ana, "replay")
    assert problems == []


def test_every_move_is_announced_in_a_live_region(pages: Pages) -> None:
    ana = pages.open("live", setup=lambda p: stack_the_deck(p, [HAND_ONE, HAND_TWO], dealer=0))
    create_room(ana, "Ana", ["random"], target=9)
    live = ana.locator("#announce")
    expect(live).to_have_attribute("aria-live", "polite")
    ana.click("#start-go")
    # The bot moves first: it draws and ends its turn.
    expect(live).to_contain_text("Bot 2 drew a card and ended the turn.")
    ana.locator('#hand [data-card="8H"]').click()
    ana.locator('#board [data-pile="N"].legal').click()
    expect(live).to_have_text(re.compile("Ana played 8\u2665\ufe0e? on N"))
