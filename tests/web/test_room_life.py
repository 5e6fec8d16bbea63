"""Room life in Chromium: the host's options, a kick, a new host, the turn countdown, a bot
covering an idle player until "I'm back", and the store-outage banner."""

from __future__ import annotations

import json
import re

from playwright.sync_api import WebSocketRoute, expect

from .conftest import Pages
from .helpers import (
    choose_language,
    create_room,
    join_by_link,
    rewrite_create,
    stacked_deck,
    storage_item,
)


def test_host_options_kick_and_new_host(pages: Pages) -> None:
    ana = pages.open("host")
    code = create_room(ana, "Ana", ["open", "open"], target=25)
    ben = pages.open("ben", path=f"/?room={code}")
    join_by_link(ben, "Ben")
    cleo = pages.open("cleo", phone=True, path=f"/?room={code}")
    join_by_link(cleo, "Cleo")
    expect(ben.locator("#wait-seats li")).to_have_count(3)
    expect(ben.locator("#host-box")).to_be_hidden()

    # The host opens the options, already filled with the room's, and changes two.
    expect(ana.locator("#config-form")).to_be_hidden()
    ana.click("#config-open")
    expect(ana.locator("#config-open")).to_have_attribute("aria-expanded", "true")
    expect(ana.locator("#cfg-seats")).to_be_focused()
    expect(ana.locator("#cfg-seats")).to_have_value("3")
    expect(ana.locator("#cfg-target")).to_have_value("25")
    expect(ana.locator("#cfg-public")).to_be_checked()
    ana.select_option("#cfg-seats", "4")
    ana.fill("#cfg-target", "10")
    ana.click("#config-save")
    expect(ana.locator("#config-form")).to_be_hidden()

    # Everyone else sees the new table at once.
    expect(ben.locator("#wait-seats li")).to_have_count(4)
    expect(ben.locator('#wait-seats li[data-seat="3"]')).to_contain_text("Empty seat")
    expect(ben.locator("#wait-options")).to_have_text("target 10 · draw at the end · public")
    ben.click("#tab-log")
    expect(ben.locator("#log")).to_contain_text("The host changed the room's options.")
    expect(cleo.locator("#wait-seats li")).to_have_count(4)

    # The host removes Cleo: her page says so plainly, back in the lobby, the seat forgotten.
    ana.get_by_role("button", name="Remove Cleo from the room").click()
    expect(cleo.locator("#lobby")).to_be_visible()
    expect(cleo.locator("#notice")).to_be_visible()
    expect(cleo.locator("#notice-text")).to_have_text(f"The host removed you from room {code}.")
    expect(cleo).not_to_have_url(re.compile(r"room="))
    assert storage_item(cleo, "localStorage", "kc.last") is None
    assert storage_item(cleo, "sessionStorage", "kc.session") is None
    expect(ben.locator('#wait-seats li[data-seat="2"]')).to_contain_text("Empty seat")
    cleo.click("#notice-ok")
    expect(cleo.locator("#notice")).to_be_hidden()
    cleo.reload()
    expect(cleo.locator("#lobby")).to_be_visible()
    expect(cleo.locator("#resume")).to_be_hidden()

    # The host leaves: Ben is told he is the host now, and gets the host's controls.
    ana.click("#leave")
    expect(ben.locator(".toast.info")).to_have_text("You are now the host.")
    expect(ben.locator("#host-box")).to_be_visible()
    expect(ben.locator("#config-open")).to_be_visible()
    expect(ben.locator("#log")).to_contain_text("Ben is now the host.")


# Ana moves first (the bot deals); neither hand fits anywhere and no pile can move, so the
# hand lasts: the turn timer runs out on Ana twice and she is marked away.
ANA = ["QD", "QC", "5H", "5S", "3C", "3D", "AH"]
BOT = ["QH", "QS", "6C", "6D", "4C", "4D", "AS"]
STUCK = stacked_deck([ANA, BOT], ["9C", "9D", "JH", "JS"], [])


def test_turn_countdown_away_and_back_and_store_banner(pages: Pages) -> None:
    # The lobby offers timers of 30 s and more: the test asks for 2 s in the create message.
    routes: list[list[WebSocketRoute]] = []
    ana = pages.open(
        "timer",
        setup=lambda page: routes.append(
            rewrite_create(page, turn_timer=2, decks=[STUCK], dealer=1)
        ),
    )
    create_room(ana, "Ana", ["random"], target=100)
    expect(ana.locator("#wait-options")).to_have_text(
        "target 100 · draw at the end · 2 s per turn · public"
    )
    # Before the start (the turns' 2 s would run out while a busy machine switches languages),
    # the server's store goes down, then comes back: a banner in between.
    [ws_routes] = routes
    banner = ana.locator("#store-banner")
    expect(banner).to_be_hidden()
    ws_routes[-1].send(json.dumps({"type": "status", "store": "down"}))
    expect(banner).to_have_text("Server storage unavailable — moves may be refused.")
    expect(banner).to_have_attribute("role", "alert")
    choose_language(ana, "es")
    expect(banner).to_have_text(
        "El almacenamiento del servidor no responde — puede que se rechacen jugadas."
    )
    choose_language(ana, "cs")  # the menu lists English, Spanish and Czech
    expect(banner).to_have_text("Úložiště serveru nedostupné — tahy mohou být odmítnuty.")
    choose_language(ana, "en")
    ws_routes[-1].send(json.dumps({"type": "status", "store": "up"}))
    expect(banner).to_be_hidden()
    ana.click("#start-go")

    # Ana's turn counts down from 2 seconds on her own plate.
    clock = ana.locator("#me-plate .clock")
    expect(clock).to_have_text(re.compile(r"^0:0[12]$"))
    expect(clock).to_have_attribute("role", "timer")
    expect(clock).to_have_text("0:01")

    # Two turns run out in a row: a bot covers her seat, and the page says so.
    away = ana.locator("#away-bar")
    expect(away).to_be_visible(timeout=15_000)
    expect(away).to_contain_text("A bot is playing for you.")
    expect(ana.locator("#log")).to_contain_text("Ana's time ran out; a bot plays the turn.")
    # The bar stays above the rest, the hand's result too if the bots finished the hand.
    ana.locator("#back").click()
    expect(away).to_be_hidden()
    expect(ana.locator("#log")).to_contain_text("Ana is back.")
