"""The table by keyboard, in Chromium: the piles and the hand are one Tab stop each, arrows
move inside them, a card chosen with Enter takes focus to the pile it fits, playing brings
focus back to the hand, Escape lets go, and every stop shows where the focus is."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from .conftest import Pages, Shot
from .test_table_motion import TWO_SEATS, Wire, start_solo_game

ACTIVE = """() => {
  const el = document.activeElement;
  return {
    card: el.dataset.card || null,
    pile: el.dataset.pile || null,
    id: el.id || null,
    inHand: Boolean(el.closest("#hand")),
    inBoard: Boolean(el.closest("#board")),
  };
}"""

# How the focused element shows its focus: an outline or a ring drawn with box-shadow, on
# itself or on its card.
FOCUS_RING = """() => {
  const el = document.activeElement;
  const seen = (node) => {
    const style = getComputedStyle(node);
    const outline = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2;
    return outline || style.boxShadow !== "none";
  };
  const card = el.querySelector(".card");
  return { visible: el.matches(":focus-visible"), ring: seen(el) || (card !== null && seen(card)) };
}"""


def active(page: Page) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(ACTIVE)
    return found


def assert_focus_ring(page: Page) -> None:
    ring: dict[str, bool] = page.evaluate(FOCUS_RING)
    assert ring == {"visible": True, "ring": True}, (active(page), ring)


def stops(page: Page, box: str) -> int:
    count: int = page.locator(f"#{box} button:not([disabled])").evaluate_all(
        "bs => bs.filter(b => b.tabIndex === 0).length"
    )
    return count


def test_the_table_by_keyboard(pages: Pages, shot: Shot) -> None:
    page = pages.open("keys", setup=lambda page: Wire(page, [TWO_SEATS], dealer=1) and None)
    start_solo_game(page)
    expect(page.locator("#end-turn")).to_be_enabled()
    assert stops(page, "hand") == 1 and stops(page, "board") == 1

    # Into the hand from the button before the table's controls: one Tab stop for 7 cards.
    page.locator("#hand .card-btn[tabindex='0']").focus()
    page.keyboard.press("Home")
    first = active(page)
    assert first["inHand"], first
    assert_focus_ring(page)
    # The piles are one Shift+Tab away, and Tab comes back to the same card.
    page.keyboard.press("Shift+Tab")
    assert active(page)["inBoard"], active(page)
    assert_focus_ring(page)
    page.keyboard.press("Tab")
    assert active(page)["card"] == first["card"]
    page.keyboard.press("Tab")
    assert active(page)["id"] == "sort-hand"
    assert_focus_ring(page)
    page.keyboard.press("Shift+Tab")
    assert active(page)["card"] == first["card"]

    # Arrows walk the hand, each card once, and stop at its ends.
    seen = [first["card"]]
    for _ in range(8):
        page.keyboard.press("ArrowRight")
        seen.append(active(page)["card"])
    assert len(set(seen)) == 7 and seen[-1] == seen[-2], seen
    page.keyboard.press("Home")
    while active(page)["card"] != "8H":
        page.keyboard.press("ArrowRight")

    # Enter chooses 8H: focus goes to N, where it fits; Escape lets go and returns to 8H.
    page.keyboard.press("Enter")
    expect(page.locator('#hand [data-card="8H"]')).to_have_attribute("aria-pressed", "true")
    assert active(page)["pile"] == "N"
    page.keyboard.press("Escape")
    expect(page.locator('#hand [data-card="8H"]')).to_have_attribute("aria-pressed", "false")
    assert active(page)["card"] == "8H"

    # Enter, Enter: 8H is played on N, and the focus is back in the hand.
    page.keyboard.press("Enter")
    assert active(page)["pile"] == "N"
    page.keyboard.press("Enter")
    expect(page.locator('#hand [data-card="8H"]')).to_have_count(0)
    expect(page.locator('#board [data-pile="N"] .stack .top')).to_have_attribute("data-code", "8H")
    assert active(page)["inHand"], active(page)
    assert_focus_ring(page)
    shot(page, "keyboard-after-play")

    # The piles' stop is N now; arrows move over the cross and the corners, around the stock.
    page.keyboard.press("Shift+Tab")
    assert active(page)["pile"] == "N"
    walk = []
    for key in ("ArrowDown", "ArrowLeft", "ArrowUp", "ArrowUp", "ArrowRight", "ArrowRight"):
        page.keyboard.press(key)
        walk.append(active(page)["pile"])
    assert walk == ["S", "SW", "W", "NW", "N", "NE"], walk
    assert stops(page, "board") == 1

    # A pile chosen with Enter takes focus to where it can go: N (8H on 9C) onto E (10D).
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Enter")
    expect(page.locator('#board [data-pile="N"]')).to_have_attribute("aria-pressed", "true")
    assert active(page)["pile"] == "E"
    page.keyboard.press("Enter")
    expect(page.locator('#board [data-pile="N"] .stack .top')).to_have_count(0)
    expect(page.locator('#board [data-pile="E"] .stack .top')).to_have_attribute("data-code", "8H")
    assert active(page)["inHand"], active(page)
