"""Names and chat lines are text, everywhere the client shows them: a player named like an
HTML tag and a chat line holding a script run nothing and read literally. (Names are at
most 24 characters, so the name is ``<svg onload=alert(1)>``, which runs at once if parsed;
the chat line carries ``<script>alert(1)</script>``.) The page has every language's texts."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from clients.i18n import CATALOGUES, LANGUAGES, PYTHON_ONLY

from .conftest import Pages
from .helpers import create_room, stack_the_deck, stacked_deck

NAME = "<svg onload=alert(1)>"
CHAT = "<script>alert(1)</script><img src=x onerror=alert(2)>"
# The bot deals; the name's run onto N's 9C empties the hand at once (target 1: match over).
RUN = ["8H", "7S", "6D", "5C", "4H", "3S", "2D"]
BOT = ["QD", "JD", "8S", "8C", "6C", "5H", "2H"]
DECK = stacked_deck([RUN, BOT], ["9C", "10D", "JH", "7C"], [])

INJECTED = """() => ({
  handlers: document.querySelectorAll("[onload], [onerror], [onclick]").length,
  images: document.querySelectorAll("img").length,
  scripts: [...document.scripts].map((s) => s.getAttribute("src")),
  svgs: [...document.querySelectorAll("svg")].filter((s) => s.hasAttribute("onload")).length,
})"""


def assert_nothing_injected(page: Page) -> None:
    found = page.evaluate(INJECTED)
    assert found == {"handlers": 0, "images": 0, "scripts": ["app.js"], "svgs": 0}, found


def test_names_and_chat_lines_are_shown_as_text(pages: Pages) -> None:
    host = pages.open("tag-name", setup=lambda page: stack_the_deck(page, [DECK], dealer=1))
    code = create_room(host, NAME, ["random"], target=1)
    expect(host.locator('#wait-seats li[data-seat="0"] .seat-name')).to_have_text(NAME)

    # A spectator arrives by the link and reads the same.
    watcher = pages.open("watcher", phone=True, path=f"/?room={code}")
    watcher.fill("#name", "Watcher")
    watcher.click("#invite-watch")
    expect(watcher.locator('#wait-seats li[data-seat="0"] .seat-name')).to_have_text(NAME)

    host.click("#tab-chat")
    host.fill("#chat-text", CHAT)
    host.click("#chat-form button[type=submit]")
    watcher.click("#tab-chat")
    for page in (host, watcher):
        line = page.locator("#chat li").last
        expect(line.locator(".who")).to_have_text(NAME)
        expect(line.locator(".said")).to_have_text(CHAT)

    # The table, the log and the result name the player literally.
    host.click("#start-go")
    expect(watcher.locator('.plate[data-seat="0"] .pname')).to_have_text(NAME)
    expect(host.locator("#me-plate .pname")).to_have_text(NAME)
    for card in RUN:
        host.locator(f'#hand [data-card="{card}"]').click()
        host.locator('#board [data-pile="N"].legal').click()
    expect(host.locator("#result-title")).to_have_text("Match over")
    expect(host.locator("#result-winners")).to_have_text(f"Winner: {NAME}. You won!")
    expect(host.locator('#result-table tr[data-seat="0"] th')).to_have_text(NAME)
    watcher.locator("#view-table").click()
    watcher.click("#tab-log")
    expect(watcher.locator("#log")).to_contain_text(f"Match over: {NAME} won.")

    # The all-time board counts rated matches only (this deal was chosen: unrated, and not
    # listed there); in the replay the name is still text.
    host.click("#result-boards")
    expect(host.locator("#board-tab-alltime")).to_have_attribute("aria-selected", "true")
    expect(host.locator("#board-table tr.mine")).to_have_count(0)
    host.locator("#boards .view-back").click()
    host.click("#result-replay")
    expect(host.locator("#replay-body")).to_be_visible()
    expect(host.locator('#replay-felt .plate[data-seat="0"] .pname')).to_have_text(NAME)
    host.click("#replay-next")
    expect(host.locator("#replay-caption")).to_have_text(
        re.compile(f"^{re.escape(NAME)} played 8\u2665\ufe0e? on N\\.$")
    )
    for page in (host, watcher):
        assert_nothing_injected(page)
    # No dialog opened on any page: the pages fixture fails the test on one.
    assert pages.problems == []


def test_the_page_has_every_language_of_the_catalogues_and_every_text_it_marks(
    pages: Pages,
) -> None:
    """The page gets each catalogue's texts (clients/i18n/; tests/clients/test_catalogues.py
    checks them complete) but those only the Python clients show."""
    page = pages.open("texts")
    keys = page.evaluate(
        """async () => {
          const { LANGUAGES, keysOf } = await import("/i18n.js");
          const lists = await Promise.all(LANGUAGES.map((code) => keysOf(code)));
          return Object.fromEntries(LANGUAGES.map((code, i) => [code, lists[i]]));
        }"""
    )
    assert list(keys) == list(LANGUAGES)
    for code, words in CATALOGUES.items():
        assert keys[code] == [k for k in words if not k.startswith(PYTHON_ONLY)], code
    # Every data-i18n key of the page has a text.
    used = page.evaluate(
        """() => [...document.querySelectorAll("[data-i18n], [data-i18n-aria]")]
          .map((node) => node.dataset.i18n || node.dataset.i18nAria)"""
    )
    assert set(used) - set(keys["en"]) == set()
