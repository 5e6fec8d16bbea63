"""The hand on a phone (issue 47), in Chromium: a lifted (selected) card covers no rank or
suit of the cards beside it (or above and below it, when the hand is in rows), at 375x667
and 390x844; and a hand too wide for the screen says so on the side that has more of it,
with how many cards are out of view (shown, and said to a screen reader), never when the
hand fits. Screenshots in test-artifacts/web."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from protocol.engine import DECK
from protocol.messages import RoomOptions
from server.room import Room, bot_seat_event, create_event

from .conftest import Pages, Shot
from .helpers import create_room, resize, rewrite_create
from .test_accessibility import AXE, AXE_OPTIONS

# The arrows the cue shows beside its count.
LEFT, RIGHT = "\u2039", "\u203a"
SMALL = {"width": 375, "height": 667}
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


def table_doc(code: str, size: int) -> dict[str, Any]:
    """Ana's view (seat 0, her turn) of a two-seat table, her hand made ``size`` cards."""
    room = Room(create_event(code, RoomOptions(seats=2, dealer=1, target=50)))
    room.apply({"e": "sit", "seat": 0, "name": "Ana", "kind": "human", "token": "h"})
    room.apply({"e": "presence", "seat": 0, "connected": True})
    room.apply(bot_seat_event(1, "easy"))
    room.apply({"e": "start", "seed": "big hand"})
    doc = room.doc(0)
    game = doc["game"]
    on_table = {card for cards in game["piles"].values() for card in cards}
    hand = list(game["hand"])
    hand += [card for card in DECK if card not in on_table and card not in hand]
    game["hand"] = hand[:size]
    game["counts"][0] = size
    return doc


def table_with(pages: Pages, label: str, size: int) -> Page:
    """A phone at a table where Ana holds ``size`` cards: her room is made on the server
    (and left waiting, so its connection stays idle), the table is sent as a snapshot."""
    held: dict[str, list[WebSocketRoute]] = {}
    page = pages.open(label, phone=True, setup=lambda p: held.update(routes=rewrite_create(p)))
    code = create_room(page, "Ana", ["easy"], target=50)
    frame = {"type": "snapshot", "room": code, "version": 1000, "doc": table_doc(code, size)}
    held["routes"][-1].send(json.dumps(frame))
    expect(page.locator("#hand .card-btn")).to_have_count(size)
    return page


# --- a lifted card -----------------------------------------------------------------------------

# Each card of the hand: its row and column (by where it lies), and whether a tap at the
# centre of its top left rank, and of the suit under it, reaches that card.
CORNERS = """() => {
  const buttons = [...document.querySelectorAll("#hand .card-btn")];
  const tops = [...new Set(buttons.map((b) => b.offsetTop))].sort((a, b) => a - b);
  const reaches = (button, part) => {
    const r = button.querySelector(`.idx.tl ${part}`).getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return Boolean(hit) && hit.closest(".card-btn") === button;
  };
  return buttons.map((button, k) => ({
    k,
    card: button.dataset.card,
    row: tops.indexOf(button.offsetTop),
    left: button.offsetLeft,
    top: button.querySelector(".card").getBoundingClientRect().top,
    selected: button.classList.contains("selected"),
    rank: reaches(button, ".rank"),
    suit: reaches(button, ".suit"),
  }));
}"""


def corners(page: Page) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate(CORNERS)
    return found


def neighbours(cards: list[dict[str, Any]], chosen: dict[str, Any]) -> list[dict[str, Any]]:
    """The cards beside ``chosen`` in its row, and those of the rows above and below it
    that it overlaps (their left edges within a card's width of its own)."""
    row = [c for c in cards if c["row"] == chosen["row"]]
    at = row.index(chosen)
    beside = row[max(0, at - 1) : at] + row[at + 1 : at + 2]
    step = row[1]["left"] - row[0]["left"] if len(row) > 1 else 60
    near = [
        c
        for c in cards
        if abs(c["row"] - chosen["row"]) == 1 and abs(c["left"] - chosen["left"]) <= 2 * step
    ]
    return beside + near


@pytest.mark.parametrize(
    ("size", "held"),
    [(SMALL, 12), (PHONE, 12), (DESKTOP, 24)],
    ids=["375x667", "390x844", "desktop"],
)
def test_a_lifted_card_covers_no_rank_or_suit_beside_it(
    pages: Pages, shot: Shot, size: dict[str, int], held: int
) -> None:
    page = table_with(pages, "lifted", held)
    resize(page, size)
    page.evaluate("window.scrollTo(0, 0)")
    before = corners(page)
    rows = max(c["row"] for c in before) + 1
    assert rows == 2, before  # two rows that overlap, their cards overlapping too
    # A card inside the first row, one inside the last (a row lies over it), the last card.
    last_row = [c["k"] for c in before if c["row"] == rows - 1]
    picks = [2, last_row[len(last_row) // 2], len(before) - 1]
    for k in picks:
        button = page.locator("#hand .card-btn").nth(k)
        button.click()
        expect(button).to_have_attribute("aria-pressed", "true")
        cards = corners(page)
        chosen = cards[k]
        assert chosen["selected"], chosen
        # It rises (less than before when a row lies over it), and its own corner shows.
        assert chosen["top"] <= before[k]["top"] - 4, (chosen, before[k])
        assert chosen["rank"] and chosen["suit"], chosen
        near = neighbours(cards, chosen)
        assert near, (k, cards)
        for card in near:
            assert card["rank"] and card["suit"], (size, "selected", chosen["card"], card)
        # And every other card's corner still reads.
        assert all(c["rank"] and c["suit"] for c in cards), (size, chosen["card"], cards)
        if k == picks[1]:
            shot(page, f"47-lifted-{size['width']}x{size['height']}")
        page.keyboard.press("Escape")
        expect(button).to_have_attribute("aria-pressed", "false")


# --- a hand wider than the screen ------------------------------------------------------------

CUE = """() => {
  const seen = (id) => {
    const node = document.getElementById(id);
    return Boolean(node) && node.getClientRects().length > 0 &&
      getComputedStyle(node).visibility !== "hidden";
  };
  const hand = document.getElementById("hand");
  return {
    left: seen("hand-more-left"),
    right: seen("hand-more-right"),
    leftText: document.querySelector("#hand-more-left .more-pill").textContent,
    rightText: document.querySelector("#hand-more-right .more-pill").textContent,
    said: seen("hand-more") ? document.getElementById("hand-more-text").textContent : "",
    scrolls: hand.scrollWidth - hand.clientWidth,
    at: hand.scrollLeft,
  };
}"""

# How many cards of the hand lie with their top left corner outside its visible part.
OUT_OF_VIEW = """() => {
  const hand = document.getElementById("hand");
  const box = hand.getBoundingClientRect();
  const left = box.left + hand.clientLeft;
  const right = left + hand.clientWidth;
  return [...hand.querySelectorAll(".card-btn .idx.tl")]
    .map((corner) => corner.getBoundingClientRect())
    .filter((r) => r.left < left - 1 || r.right > right + 1).length;
}"""


def cue(page: Page) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(CUE)
    return found


def scroll_hand(page: Page, to: str) -> None:
    page.evaluate(
        "(to) => { const h = document.getElementById('hand');"
        " h.scrollLeft = to === 'end' ? h.scrollWidth : 0; }",
        to,
    )
    # The cue follows the hand's scroll event.
    page.evaluate(
        "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
    )


def test_a_hand_too_wide_says_which_side_has_more(pages: Pages, shot: Shot) -> None:
    page = table_with(pages, "more cards", 24)
    resize(page, SMALL)
    page.evaluate("window.scrollTo(0, 0)")
    start = cue(page)
    assert start["scrolls"] > 0, start  # 24 cards at 375x667: the hand scrolls sideways
    assert start["right"] and not start["left"], start
    assert RIGHT in start["rightText"], start
    shot(page, "47-more-cards-375x667-start")

    # Scrolled to the end: nothing more to the right; the left has more now.
    scroll_hand(page, "end")
    end = cue(page)
    assert end["at"] >= end["scrolls"] - 1, end
    assert not end["right"] and end["left"], end
    assert LEFT in end["leftText"], end
    shot(page, "47-more-cards-375x667-end")

    # A tap on a card keeps the hand where it was scrolled to, and the cue with it.
    last = page.locator("#hand .card-btn").nth(7)
    last.click()
    expect(last).to_have_attribute("aria-pressed", "true")
    tapped = cue(page)
    assert tapped["at"] == end["at"] and not tapped["right"] and tapped["left"], tapped
    page.keyboard.press("Escape")

    # Where all 24 fit (a taller phone, the desktop), no cue at all.
    for size in (PHONE, DESKTOP):
        resize(page, size)
        fits = cue(page)
        assert fits["scrolls"] <= 1, (size, fits)
        assert not fits["left"] and not fits["right"] and not fits["said"], (size, fits)
    resize(page, PHONE)
    shot(page, "47-more-cards-390x844-fits")
    resize(page, DESKTOP)
    shot(page, "47-more-cards-desktop-fits")


def test_the_cue_counts_the_cards_out_of_view(pages: Pages, shot: Shot) -> None:
    page = table_with(pages, "out of view", 36)
    resize(page, SMALL)
    page.evaluate("window.scrollTo(0, 0)")
    start = cue(page)
    out = page.evaluate(OUT_OF_VIEW)
    assert out > 0 and start["right"] and not start["left"], (out, start)
    # Shown in numbers beside the arrow (not only a shade), and said to a screen reader.
    assert start["rightText"] == f"+{out} {RIGHT}", (out, start)
    assert start["said"] == (
        f"{out} of your 36 cards are out of view: scroll your hand sideways to see them."
    ), start
    shot(page, "47-more-cards-36-375x667")
    scroll_hand(page, "end")
    end = cue(page)
    out = page.evaluate(OUT_OF_VIEW)
    assert end["left"] and not end["right"] and end["leftText"] == f"{LEFT} +{out}", (out, end)


def test_axe_finds_nothing_serious_with_a_card_lifted_and_the_cue_shown(pages: Pages) -> None:
    page = table_with(pages, "axe cue", 24)
    resize(page, SMALL)
    page.locator("#hand .card-btn").nth(9).click()
    scroll_hand(page, "end")
    shown = cue(page)
    assert shown["left"] and shown["said"], shown
    results: dict[str, Any] = AXE.run(page, options=AXE_OPTIONS).response
    found = [
        (v["id"], [node["target"] for node in v["nodes"]][:5])
        for v in results["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert found == []
