"""The phone table fits, a game against bots is one tap away, fast bots, and the keyboard's
short path: in Chromium, on phones (390x844, 375x667, held either way) and the desktop.

Every measurement is taken once the page has laid itself out for its size and no card is
in flight (the pages ask for reduced motion, and the tests wait for flights anyway): never
after a fixed wait."""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import Page, WebSocketRoute, expect

from .conftest import DESKTOP, Pages, Shot
from .helpers import create_room, end_turn, stack_the_deck, stacked_deck, storage_item
from .test_table_motion import HOLD_FLIGHTS, TWO_SEATS

PHONES = [
    {"width": 390, "height": 844},
    {"width": 375, "height": 667},
    {"width": 844, "height": 390},
    {"width": 667, "height": 375},
]

# Two seats, the bot deals, so Ana moves first. The table's tops are all 2s: only an ace
# fits on one, only a king starts a corner, and no pile moves. Ana holds the only king and
# ace; the bot holds neither, nor does the stock's top: both just draw, turn after turn,
# until Ana holds 18 cards.
ANA = ["KH", "AH", "9S", "8D", "7C", "6H", "5S"]
BOT = ["QD", "JD", "10C", "9H", "8S", "7H", "6C"]
TWOS = ["2C", "2D", "2H", "2S"]
_USED = set(ANA + BOT + TWOS)
STOCK = [
    f"{rank}{suit}"
    for rank in ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q")
    for suit in "CDHS"
    if f"{rank}{suit}" not in _USED
][:24]
DRAWING = stacked_deck([ANA, BOT], TWOS, STOCK)

# What must be on screen at once, and what is not: each box the page shows, the hand's
# cards with the part of each that shows and whether its rank and suit are what a tap there
# hits, and whether the page had to scroll.
TABLE_BOXES = """() => {
  const box = (node) => {
    const r = node.getBoundingClientRect();
    return { x: r.left, y: r.top, right: r.right, bottom: r.bottom, w: r.width, h: r.height };
  };
  const pileBox = (pile) => ({ pile: pile.dataset.pile, ...box(pile) });
  const hits = (button, part) => {
    const r = button.querySelector(part).getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return Boolean(hit) && hit.closest(".card-btn") === button;
  };
  return {
    viewport: { w: innerWidth, h: innerHeight },
    scroll: { x: scrollX, y: scrollY, width: document.documentElement.scrollWidth },
    bar: box(document.querySelector(".topbar")),
    draw: box(document.getElementById("end-turn")),
    stock: box(document.querySelector("#board .stock")),
    piles: [...document.querySelectorAll("#board .pile")].map(pileBox),
    gold: [...document.querySelectorAll("#board .pile.legal")].map(pileBox),
    cards: [...document.querySelectorAll("#hand .card-btn")].map((b) => ({
      card: b.dataset.card,
      ...box(b),
      rank: hits(b, ".idx.tl .rank"),
      suit: hits(b, ".idx.tl .suit"),
    })),
  };
}"""


def settle(page: Page, size: dict[str, int]) -> None:
    """Give the page ``size`` and wait until it laid the table out for it: the window has
    the size, two frames went by (the resize event comes with the first), nothing flies."""
    page.set_viewport_size({"width": size["width"], "height": size["height"]})
    page.wait_for_function(
        "([w, h]) => innerWidth === w && innerHeight === h", arg=[size["width"], size["height"]]
    )
    page.evaluate(
        "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
    )
    no_flights(page)
    page.evaluate("window.scrollTo(0, 0)")


def no_flights(page: Page) -> None:
    page.wait_for_function("() => document.querySelectorAll('.flight').length === 0")


def inside(item: dict[str, Any], view: dict[str, float], top: float = 0) -> bool:
    return bool(
        item["x"] >= -0.5
        and item["y"] >= top - 0.5
        and item["right"] <= view["w"] + 0.5
        and item["bottom"] <= view["h"] + 0.5
    )


def boxes(page: Page) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(TABLE_BOXES)
    return found


def check_fits(page: Page, where: str, cards: int, touch: bool = True) -> None:
    """Without scrolling: the stock, all eight piles, every card of the hand and "Draw and end
    turn" inside the screen, under the top bar; each card at least 44 px each way (and on a
    phone, ``touch``, the button too), its rank and suit what a tap there hits; the gold
    targets of a king and of an ace on screen."""
    seen = boxes(page)
    view, top = seen["viewport"], seen["bar"]["bottom"]
    assert seen["scroll"]["y"] == 0 and seen["scroll"]["width"] <= view["w"], (
        where,
        seen["scroll"],
    )
    assert inside(seen["draw"], view, top), (where, seen["draw"])
    assert seen["draw"]["h"] >= (44 if touch else 40), (where, seen["draw"])
    assert inside(seen["stock"], view, top), (where, seen["stock"])
    assert len(seen["piles"]) == 8
    for pile in seen["piles"]:
        assert inside(pile, view, top), (where, pile)
    assert len(seen["cards"]) == cards
    for card in seen["cards"]:
        assert inside(card, view, top), (where, card)
        assert card["w"] >= 44 and card["h"] >= 44, (where, card)
        assert card["rank"] and card["suit"], (where, card)
    # Chosen, the king lights the four corners and the ace N and W: all where they can be seen.
    for card, targets in (("KH", {"NE", "SE", "SW", "NW"}), ("AH", {"N", "W"})):
        page.click(f'#hand [data-card="{card}"]')
        expect(page.locator(f'#hand [data-card="{card}"]')).to_have_attribute(
            "aria-pressed", "true"
        )
        lit = boxes(page)
        assert lit["scroll"]["y"] == 0, (where, card, lit["scroll"])
        assert {g["pile"] for g in lit["gold"]} == targets, (where, card, lit["gold"])
        for gold in lit["gold"]:
            assert inside(gold, view, top), (where, card, gold)
        page.keyboard.press("Escape")
        expect(page.locator("#board .pile.legal")).to_have_count(0)


def draw_until(page: Page, cards: int) -> None:
    while page.locator("#hand .card-btn").count() < cards:
        end_turn(page)
        expect(page.locator("#end-turn")).to_be_enabled()
    expect(page.locator("#hand .card-btn")).to_have_count(cards)
    no_flights(page)


def size_name(size: dict[str, int]) -> str:
    return f"{size['width']}x{size['height']}"


def test_the_phone_table_fits_one_screen_with_7_and_18_cards(pages: Pages, shot: Shot) -> None:
    page = pages.open("phone table", phone=True, setup=lambda p: stack_the_deck(p, [DRAWING], 1))
    create_room(page, "Ana", ["easy"], target=25)
    page.click("#start-go")
    expect(page.locator("#hand .card-btn")).to_have_count(7)
    for cards in (7, 18):
        draw_until(page, cards)
        for size in PHONES:
            settle(page, size)
            check_fits(page, f"{size_name(size)} with {cards}", cards)
            shot(page, f"phone-table-{size_name(size)}-{cards}")


def test_the_desktop_table_fits_with_7_and_18_cards(pages: Pages, shot: Shot) -> None:
    page = pages.open("desktop table", setup=lambda p: stack_the_deck(p, [DRAWING], 1))
    create_room(page, "Ana", ["easy"], target=25)
    page.click("#start-go")
    expect(page.locator("#hand .card-btn")).to_have_count(7)
    for cards in (7, 18):
        draw_until(page, cards)
        settle(page, DESKTOP)
        check_fits(page, f"desktop with {cards}", cards, touch=False)
        shot(page, f"desktop-table-{cards}")


def test_a_refusal_covers_no_control(pages: Pages, shot: Shot) -> None:
    """The toast of a refusal goes over the status line: not over a button, a pile, a card,
    a plate, or (on a wide screen) the side panel's tabs."""
    page = pages.open("toast", setup=lambda p: stack_the_deck(p, [DRAWING], 1))
    create_room(page, "Ana", ["easy"], target=25)
    page.click("#start-go")
    expect(page.locator("#end-turn")).to_be_enabled()
    for size in (DESKTOP, {"width": 375, "height": 667}, {"width": 844, "height": 390}):
        settle(page, size)
        page.click('#hand [data-card="9S"]')
        page.click('#board [data-pile="N"]')  # 9S on 2C: refused
        toast = page.locator("#toasts .toast.error").last
        expect(toast).to_contain_text("does not fit")
        covered: list[str] = toast.evaluate(
            """(toast) => {
              const t = toast.getBoundingClientRect();
              const meets = (r) =>
                t.left < r.right && r.left < t.right && t.top < r.bottom && r.top < t.bottom;
              const controls = "button, select, input, a[href], .plate, [role='tab']";
              return [...document.querySelectorAll(controls)]
                .filter((node) => node.getClientRects().length && !node.closest("#toasts"))
                .filter((node) => meets(node.getBoundingClientRect()))
                .map((node) => node.id || node.dataset.card || node.dataset.pile || node.className);
            }"""
        )
        assert covered == [], (size, covered)
        shot(page, f"toast-{size_name(size)}")
        expect(page.locator("#toasts .toast")).to_have_count(0, timeout=8000)


# --- one tap from the lobby to a dealt table ---------------------------------------------------


def recording_creates(page: Page) -> list[dict[str, Any]]:
    """The ``create`` messages this page sends, as they go. Each passes with the last seat
    as dealer, so the person moves first: a hard bot moving first often plays its whole
    hand at once, and the match (to 25, four seats) can end before the test looks."""
    sent: list[dict[str, Any]] = []

    def route(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def forward(message: str | bytes) -> None:
            if isinstance(message, str):
                frame = json.loads(message)
                if frame.get("type") == "create":
                    sent.append(json.loads(message))
                    frame["options"]["dealer"] = frame["options"]["seats"] - 1
                    message = json.dumps(frame)
            server.send(message)

        ws.on_message(forward)

    page.route_web_socket(re.compile(r"^wss?://"), route)
    return sent


NEVER_WAITED = """() => {
  window.__waited = false;
  const waiting = document.getElementById("waiting");
  new MutationObserver(() => {
    if (!waiting.hidden && !document.getElementById("room").hidden) window.__waited = true;
  }).observe(document.body, { attributes: true, subtree: true, attributeFilter: ["hidden"] });
}"""

ROOM_OPTIONS = """async () => (await import("/state.js")).S.doc.room"""


def test_one_tap_from_the_lobby_deals_a_table_against_bots(pages: Pages, shot: Shot) -> None:
    creates: list[list[dict[str, Any]]] = []
    page = pages.open("one tap", phone=True, setup=lambda p: creates.append(recording_creates(p)))
    settle(page, {"width": 375, "height": 667})
    go = page.locator("#bots-go")
    # The first thing in the lobby: on screen without scrolling, before every other control.
    expect(go).to_have_text("Play vs 3 bots")
    expect(page.locator("#bots-level")).to_have_value("hard")  # the calibrated level
    box = go.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 667
    first = page.evaluate(
        """() => [...document.querySelectorAll("#lobby button, #lobby select, #lobby input")]
          .find((node) => node.getClientRects().length).id"""
    )
    assert first == "bots-go"
    shot(page, "one-tap-lobby-375x667")

    page.evaluate(NEVER_WAITED)
    go.click()
    expect(page.locator("#table")).to_be_visible()
    expect(page.locator("#hand .card-btn")).to_have_count(7)
    expect(page.locator("#felt .plate")).to_have_count(4)
    assert page.evaluate("window.__waited") is False  # no waiting room on the way
    [frame] = creates[0]
    assert frame["options"]["bots"] == [None, "hard", "hard", "hard"]
    assert frame["options"]["pace"] == "normal" and frame["options"]["public"] is False
    room: dict[str, Any] = page.evaluate(ROOM_OPTIONS)
    assert room["options"]["pace"] == "normal" and room["phase"] == "playing"
    assert [seat["level"] for seat in room["seats"][1:]] == ["hard", "hard", "hard"]
    no_flights(page)
    shot(page, "one-tap-table-375x667")

    # Back in the lobby, other choices: they are remembered, and the next tap deals them.
    page.click("#leave")
    page.click("#leave-yes")
    expect(page.locator("#lobby")).to_be_visible()
    page.select_option("#bots-level", "easy")
    page.select_option("#bots-seats", "3")
    page.select_option("#bots-pace", "fast")
    expect(go).to_have_text("Play vs 2 bots")
    assert storage_item(page, "localStorage", "kc.bots") == {
        "seats": 3,
        "level": "easy",
        "pace": "fast",
    }
    page.reload()
    expect(page.locator("#bots-level")).to_have_value("easy")
    expect(page.locator("#bots-seats")).to_have_value("3")
    expect(page.locator("#bots-pace")).to_have_value("fast")
    page.click("#bots-go")
    expect(page.locator("#hand .card-btn")).to_have_count(7)
    expect(page.locator("#felt .plate")).to_have_count(3)
    room = page.evaluate(ROOM_OPTIONS)
    assert room["options"]["pace"] == "fast" and room["options"]["seats"] == 3
    assert [seat["level"] for seat in room["seats"][1:]] == ["easy", "easy"]


def test_the_lobby_main_actions_are_a_few_tabs_away(pages: Pages) -> None:
    page = pages.open("lobby tabs")
    expect(page.locator("#bots-go")).to_be_visible()
    order: list[str] = []
    for _ in range(12):
        page.keyboard.press("Tab")
        order.append(
            page.evaluate("document.activeElement.id || document.activeElement.dataset.jump")
        )
    assert order.index("bots-go") < 3, order
    for jump in ("daily-go", "quick-go", "join-code", "opt-seats"):
        assert order.index(jump) < 10, (jump, order)
    # "New room" takes the focus to the form's first field, however far down it is.
    page.locator('[data-jump="opt-seats"]').focus()
    page.keyboard.press("Enter")
    expect(page.locator("#opt-seats")).to_be_focused()


# --- fast bots --------------------------------------------------------------------------------


FLIGHT_TIMES = """() => window.__flights.map((a) => a.effect.getComputedTiming().duration)"""


def flight_time_of_a_play(pages: Pages, label: str, pace: str) -> tuple[float, dict[str, Any]]:
    """A page that lets things move, at a two-seat table of bots at ``pace`` dealt in one tap:
    how long the flight of Ana's first card lasts, and the room."""
    context = pages.browser.new_context(
        viewport={"width": DESKTOP["width"], "height": DESKTOP["height"]},
        locale="en-US",
        reduced_motion="no-preference",
    )
    context.set_default_timeout(10_000)
    pages.contexts.append(context)
    page = context.new_page()
    pages.watch(page, label)
    page.add_init_script(HOLD_FLIGHTS)
    stack_the_deck(page, [TWO_SEATS], dealer=1)
    page.goto(pages.base_url)
    page.select_option("#bots-seats", "2")
    page.select_option("#bots-level", "easy")
    page.select_option("#bots-pace", pace)
    page.click("#bots-go")
    expect(page.locator("#end-turn")).to_be_enabled()
    page.click('#hand [data-card="8H"]')
    page.click('#board [data-pile="N"]')
    page.wait_for_function("window.__flights.length > 0")
    [duration] = page.evaluate(FLIGHT_TIMES)
    room: dict[str, Any] = page.evaluate(ROOM_OPTIONS)
    page.evaluate("window.__flights.forEach((a) => a.finish())")
    no_flights(page)
    return duration, room


def test_fast_bots_are_a_room_option_and_the_motion_shortens_to_match(pages: Pages) -> None:
    normal, room = flight_time_of_a_play(pages, "normal pace", "normal")
    assert room["options"]["pace"] == "normal"
    fast, room = flight_time_of_a_play(pages, "fast pace", "fast")
    assert room["options"]["pace"] == "fast"
    # Fast bots wait a quarter of the normal delay; a card's flight still shows, shorter.
    assert normal == 420 and 120 <= fast < normal / 2, (normal, fast)


def test_the_new_room_form_and_the_host_choose_the_pace(pages: Pages) -> None:
    page = pages.open("pace form")
    page.select_option("#opt-pace", "fast")
    create_room(page, "Ana", ["easy"], target=25)
    expect(page.locator("#wait-options")).to_contain_text("fast bots")
    assert storage_item(page, "localStorage", "kc.create")["pace"] == "fast"  # type: ignore[index]
    page.click("#config-open")
    expect(page.locator("#cfg-pace")).to_have_value("fast")
    page.select_option("#cfg-pace", "normal")
    page.click("#config-save")
    expect(page.locator("#wait-options")).not_to_contain_text("fast bots")
    page.reload()
    expect(page.locator("#waiting")).to_be_visible()
    page.click("#leave")
    expect(page.locator("#opt-pace")).to_have_value("fast")  # the form remembers its choice


# --- the keyboard's short path -----------------------------------------------------------------


def focus_in_hand(page: Page) -> bool:
    found: bool = page.evaluate("() => Boolean(document.activeElement.closest('#hand .card-btn'))")
    return found


def test_the_turn_starts_in_your_hand_and_keys_draw_and_hint(pages: Pages, shot: Shot) -> None:
    page = pages.open("turn keys", setup=lambda p: stack_the_deck(p, [DRAWING], 1))
    create_room(page, "Ana", ["easy"], target=25)
    page.click("#start-go")
    expect(page.locator("#end-turn")).to_be_enabled()
    # The deal gives Ana the first turn: the focus is on her hand, ready for the arrows.
    page.wait_for_function("() => Boolean(document.activeElement.closest('#hand'))")

    # H asks for a hint; D draws and ends the turn. The bot plays; when Ana's turn comes
    # back, so does the focus, to her hand (nothing to Tab through).
    page.keyboard.press("h")
    expect(page.locator("#status")).to_contain_text("Hint:")
    for key in ("d", "e"):
        before = page.locator("#hand .card-btn").count()
        page.keyboard.press(key)
        expect(page.locator("#hand .card-btn")).to_have_count(before + 1)
        expect(page.locator("#end-turn")).to_be_enabled()
        page.wait_for_function("() => Boolean(document.activeElement.closest('#hand'))")
        assert focus_in_hand(page)

    # Keys typed in the chat are words, not moves.
    page.click("#tab-chat")
    page.focus("#chat-text")
    page.keyboard.type("dhe")
    expect(page.locator("#chat-text")).to_have_value("dhe")
    expect(page.locator("#end-turn")).to_be_enabled()
    assert page.locator("#hand .card-btn").count() == 9

    # The table's help lists the keys.
    page.click("#tips-table")
    keys = page.locator("#keys-list li")
    expect(keys).to_have_count(6)
    expect(page.locator("#keys-list")).to_contain_text("D or E: draw and end your turn.")
    expect(page.locator("#keys-list")).to_contain_text("until playable: D draws a card")
    expect(page.locator("#keys-list")).to_contain_text("H: a hint.")
    shot(page, "table-keys")
    page.keyboard.press("Escape")
    # Closing gives the focus back to the button that opened it, in the dialog's "close"
    # event, which comes after the key: wait for it, or it takes the focus from the skip link.
    expect(page.locator("#tips-table")).to_be_focused()

    # A skip link is the page's first stop (shown once it has the focus): past the top bar,
    # straight to the hand.
    first = page.evaluate(
        """() => [...document.querySelectorAll("a[href], button, input, select")]
          .find((node) => !node.closest("[hidden]") && !node.disabled).id"""
    )
    assert first == "skip"
    skip = page.locator("#skip")
    skip.focus()
    expect(skip).to_be_focused()
    expect(skip).to_have_text("Skip to the table")
    box = skip.bounding_box()
    assert box is not None and box["y"] >= 0
    page.keyboard.press("Enter")
    assert focus_in_hand(page)


def test_your_turn_does_not_take_the_focus_from_the_chat(pages: Pages) -> None:
    page = pages.open("chat focus", setup=lambda p: stack_the_deck(p, [DRAWING], 1))
    create_room(page, "Ana", ["easy"], target=25)
    page.click("#start-go")
    expect(page.locator("#end-turn")).to_be_enabled()
    page.click("#tab-chat")
    page.click("#end-turn")
    page.focus("#chat-text")
    # The bot draws at once: Ana's turn is back, and the focus stays where she types.
    expect(page.locator("#hand .card-btn")).to_have_count(8)
    expect(page.locator("#end-turn")).to_be_enabled()
    expect(page.locator("#chat-text")).to_be_focused()
