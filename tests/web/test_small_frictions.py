"""The small frictions, in Chromium: the away bar covers no plate, the waiting room offers to
fill empty seats only when one is, the result's names and cards stay on one line on a
phone, a seat taken over by another tab stops the first one's table, a sound switch out of
the tips, a Copy button for the recovery code."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Page, expect

from .conftest import DESKTOP, PHONE, Pages, Shot
from .helpers import create_room, stack_the_deck, storage_item
from .test_table_motion import RUN, TWO_SEATS

BOXES = """(selector) => [...document.querySelectorAll(selector)]
  .filter((node) => node.getClientRects().length)
  .map((node) => {
    const r = node.getBoundingClientRect();
    return { x: r.left, y: r.top, w: r.width, h: r.height, id: node.id || node.dataset.seat };
  })"""


def boxes(page: Page, selector: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate(BOXES, selector)
    return found


def meet(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["x"] < b["x"] + b["w"]
        and b["x"] < a["x"] + a["w"]
        and a["y"] < b["y"] + b["h"]
        and (b["y"] < a["y"] + a["h"])
    )


def start_two_seats(page: Page) -> str:
    code = create_room(page, "Ana", ["easy"], target=25)
    page.click("#start-go")
    expect(page.locator("#hand .card-btn")).to_have_count(7)
    return code


def settle(page: Page, size: dict[str, int]) -> None:
    page.set_viewport_size(size)  # type: ignore[arg-type]
    page.wait_for_function(
        "([w, h]) => innerWidth === w && innerHeight === h", arg=[size["width"], size["height"]]
    )
    page.evaluate(
        "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
    )
    page.evaluate("window.scrollTo(0, 0)")


def test_the_away_bar_is_a_row_of_the_table(pages: Pages, shot: Shot) -> None:
    page = pages.open("away", setup=lambda p: stack_the_deck(p, [TWO_SEATS], dealer=1))
    start_two_seats(page)
    page.evaluate(
        """async () => {
          const { S, render } = await import("/state.js");
          S.doc.room.seats[S.seat].away = true;
          render();
        }"""
    )
    expect(page.locator("#away-bar")).to_be_visible()
    for size, name in (
        (DESKTOP, "desktop"),
        (PHONE, "phone"),
        ({"width": 844, "height": 390}, "side"),
    ):
        settle(page, size)
        [bar] = boxes(page, "#away-bar")
        others = boxes(page, "#felt .plate") + boxes(page, "#hand .card-btn")
        others += boxes(page, "#board .pile") + boxes(page, "#end-turn")
        assert len(boxes(page, "#felt .plate")) == 2
        for other in others:
            assert not meet(bar, other), (name, bar, other)
        assert bar["y"] + bar["h"] <= size["height"], (name, bar)
        shot(page, f"away-bar-{name}")


def test_the_waiting_room_fills_empty_seats_only_when_one_is(pages: Pages) -> None:
    page = pages.open("fill")
    create_room(page, "Ana", ["easy"], target=25)
    expect(page.locator("#fill-field")).to_be_hidden()  # every seat is taken
    page.click("#leave")
    create_room(page, "Ana", ["open"], target=25)
    expect(page.locator("#fill-field")).to_be_visible()
    texts = page.locator("#start-fill option").all_inner_texts()
    assert "bots: hard (≈ regular player)" in texts, texts
    for text in texts:
        assert not re.search(r"\([^)]*\(", text), text  # no brackets inside brackets
    page.click('#wait-seats [data-seat="1"] button')  # the host adds a bot
    expect(page.locator('#wait-seats [data-seat="1"]')).to_contain_text("Bot 2")
    expect(page.locator("#fill-field")).to_be_hidden()


def test_the_result_keeps_names_and_cards_on_one_line(pages: Pages, shot: Shot) -> None:
    page = pages.open("result", phone=True, setup=lambda p: stack_the_deck(p, [TWO_SEATS], 1))
    page.fill("#name", "Anastasia Longname")
    page.select_option("#opt-seats", "2")
    page.select_option("#seat-opt-1", "easy")
    page.click("#create-go")
    page.click("#start-go")
    for card in RUN:  # Ana's hand is one run onto N: she goes out
        page.click(f'#hand [data-card="{card}"]')
        page.click('#board [data-pile="N"]')
    expect(page.locator("#overlay")).to_be_visible()
    rows: list[dict[str, Any]] = page.evaluate(
        """() => [...document.querySelectorAll("#result-table tbody tr")].map((row) => {
          const words = document.createRange();
          words.selectNodeContents(row.querySelector("th"));
          const lines = new Set([...words.getClientRects()].map((r) => Math.round(r.top)));
          const tops = [...row.querySelectorAll(".left-cards .card")].map(
            (card) => card.getBoundingClientRect().top
          );
          return { lines: lines.size, tops };
        })"""
    )
    assert len(rows) == 2
    for row in rows:
        assert row["lines"] == 1, row  # the name on one line
        assert len(set(round(top) for top in row["tops"])) <= 1, row  # the cards in one line
    assert len(rows[1]["tops"]) == 7
    shot(page, "result-one-line-phone")


def test_a_seat_taken_by_another_tab_stops_the_first_one(pages: Pages, shot: Shot) -> None:
    first = pages.open("first tab")
    code = start_two_seats(first)
    # The same browser opens the room's link in a second tab: it takes the seat back.
    second = first.context.new_page()
    pages.watch(second, "second tab")
    second.goto(f"{pages.base_url}?room={code}")
    expect(second.locator("#hand .card-btn")).to_have_count(7)
    elsewhere = first.locator("#elsewhere")
    expect(elsewhere).to_be_visible()
    expect(elsewhere).to_contain_text("This seat is open in another tab")
    expect(first.locator("#table")).to_be_hidden()
    expect(first.locator("#panel")).to_be_hidden()
    shot(first, "seat-elsewhere")
    # "Play here": the first tab plays again, the second says so.
    first.click("#elsewhere-here")
    expect(first.locator("#table")).to_be_visible()
    expect(second.locator("#elsewhere")).to_be_visible()
    expect(second.locator("#table")).to_be_hidden()


def test_a_sound_switch_in_the_top_bar_and_at_the_table(pages: Pages) -> None:
    page = pages.open("sound switch", setup=lambda p: stack_the_deck(p, [TWO_SEATS], 1))
    switch = page.locator("#sound")
    expect(switch).to_be_visible()
    expect(switch).to_have_attribute("aria-pressed", "false")
    expect(switch).to_have_accessible_name("Sounds")
    switch.click()
    expect(switch).to_have_attribute("aria-pressed", "true")
    assert storage_item(page, "localStorage", "kc.sound") is True
    page.click("#tips-lobby")
    expect(page.locator("#tips-sound")).to_be_checked()  # the tips' switch says the same
    page.keyboard.press("Escape")
    start_two_seats(page)
    # At the table the switch sits by the "?", the top bar's gives way to it.
    table = page.locator("#sound-table")
    expect(table).to_be_visible()
    expect(switch).to_be_hidden()
    expect(table).to_have_attribute("aria-pressed", "true")
    table.click()
    expect(table).to_have_attribute("aria-pressed", "false")
    assert storage_item(page, "localStorage", "kc.sound") is False


def test_the_recovery_code_has_a_copy_button(pages: Pages) -> None:
    page = pages.open("copy code", clipboard=True)
    page.click("#me-code")
    box = page.locator("#me-code-box")
    expect(box).to_contain_text("Your recovery code: ")
    found = re.search(r"[A-Z0-9]{4}(?:-[A-Z0-9]{4}){3}", box.inner_text())
    assert found is not None
    page.click("#me-code-copy")
    expect(page.locator(".toast.info").last).to_have_text("Recovery code copied.")
    assert page.evaluate("navigator.clipboard.readText()") == found.group(0)
