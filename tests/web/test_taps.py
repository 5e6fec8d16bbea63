"""A tap survives a redraw: the table is drawn afresh on every patch, and a patch that comes
between the press and the release of a tap (the answer to the card just played, a bot's
move) replaces the pressed button. The browser sends no click for a press and a release on
different nodes; the client makes the tap itself when both show the same card or pile."""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

from .conftest import Pages
from .helpers import create_room, hand_cards, stack_the_deck, stacked_deck

ANA = ["8H", "7S", "6D", "5C", "4H", "3S", "2D"]
BOT = ["QD", "JD", "8S", "8C", "6C", "5H", "2H"]
DECK = stacked_deck([ANA, BOT], ["9C", "10D", "JH", "7C"], [])

# Draw the page again as a patch does; says whether the button at (x, y) was replaced.
REDRAW = """async ([x, y]) => {
  const pressed = document.elementFromPoint(x, y).closest("[data-card], [data-pile]");
  const { render } = await import("/state.js");
  render();
  return pressed !== null && !pressed.isConnected;
}"""


def centre(target: Locator) -> tuple[float, float]:
    box = target.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def tap_across_a_redraw(page: Page, target: Locator) -> None:
    """Press on ``target``, redraw the table, release there."""
    x, y = centre(target)
    page.mouse.move(x, y)
    page.mouse.down()
    assert page.evaluate(REDRAW, [x, y]), "the redraw kept the pressed button"
    page.mouse.up()


def test_a_tap_across_a_redraw_selects_and_plays(pages: Pages) -> None:
    host = pages.open("taps", setup=lambda page: stack_the_deck(page, [DECK], dealer=1))
    create_room(host, "Ana", ["random"], target=1)
    host.click("#start-go")
    card = host.locator('#hand [data-card="8H"]')
    north = host.locator('#board [data-pile="N"]')
    expect(card).to_have_class(re.compile(r"\bplayable\b"))

    # Pressed and released on 8H: selected once (not selected and at once unselected).
    tap_across_a_redraw(host, card)
    expect(card).to_have_attribute("aria-pressed", "true")
    expect(north).to_have_class(re.compile(r"\blegal\b"))
    host.wait_for_timeout(100)  # a second, late take of the tap would unselect it
    expect(card).to_have_attribute("aria-pressed", "true")

    # The pile the same way: 8H goes onto N's 9C.
    tap_across_a_redraw(host, north)
    expect(card).to_have_count(0)
    assert "8H" not in hand_cards(host)
    expect(host.locator("#log li").last).to_contain_text("played 8")

    # A plain click still selects once.
    host.locator('#hand [data-card="7S"]').click()
    expect(host.locator('#hand [data-card="7S"]')).to_have_attribute("aria-pressed", "true")
    expect(north).to_have_class(re.compile(r"\blegal\b"))
