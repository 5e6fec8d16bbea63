"""Two new people at one table can tell each other apart (issue 47): a first visitor goes by
a friendly name drawn once for the browser, not "Player"; and where two seats share a name,
the plates, the log, the waiting room and the result show each with their tag."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from clients.i18n import texts

from .conftest import Pages
from .helpers import end_turn, storage_item, wait_for_mover

TAGGED = re.compile(r"^Otter#[0-9A-HJKMNP-TV-Z]{4,5}$")


def as_otter(page: Page) -> None:
    """A browser whose drawn name is Otter (as two new friends' could both be)."""
    page.add_init_script("localStorage.setItem('kc.default_name', JSON.stringify('Otter'))")


def test_a_first_visitor_goes_by_a_friendly_name_kept_for_the_browser(pages: Pages) -> None:
    page = pages.open("fresh")
    field = page.locator("#name")
    expect(field).to_have_value("")
    drawn = field.get_attribute("placeholder")
    assert drawn and drawn != "Player"
    assert drawn in [w.strip() for w in texts("en")["lobby.default_names"].split(",")]
    page.click("#create-go")
    expect(page.locator('#wait-seats li[data-seat="0"] .seat-name')).to_have_text(drawn)
    assert storage_item(page, "localStorage", "kc.default_name") == drawn


def test_two_new_people_of_one_name_are_told_apart_everywhere(pages: Pages) -> None:
    ana = pages.open("otter-a", setup=as_otter)
    ana.select_option("#opt-seats", "3")
    ana.select_option("#seat-opt-1", "open")
    ana.select_option("#seat-opt-2", "random")
    ana.fill("#opt-target", "1")
    ana.click("#create-go")
    expect(ana.locator("#waiting")).to_be_visible()
    code = ana.locator("#share-code").inner_text()
    ben = pages.open("otter-b", setup=as_otter, path=f"/?room={code}")
    ben.click("#invite-join")
    expect(ben.locator("#waiting")).to_be_visible()
    seats = ana.locator("#wait-seats .seat-name")
    expect(seats.nth(1)).to_have_text(TAGGED)
    first, second = seats.nth(0).inner_text(), seats.nth(1).inner_text()
    assert TAGGED.match(first) and first != second
    expect(ben.locator("#wait-seats .seat-name").nth(0)).to_have_text(first)
    expect(ben.locator("#wait-ready")).to_contain_text(second)
    ben.click("#ready-btn")
    ana.click("#start-go")
    for page, mine, other in ((ana, first, second), (ben, second, first)):
        expect(page.locator("#table")).to_be_visible()
        plates = page.locator("#felt .plate .pname")
        expect(plates.filter(has_text=other)).to_have_count(1)
        expect(plates.filter(has_text=mine)).to_have_count(1)
    # The log names each mover by name and tag, on both pages.
    mover = wait_for_mover([ana, ben])
    assert mover is not None
    end_turn(mover)
    for page in (ana, ben):
        moves = page.locator("#log li", has_text=re.compile(r"Otter#\w+ drew"))
        expect(moves.first).to_be_attached()
        assert page.locator("#log li", has_text=re.compile(r"Otter drew")).count() == 0
