"""Tips on a phone (issue 47): they open at their top, not scrolled to the Close button, and
list no keyboard keys (a phone has none at the table); a desktop still lists them."""

from __future__ import annotations

from playwright.sync_api import expect

from .conftest import Pages

SCROLLED = """() => Math.max(document.querySelector("#tips-dialog").scrollTop,
  ...[...document.querySelectorAll("#tips-dialog .tips-box")].map((b) => b.scrollTop))"""


def test_tips_open_at_their_top_without_keys_on_a_phone(pages: Pages) -> None:
    phone = pages.open("tips-phone", phone=True, viewport={"width": 375, "height": 667})
    phone.set_viewport_size({"width": 375, "height": 667})
    phone.click("#tips-lobby")
    expect(phone.locator("#tips-dialog")).to_be_visible()
    expect(phone.locator("#tips-close")).to_be_focused()
    expect(phone.locator("#keys-list")).to_be_hidden()
    assert phone.evaluate(SCROLLED) == 0
    desk = pages.open("tips-desk")
    desk.click("#tips-lobby")
    expect(desk.locator("#keys-list")).to_be_visible()
