"""The phone's rough edges of issue 47: names on the plates (with a turn timer too), the
match result's Rating column, the provisional players' big moves explained where the number
is, at 390x844 and 375x667; screenshots of each in test-artifacts/web."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .conftest import Pages, Shot
from .helpers import play_until_over, resize, rewrite_create

SMALL = {"width": 375, "height": 667}
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}

CUT = """(sel) => [...document.querySelectorAll(sel)]
  .filter((n) => n.getClientRects().length)
  .map((n) => ({ text: n.textContent, cut: n.scrollWidth > n.clientWidth + 1,
                 width: n.getBoundingClientRect().width }))"""

OVERFLOW = """() => {
  const dialog = document.querySelector("#overlay .dialog");
  const table = document.querySelector("#result-table");
  const d = dialog.getBoundingClientRect();
  const cells = [...table.querySelectorAll("th, td")].map((c) => c.getBoundingClientRect());
  return { right: Math.max(...cells.map((c) => c.right)), dialogRight: d.right,
           viewport: innerWidth, scroll: table.scrollWidth - table.clientWidth };
}"""


def table_with_bots(
    pages: Pages, label: str, name: str, level: str = "random", **options: Any
) -> Page:
    page = pages.open(label, phone=True, setup=lambda p: rewrite_create(p, **options))
    page.fill("#name", name)
    page.select_option("#opt-seats", "4")
    for i in (1, 2, 3):
        page.select_option(f"#seat-opt-{i}", level)
    page.fill("#opt-target", "1")
    page.click("#create-go")
    page.click("#start-go")
    expect(page.locator("#table")).to_be_visible()
    return page


@pytest.mark.parametrize("size", [PHONE, SMALL], ids=["390", "375"])
def test_phone_plates_show_whole_names_with_a_turn_timer(
    pages: Pages, shot: Shot, size: dict[str, int]
) -> None:
    page = table_with_bots(pages, "plates", "Beatrix", turn_timer=60)
    resize(page, size)
    expect(page.locator("#end-turn")).to_be_enabled()
    shot(page, f"47-phone-plates-timer-{size['width']}")
    expect(page.locator("#table .plate .clock")).to_have_count(1)
    plates = page.evaluate(CUT, "#table .plate .pname")
    assert len(plates) == 4
    for plate in plates:
        assert plate["text"] and not plate["cut"], plates
        assert plate["width"] >= 24, plates


@pytest.mark.parametrize("size", [PHONE, SMALL, DESKTOP], ids=["390", "375", "desktop"])
def test_the_match_result_shows_every_column_and_explains_provisional_moves(
    pages: Pages, shot: Shot, size: dict[str, int]
) -> None:
    page = table_with_bots(pages, "result", "Beatrix", level="easy")
    play_until_over(page)
    expect(page.locator("#result-title")).to_have_text("Match over")
    expect(page.locator("#result-table th", has_text="Rating")).to_have_count(1)
    resize(page, size)
    shot(page, f"47-result-{size['width']}")
    box = page.evaluate(OVERFLOW)
    assert box["right"] <= box["dialogRight"] + 0.5 and box["scroll"] <= 0, box
    assert box["right"] <= box["viewport"], box
    mine = page.locator("#result-table tr.mine")
    # A new player is provisional: the line under the number says why it moved so much.
    expect(mine.locator(".rating-why")).to_contain_text("provisional")


SAMPLE_FLIGHTS_OVER_RESULT = """() => {
  window.__over = 0;
  const look = () => {
    const overlay = document.getElementById("overlay");
    if (overlay && !overlay.hidden && document.querySelector(".flight")) window.__over += 1;
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
}"""


def test_no_card_in_flight_is_drawn_over_the_result(pages: Pages) -> None:
    """With motion on, the last moves of a hand fly while its result comes up: the cards
    still in the air land at once, never drawn over the dialog."""
    context = pages.browser.new_context(
        viewport=DESKTOP, locale="en-US", reduced_motion="no-preference"
    )
    pages.contexts.append(context)
    page = context.new_page()
    pages.watch(page, "flights")
    page.add_init_script(f"addEventListener('load', {SAMPLE_FLIGHTS_OVER_RESULT})")
    page.goto(pages.base_url)
    page.fill("#name", "Beatrix")
    page.select_option("#seat-opt-1", "random")
    page.fill("#opt-target", "1")
    page.click("#create-go")
    page.click("#start-go")
    play_until_over(page)
    expect(page.locator("#result-title")).to_have_text("Match over")
    page.wait_for_timeout(600)
    assert page.evaluate("window.__over") == 0
