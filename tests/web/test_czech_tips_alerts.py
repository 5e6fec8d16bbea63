"""Czech, the strategy tips, knowing when it is your turn, and toasts that leave the
players' plates in sight: in Chromium against a real server."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page, expect

from clients.i18n import CATALOGUES, LANGUAGES

from .conftest import DESKTOP, PHONE, Pages, Shot
from .helpers import choose_language, create_room, stack_the_deck, stacked_deck

# Two seats, the bot deals, so Ana (seat 0) moves first; nobody can go out in one turn.
ANA = ["8H", "7S", "6D", "QC", "4H", "3S", "AC"]
BOT = ["QD", "JD", "8S", "8C", "6C", "5H", "2H"]
TWO_SEATS = stacked_deck([ANA, BOT], ["9C", "10D", "JH", "7C"], ["9S", "KC", "6H"])

TITLES = {"en": "Kings in the Corner", "es": "Reyes en las esquinas", "cs": "Králové v rohu"}
FIRST_TIP = {
    "en": "Get rid of your kings early",
    "es": "Deshazte de los reyes cuanto antes",
    "cs": "Krále se zbavte co nejdřív",
}
TURN_TITLE = {
    "en": "● Your turn — Kings in the Corner",
    "cs": "● Jste na tahu — Králové v rohu",
}

HIDE = """(hidden) => {
  Object.defineProperty(document, "hidden", { configurable: true, get: () => hidden });
  Object.defineProperty(document, "visibilityState", {
    configurable: true,
    get: () => (hidden ? "hidden" : "visible"),
  });
  document.dispatchEvent(new Event("visibilitychange"));
}"""
ICON = """() => document.querySelector('link[rel="icon"]').getAttribute("href")"""


def to_lang(page: Page, code: str) -> None:
    """Choose ``code`` from the language menu (when the page does not speak it already)."""
    if page.evaluate("() => document.documentElement.lang") != code:
        choose_language(page, code)


def check_tips(page: Page, opener: str, code: str) -> None:
    """Open the tips with ``opener``, read them, close them with Escape."""
    page.click(opener)
    dialog = page.locator("#tips-dialog")
    expect(dialog).to_be_visible()
    tips = dialog.locator("#tips-list li")
    expect(tips).to_have_count(6)
    expect(tips.first).to_contain_text(FIRST_TIP[code])
    for text in tips.all_inner_texts():
        assert text.strip()
    # Focus is inside the dialog, and the tips are text, not markup.
    assert page.evaluate(
        "() => document.getElementById('tips-dialog').contains(document.activeElement)"
    )
    assert dialog.locator("#tips-list *:not(li)").count() == 0
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(page.locator(opener)).to_be_focused()


def start_two_seats(page: Page) -> None:
    create_room(page, "Ana", ["easy"], target=25)
    page.click("#start-go")
    expect(page.locator("#table")).to_be_visible()


def test_a_czech_browser_gets_czech_and_the_menu_lists_every_language(
    pages: Pages, shots: Shot, artifacts: Path
) -> None:
    page = pages.open("czech", locale="cs-CZ")
    expect(page.locator("html")).to_have_attribute("lang", "cs")
    expect(page.locator(".brand-name")).to_have_text("Králové v rohu")
    expect(page.locator("#create-go")).to_have_text("Vytvořit místnost")
    expect(page.locator(".rules h2")).to_have_text("Jak se hraje")
    expect(page.locator("#tips-lobby")).to_have_text("Tipy")
    expect(page.locator("#lang")).to_have_text("CS")
    expect(page).to_have_title("Králové v rohu")
    shots(page, "lobby-czech")
    page.locator(".rules").screenshot(path=str(artifacts / "lobby-czech-rules-tips.png"))
    # The language button opens a menu of every language, each named in its own words, the
    # current one marked; the keyboard walks it and Escape closes it where it was opened.
    menu = page.locator("#lang-menu")
    expect(menu).to_be_hidden()
    page.click("#lang")
    expect(page.locator("#lang")).to_have_attribute("aria-expanded", "true")
    names = [CATALOGUES[code]["lang.name"] for code in LANGUAGES]
    assert names[0] == "English" and {"Español", "Čeština"} <= set(names)
    expect(menu.locator("button")).to_have_text(names)
    expect(menu.locator('[aria-current="true"]')).to_have_text("Čeština")
    expect(menu.locator('[aria-current="true"]')).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(menu.locator('[data-lang="en"]')).to_be_focused()
    page.keyboard.press("Escape")
    expect(menu).to_be_hidden()
    expect(page.locator("#lang")).to_be_focused()
    expect(page.locator("html")).to_have_attribute("lang", "cs")
    choose_language(page, "en")
    expect(page.locator(".brand-name")).to_have_text(TITLES["en"])
    expect(page.locator("#lang")).to_have_text("EN")
    choose_language(page, "es")
    expect(page.locator(".brand-name")).to_have_text(TITLES["es"])
    expect(page.locator("#lang")).to_have_text("ES")
    choose_language(page, "cs")
    expect(page.locator(".brand-name")).to_have_text(TITLES["cs"])
    page.reload()
    expect(page.locator("html")).to_have_attribute("lang", "cs")


def test_tips_open_from_the_lobby_and_the_table_in_every_language(
    pages: Pages, shots: Shot
) -> None:
    page = pages.open("tips", setup=lambda p: stack_the_deck(p, [TWO_SEATS], dealer=1))
    for code in ("en", "es", "cs"):
        to_lang(page, code)
        check_tips(page, "#tips-lobby", code)
    to_lang(page, "en")
    page.click("#tips-lobby")
    shots(page, "tips-lobby")
    page.keyboard.press("Escape")
    start_two_seats(page)
    for code in ("en", "es", "cs"):
        to_lang(page, code)
        check_tips(page, "#tips-table", code)
    # The language changes while the tips are open: they follow.
    page.click("#tips-table")
    expect(page.locator("#tips-title")).to_have_text("Tipy pro hru")
    shots(page, "tips-table-czech")
    page.click("#tips-close")
    expect(page.locator("#tips-dialog")).to_be_hidden()
    expect(page.locator("#tips-table")).to_be_focused()


def test_a_hidden_tab_is_told_when_the_turn_comes(pages: Pages) -> None:
    page = pages.open("hidden", setup=lambda p: stack_the_deck(p, [TWO_SEATS], dealer=1))
    create_room(page, "Ana", ["easy"], target=25)
    assert page.evaluate(ICON) == "favicon.svg"
    # The tab goes to the background; the match starts and Ana moves first.
    page.evaluate(HIDE, True)
    page.evaluate("() => document.getElementById('start-go').click()")
    expect(page).to_have_title(TURN_TITLE["en"])
    assert page.evaluate(ICON) == "favicon-turn.svg"
    # The marker follows the language.
    page.evaluate("async () => (await import('/i18n.js')).setLang('cs')")
    expect(page).to_have_title(TURN_TITLE["cs"])
    page.evaluate("async () => (await import('/i18n.js')).setLang('en')")
    expect(page).to_have_title(TURN_TITLE["en"])
    # Seen again: the plain title and icon come back.
    page.evaluate(HIDE, False)
    expect(page).to_have_title(TITLES["en"])
    assert page.evaluate(ICON) == "favicon.svg"
    # Hidden during her own turn: nothing new to tell. She ends it; the bot plays; the turn
    # comes back to her while hidden, and the marker shows again.
    page.evaluate(HIDE, True)
    expect(page).to_have_title(TITLES["en"])
    page.evaluate("() => document.getElementById('end-turn').click()")
    expect(page).to_have_title(TURN_TITLE["en"])
    assert page.evaluate(ICON) == "favicon-turn.svg"
    page.evaluate(HIDE, False)
    expect(page).to_have_title(TITLES["en"])
    # The sounds are off by default: no tune was played.
    assert page.evaluate("() => document.documentElement.dataset.lastSound ?? null") is None


def test_sounds_are_off_by_default_and_the_choice_is_remembered(pages: Pages) -> None:
    page = pages.open("sound", setup=lambda p: stack_the_deck(p, [TWO_SEATS], dealer=1))
    assert page.evaluate("() => localStorage.getItem('kc.sound')") is None
    page.click("#tips-lobby")
    box = page.locator("#tips-sound")
    expect(box).not_to_be_checked()
    expect(page.locator("#tips-sound-label")).to_contain_text("Sounds")
    box.check()
    page.keyboard.press("Escape")
    page.reload()
    page.click("#tips-lobby")
    expect(page.locator("#tips-sound")).to_be_checked()
    # On: when the turn comes, a short tune plays (the click gave the page its gesture).
    page.keyboard.press("Escape")
    start_two_seats(page)
    expect(page.locator("html")).to_have_attribute("data-last-sound", "turn")
    page.click("#tips-table")
    page.locator("#tips-sound").uncheck()
    page.reload()
    # The reloaded tab takes its seat back: the tips open from the table now.
    expect(page.locator("#table")).to_be_visible()
    page.click("#tips-table")
    expect(page.locator("#tips-sound")).not_to_be_checked()
    assert page.evaluate("() => localStorage.getItem('kc.sound')") == "false"


TOAST = """async (text) => {
  const { toast } = await import("/toasts.js");
  toast(text);
  toast(text, "info");
}"""
BOXES = """() => {
  const box = (node) => {
    const r = node.getBoundingClientRect();
    return { x: r.left, y: r.top, w: r.width, h: r.height };
  };
  const seen = (node) => node.getClientRects().length > 0;
  return {
    toasts: [...document.querySelectorAll("#toasts .toast")].filter(seen).map(box),
    plates: [...document.querySelectorAll("#felt .plate")].filter(seen).map(box),
    tips: box(document.getElementById("tips-table")),
    // The status line's text: without the room kept for the button beside it.
    status: (() => {
      const node = document.getElementById("status");
      const pad = parseFloat(getComputedStyle(node).paddingRight);
      const r = box(node);
      return { ...r, w: r.w - pad };
    })(),
  };
}"""


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["x"] < b["x"] + b["w"]
        and b["x"] < a["x"] + a["w"]
        and a["y"] < b["y"] + b["h"]
        and b["y"] < a["y"] + a["h"]
    )


def test_toasts_never_cover_a_plate(pages: Pages, shot: Shot) -> None:
    page = pages.open("toasts")
    create_room(page, "Ana", ["easy", "easy", "easy"], target=25)
    page.click("#start-go")
    expect(page.locator("#table")).to_be_visible()
    for size, name in ((DESKTOP, "desktop"), (PHONE, "phone")):
        page.set_viewport_size(size)
        page.evaluate(
            TOAST, "A rather long message from the server, long enough to wrap on a phone."
        )
        expect(page.locator("#toasts .toast")).to_have_count(2)
        boxes = page.evaluate(BOXES)
        assert len(boxes["plates"]) == 4, boxes
        assert len(boxes["toasts"]) == 2, boxes
        # The table's tips button sits where no plate is, and off the status line.
        for other in [*boxes["plates"], boxes["status"]]:
            assert not overlaps(boxes["tips"], other), (name, boxes["tips"], other)
        for toast in boxes["toasts"]:
            assert toast["w"] > 100
            for plate in boxes["plates"]:
                assert not overlaps(toast, plate), (name, toast, plate)
        shot(page, f"toasts-table-{name}")
        expect(page.locator("#toasts .toast")).to_have_count(0, timeout=8000)
    assert re.search(r"\S", page.title())
