"""No costly slips, in Chromium: leaving a match asks first, the lobby offers the seat you
still hold, "Start the match" says whom it waits for, today's daily result offers no replay,
the result leaves the side panel usable, and the smaller frictions on a phone (390x844)."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

from playwright.sync_api import Page, WebSocketRoute, expect

from .conftest import PHONE, Pages, Shot
from .helpers import choose_language, create_room, join_by_link, play_until_over, storage_item

# The top element at the centre of an element: the element itself (or inside it), or not.
ON_TOP = """(el) => {
  const box = el.getBoundingClientRect();
  const hit = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
  return Boolean(hit) && (hit === el || el.contains(hit));
}"""


def on_top(page: Page, selector: str) -> bool:
    result: bool = page.locator(selector).evaluate(ON_TOP)
    return result


def box(page: Page, selector: str) -> dict[str, float]:
    found = page.locator(selector).bounding_box()
    assert found is not None, f"{selector} has no box"
    return found


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


def set_lang(page: Page, code: str) -> None:
    """Choose ``code`` from the language menu."""
    if page.evaluate("document.documentElement.lang") != code:
        choose_language(page, code)


def start_with_a_bot(page: Page, name: str = "Ana") -> str:
    code = create_room(page, name, ["random"], target=100)
    expect(page.locator("#start-go")).to_be_enabled()
    page.click("#start-go")
    expect(page.locator("#hand .card-btn")).to_have_count(7)
    return code


def test_leaving_a_match_asks_first(pages: Pages, shots: Shot) -> None:
    ana = pages.open("ana")
    code = start_with_a_bot(ana)
    ben = pages.open("ben", path=f"/?room={code}")
    ben.fill("#name", "Ben")
    ben.click("#invite-watch")
    expect(ben.locator("#table")).to_be_visible()

    # Leave is not beside the language switch: it sits by the room's code.
    leave, lang = box(ana, "#leave"), box(ana, "#lang")
    assert leave["x"] + leave["width"] < lang["x"] - 100

    # The question, in the page (no window.confirm: the fixture fails on any dialog).
    ask = ana.locator("#leave-ask")
    expect(ask).to_be_hidden()
    ana.click("#leave")
    expect(ask).to_be_visible()
    expect(ask).to_contain_text("Leave the match?")
    expect(ask).to_contain_text("A bot will take your seat")
    expect(ana.locator("#leave-stay")).to_be_focused()
    assert on_top(ana, "#leave-stay") and on_top(ana, "#leave-yes")
    shots(ana, "leave-confirm")

    # "Stay" keeps the seat; so does Escape.
    ana.click("#leave-stay")
    expect(ask).to_be_hidden()
    expect(ana.locator("#leave")).to_be_focused()
    expect(ana.locator("#table")).to_be_visible()
    ana.click("#leave")
    expect(ask).to_be_visible()
    ana.keyboard.press("Escape")
    expect(ask).to_be_hidden()
    expect(ana.locator("#hand .card-btn")).to_have_count(7)
    assert storage_item(ana, "localStorage", "kc.last") is not None

    # In Spanish too.
    set_lang(ana, "es")
    ana.click("#leave")
    expect(ask).to_contain_text("Un bot ocupará tu asiento")
    ana.click("#leave-stay")
    set_lang(ana, "en")

    # Leaving for real: back in the lobby, nothing to resume; a bot plays Ana's seat.
    ana.click("#leave")
    ana.click("#leave-yes")
    expect(ana.locator("#lobby")).to_be_visible()
    expect(ana.locator("#resume")).to_be_hidden()
    assert storage_item(ana, "localStorage", "kc.last") is None
    ben.click("#tab-log")
    expect(ben.locator("#log")).to_contain_text("Ana left; a bot plays the seat.")


def test_leaving_the_waiting_room_does_not_ask(pages: Pages) -> None:
    ana = pages.open("ana")
    create_room(ana, "Ana", ["random"], target=100)
    ana.click("#leave")
    expect(ana.locator("#lobby")).to_be_visible()
    expect(ana.locator("#leave-ask")).to_be_hidden()


def test_the_lobby_offers_the_seat_you_still_hold(pages: Pages) -> None:
    ana = pages.open("ana")
    code = start_with_a_bot(ana)
    context = ana.context
    ana.close()
    # Another tab of the same browser: no session of its own, the last seat remembered.
    again = context.new_page()
    pages.watch(again, "ana again")
    again.goto(pages.base_url)
    expect(again.locator("#lobby")).to_be_visible()
    expect(again.locator("#resume")).to_be_visible()
    expect(again.locator("#resume-text")).to_have_text(f"You have a game in room {code}.")
    again.click("#resume-go")
    expect(again.locator("#table")).to_be_visible()
    expect(again.locator("#hand .card-btn")).to_have_count(7)
    expect(again.locator("#bar-code")).to_have_text(code)


def test_start_waits_until_everyone_is_ready(pages: Pages, shots: Shot) -> None:
    ana = pages.open("ana")
    code = create_room(ana, "Ana", ["open"], target=25)
    start, why = ana.locator("#start-go"), ana.locator("#start-why")
    # Alone (the host's own readiness does not count), Ana may start with a bot.
    expect(start).to_be_enabled()
    expect(why).to_be_hidden()
    ben = pages.open("ben", path=f"/?room={code}")
    join_by_link(ben, "Ben")
    expect(start).to_be_disabled()
    expect(why).to_have_text("Waiting for Ben to be ready.")
    expect(start).to_have_attribute("aria-describedby", "start-why")
    shots(ana, "waiting-start-disabled")
    set_lang(ana, "es")
    expect(why).to_have_text("Esperando a que Ben esté listo.")
    set_lang(ana, "en")

    ben.click("#ready-btn")
    expect(start).to_be_enabled()
    expect(why).to_be_hidden()
    ben.click("#ready-btn")
    expect(start).to_be_disabled()
    ben.click("#ready-btn")
    expect(start).to_be_enabled()
    start.click()
    expect(ana.locator("#table")).to_be_visible()
    expect(ben.locator("#table")).to_be_visible()


def test_daily_result_offers_no_replay_today_and_leaves_the_panel_usable(
    pages: Pages, shot: Shot
) -> None:
    # Not "Aurelia": test_daily counts her rows on today's board of this shared server.
    ana = pages.open("dora")
    ana.fill("#name", "Dora")
    ana.click("#daily-go")
    expect(ana.locator("#hand .card-btn")).to_have_count(7)
    play_until_over(ana)
    expect(ana.locator("#result-title")).to_have_text("Match over")

    # Today's daily deal is withheld until the day is over: no button, a note saying when.
    expect(ana.locator("#result-replay")).to_be_hidden()
    expect(ana.locator("#result-note")).to_contain_text(
        "The replay of today's daily deal opens when the day is over (UTC), at "
    )
    expect(ana.locator("#result-boards")).to_be_visible()

    # The result covers the table, not the side panel: its tabs and the chat still work.
    for tab in ("#tab-score", "#tab-log", "#tab-chat"):
        assert on_top(ana, tab), f"{tab} is covered by the result"
        ana.click(tab)
        expect(ana.locator(tab)).to_have_attribute("aria-selected", "true")
    ana.fill("#chat-text", "good game")
    ana.press("#chat-text", "Enter")
    expect(ana.locator("#chat")).to_contain_text("good game")
    expect(ana.locator("#overlay")).to_be_visible()
    assert on_top(ana, "#leave")
    shot(ana, "daily-result-panel")

    # On a phone the panel is below the table: "Log & chat" reaches it, the result stays.
    ana.set_viewport_size(PHONE)
    expect(ana.locator("#panel-jump")).to_have_text("Log & chat")
    ana.click("#panel-jump")
    expect(ana.locator("#tab-score")).to_be_in_viewport()
    ana.wait_for_timeout(400)  # the smooth scroll ends
    for tab in ("#tab-score", "#tab-log"):
        assert on_top(ana, tab), f"{tab} is covered by the result on a phone"
        ana.click(tab)
        expect(ana.locator(tab)).to_have_attribute("aria-selected", "true")
    expect(ana.locator("#overlay")).to_be_visible()
    shot(ana, "daily-result-panel-phone")

    # Leaving a finished match costs nothing: no question.
    ana.click("#leave")
    expect(ana.locator("#lobby")).to_be_visible()
    expect(ana.locator("#leave-ask")).to_be_hidden()


def fake_queue(page: Page, frames: list[dict[str, Any]]) -> list[WebSocketRoute]:
    """Keep this page's "quick_play" from the server; answer it with ``frames`` instead."""
    routes: list[WebSocketRoute] = []

    def route(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def forward(message: str | bytes) -> None:
            if isinstance(message, str) and json.loads(message).get("type") == "quick_play":
                for frame in frames:
                    ws.send(json.dumps(frame))
                return
            server.send(message)

        ws.on_message(forward)
        routes.append(ws)

    page.route_web_socket(re.compile(r"^wss?://"), route)
    return routes


def test_quick_play_counts_down(pages: Pages) -> None:
    # The test server fills a table in 0.3 s; the page is told 15 s so the count can be seen.
    ana = pages.open(
        "ana", phone=True, setup=lambda page: fake_queue(page, [{"type": "queued", "seats": 4}])
    )
    ana.fill("#name", "Ana")
    ana.click("#quick-go")
    count = ana.locator("#quick-count")
    expect(count).to_have_text(re.compile(r"^Bots fill the table in (15|14) s if nobody comes\.$"))
    expect(count).to_have_text(re.compile(r"in 1[23] s"), timeout=4000)
    expect(count).to_be_in_viewport()
    ana.click("#quick-cancel")
    expect(ana.locator("#quick-form")).to_be_visible()
    expect(count).to_be_hidden()


def test_phone_frictions(pages: Pages, shot: Shot) -> None:
    ana = pages.open("ana", phone=True, locale="es-ES")
    # The Spanish placeholder of the room code fits its field.
    fits = ana.locator("#join-code").evaluate(
        """(input) => {
          const style = getComputedStyle(input, "::placeholder");
          const ctx = document.createElement("canvas").getContext("2d");
          ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
          const spacing = parseFloat(style.letterSpacing) || 0;
          const text = input.placeholder;
          const need = ctx.measureText(text).width + spacing * text.length;
          const own = getComputedStyle(input);
          const pad = parseFloat(own.paddingLeft) + parseFloat(own.paddingRight);
          const room = input.clientWidth - pad;
          return { text, need, room };
        }"""
    )
    assert fits["text"] == "Código de sala"
    assert fits["need"] <= fits["room"], fits
    set_lang(ana, "en")  # English for the rest

    start_with_a_bot(ana)
    for language, target, jump in (
        ("en", "target 100", "Log & chat"),
        ("es", "objetivo 100", "Registro y chat"),
        ("cs", "limit 100", "Záznam a chat"),
    ):
        set_lang(ana, language)
        shot(ana, f"phone-topbar-{language}")
        # The phone's top bar keeps the target score, whole, and every button inside it.
        hand = ana.locator("#bar-hand")
        expect(hand).to_contain_text(target)
        assert hand.evaluate("(el) => el.scrollWidth <= el.clientWidth + 1"), language
        assert ana.locator("#room-bar").evaluate("(el) => el.scrollWidth <= el.clientWidth + 1")
        boxes = [box(ana, s) for s in ("#bar-hand", "#leave", "#panel-jump", "#lang")]
        for left, right in itertools.pairwise(boxes):
            assert left["x"] + left["width"] <= right["x"] + 0.5, (language, boxes)
        assert boxes[-1]["x"] + boxes[-1]["width"] <= PHONE["width"], language
        # The log/chat button is named for what it opens.
        expect(ana.locator("#panel-jump")).to_have_text(jump)
    set_lang(ana, "en")

    # "I'm back" does not cover your cards (the bar shows while a bot plays for you).
    ana.evaluate(
        """async () => {
          const { S, render } = await import("/state.js");
          S.doc.room.seats[S.seat].away = true;
          render();
        }"""
    )
    expect(ana.locator("#away-bar")).to_be_visible()
    bar = box(ana, "#away-bar")
    for i in range(ana.locator("#hand .card-btn").count()):
        card = ana.locator("#hand .card-btn").nth(i).bounding_box()
        assert card is not None and not overlaps(bar, card), (bar, card)
    assert not overlaps(bar, box(ana, "#end-turn"))
    shot(ana, "phone-away-bar")
