"""A hint says why, in the player's language: the status line names the move and the
strategy tip behind it, worded from the hint's reason code (never the server's words)."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from clients.i18n import texts

from .conftest import Pages, Shot
from .test_slips import set_lang
from .test_table_motion import TWO_SEATS, Wire, start_solo_game


def reasons(lang: str) -> list[re.Pattern[str]]:
    """Each ``why.*`` text of a language as a pattern (its placeholders match anything)."""
    found = [text for key, text in texts(lang).items() if key.startswith("why.")]
    assert len(found) == 11, lang
    return [re.compile(re.sub(r"\\\{\w+\\\}", ".+", re.escape(f))) for f in found]


def status(page: Page) -> str:
    return page.locator("#status").inner_text()


def test_the_hint_explains_itself_in_every_language(pages: Pages, shots: Shot) -> None:
    page = pages.open("hint", setup=lambda page: Wire(page, [TWO_SEATS], dealer=1) and None)
    start_solo_game(page)
    expect(page.locator("#end-turn")).to_be_enabled()
    page.click("#hint")
    expect(page.locator("#status")).to_contain_text("Hint:")
    line = status(page)
    assert any(p.search(line) for p in reasons("en")), line
    assert not re.search(r"\b(10|[2-9AJQK])[CDHS]\b", line), line  # symbols, never 7H
    shots(page, "hint-reason")
    for lang, word in (("es", "Pista:"), ("cs", "Nápověda:")):
        set_lang(page, lang)
        expect(page.locator("#status")).to_contain_text(word)
        line = status(page)
        assert any(p.search(line) for p in reasons(lang)), (lang, line)
