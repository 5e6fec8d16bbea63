"""The keyboard across hands (issue 47): when a new hand is dealt and the turn is yours, the
focus is on the first card of your hand, wherever it was when the last hand ended (the
result's "Next hand", a pile, nowhere), unless you are typing in the chat; and after H
shows a hint, Enter on the focused card still acts on it."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from .conftest import Pages, Shot
from .helpers import create_room, resize, rewrite_create
from .test_replay import HAND_ONE, HAND_TWO, RUN

# Where the focus is, and the hand's first card.
FOCUS = """() => {
  const el = document.activeElement;
  const first = document.querySelector("#hand .card-btn");
  return {
    card: (el && el.dataset.card) || null,
    pile: (el && el.dataset.pile) || null,
    id: (el && el.id) || null,
    tag: el ? el.tagName : null,
    first: first ? first.dataset.card : null,
  };
}"""


class Deals:
    """The page's WebSocket with stacked decks and a dealer added to its ``create``; the
    test can also speak to the server as the page (``to_server``)."""

    def __init__(self, page: Page, decks: list[list[str]], dealer: int) -> None:
        self.servers: list[WebSocketRoute] = []
        rewrite_create(page, servers=self.servers, decks=decks, dealer=dealer)

    def to_server(self, frame: dict[str, Any]) -> None:
        self.servers[-1].send(json.dumps(frame))


def focus(page: Page) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(FOCUS)
    return found


def start(pages: Pages, label: str, decks: list[list[str]], dealer: int) -> tuple[Page, Deals]:
    holder: list[Deals] = []
    page = pages.open(label, setup=lambda p: holder.append(Deals(p, decks, dealer)))
    create_room(page, "Ana", ["random"], target=50)
    page.click("#start-go")
    expect(page.locator("#table")).to_be_visible()
    expect(page.locator("#end-turn")).to_be_enabled()
    return page, holder[0]


def play_the_run_by_keyboard(page: Page) -> None:
    """Ana's run onto N by keyboard: Enter on each card, Enter on the pile it goes to. The
    last card played leaves the focus on N (the hand is empty) as the hand ends."""
    for card in RUN:
        page.locator(f'#hand [data-card="{card}"]').focus()
        page.keyboard.press("Enter")
        expect(page.locator(f'#hand [data-card="{card}"]')).to_have_attribute(
            "aria-pressed", "true"
        )
        assert focus(page)["pile"] == "N", focus(page)
        page.keyboard.press("Enter")
        expect(page.locator(f'#hand [data-card="{card}"]')).to_have_count(0)
    expect(page.locator("#result-title")).to_have_text("Hand 1 is over")


def wait_for_hand_two(page: Page) -> None:
    expect(page.locator("#bar-hand")).to_contain_text("Hand 2")
    expect(page.locator("#end-turn")).to_be_enabled()
    expect(page.locator("#hand .card-btn")).to_have_count(7)


def assert_on_first_card(page: Page) -> None:
    """The focus comes to the hand's first card (not the one focused in the last hand, not
    a pile, not the page), and Enter there chooses that card."""
    page.wait_for_function("() => Boolean(document.activeElement.closest('#hand .card-btn'))")
    where = focus(page)
    assert where["card"] == where["first"], where
    page.keyboard.press("Enter")
    chosen = page.locator(f'#hand [data-card="{where["first"]}"]')
    expect(chosen).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("Escape")
    expect(chosen).to_have_attribute("aria-pressed", "false")


@pytest.mark.parametrize(
    ("decks", "dealer"),
    [([HAND_ONE, HAND_TWO], 0), ([HAND_TWO, HAND_ONE], 1)],
    ids=["you-move-first", "the-bot-moves-first"],
)
def test_next_hand_by_keyboard_puts_the_focus_on_your_first_card(
    pages: Pages, shot: Shot, decks: list[list[str]], dealer: int
) -> None:
    page, _ = start(pages, "next hand keys", decks, dealer)
    play_the_run_by_keyboard(page)
    expect(page.locator("#next-hand")).to_be_focused()
    page.keyboard.press("Enter")  # "Next hand"
    expect(page.locator("#overlay")).to_be_hidden()
    wait_for_hand_two(page)
    assert_on_first_card(page)
    name = f"47-new-hand-focus-{'first' if dealer == 0 else 'second'}"
    shot(page, name)
    for size in ({"width": 375, "height": 667}, {"width": 390, "height": 844}):
        resize(page, size)
        assert focus(page)["card"] == focus(page)["first"], (size, focus(page))
        shot(page, f"{name}-{size['width']}x{size['height']}")


def test_a_new_hand_takes_the_focus_from_a_pile_to_your_first_card(pages: Pages) -> None:
    page, deals = start(pages, "pile to hand", [HAND_ONE, HAND_TWO], 0)
    play_the_run_by_keyboard(page)
    # The result put aside (Escape), the focus on a pile; then the next hand comes (as it
    # does by itself after the pause, or when another player asks for it).
    page.keyboard.press("Escape")
    expect(page.locator("#overlay")).to_be_hidden()
    page.locator('#board [data-pile="E"]').focus()
    deals.to_server({"type": "next_hand"})
    wait_for_hand_two(page)
    assert_on_first_card(page)


def test_a_new_hand_leaves_the_focus_in_the_chat(pages: Pages) -> None:
    page, deals = start(pages, "chat stays", [HAND_ONE, HAND_TWO], 0)
    play_the_run_by_keyboard(page)
    page.keyboard.press("Escape")
    page.click("#tab-chat")
    page.focus("#chat-text")
    page.keyboard.type("gg")
    deals.to_server({"type": "next_hand"})
    wait_for_hand_two(page)
    page.wait_for_timeout(300)  # a focus that moved would have moved by now
    expect(page.locator("#chat-text")).to_be_focused()
    page.keyboard.type(" wp")
    expect(page.locator("#chat-text")).to_have_value("gg wp")


def test_enter_acts_on_the_focused_card_after_a_hint(pages: Pages, shot: Shot) -> None:
    # Hand 2 of HAND_TWO's deal: Ana moves first, her hand one run onto N's 9C.
    page, _ = start(pages, "hint then enter", [HAND_TWO], 1)
    page.wait_for_function("() => Boolean(document.activeElement.closest('#hand .card-btn'))")
    page.keyboard.press("h")
    expect(page.locator("#status")).to_contain_text("Hint:")
    hinted = page.locator("#hand .card-btn.selected")
    expect(hinted).to_have_count(1)
    card = hinted.get_attribute("data-card")
    # Walk to the hinted card with the arrows (the hint stays), as a player would, and press
    # Enter there: the card stays chosen and the focus goes to the hint's pile.
    page.keyboard.press("Home")
    for _ in range(8):
        if focus(page)["card"] == card:
            break
        page.keyboard.press("ArrowRight")
    assert focus(page)["card"] == card, focus(page)
    expect(hinted).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("Enter")
    chosen = page.locator(f'#hand [data-card="{card}"]')
    expect(chosen).to_have_attribute("aria-pressed", "true")
    target = focus(page)["pile"]
    assert target is not None, focus(page)
    expect(page.locator(f'#board [data-pile="{target}"]')).to_have_class(re.compile(r"\blegal\b"))
    shot(page, "47-hint-then-enter")
    page.keyboard.press("Enter")
    expect(chosen).to_have_count(0)
    expect(page.locator(f'#board [data-pile="{target}"] .stack .top')).to_have_attribute(
        "data-code", card or ""
    )
    page.wait_for_function("() => Boolean(document.activeElement.closest('#hand .card-btn'))")

    # H again, then Enter on another card than the hinted one: that card is chosen instead.
    page.keyboard.press("h")
    expect(page.locator("#status")).to_contain_text("Hint:")
    hinted_now = page.locator("#hand .card-btn.selected").get_attribute("data-card")
    page.keyboard.press("Home")
    if focus(page)["card"] == hinted_now:
        page.keyboard.press("ArrowRight")
    other = focus(page)["card"]
    assert other and other != hinted_now, (other, hinted_now)
    page.keyboard.press("Enter")
    expect(page.locator(f'#hand [data-card="{other}"]')).to_have_attribute("aria-pressed", "true")
    if hinted_now:
        expect(page.locator(f'#hand [data-card="{hinted_now}"]')).to_have_attribute(
            "aria-pressed", "false"
        )
