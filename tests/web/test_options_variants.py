"""Every declared room option through the web client's two forms, and the two variants on
its table: corners collected beside each seat, a corners match's result ranked by place
(ties shared), the opening refill's hint, and their log lines in words.

The options reach the real server (a spectator reads the room it made). The variants'
documents are the server's room documents of a match played in process, sent to the page
as a ``snapshot`` "from the server" (the page's own connection otherwise idle): the client's
rendering is tested from documents, whatever the server's wiring of the variants.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from playwright.sync_api import Page, WebSocketRoute, expect

from clients.net import GameClient
from protocol.messages import RoomOptions
from protocol.options_table import OPTIONS, OptionSpec, Value
from server.room import Room, bot_seat_event, create_event
from tests.clients.test_render import play_to_hand_over

from .conftest import Pages, ServerThread, Shot
from .helpers import choose_language, create_room, rewrite_create


def other_value(spec: OptionSpec) -> Value:
    """A value of ``spec`` other than its default (every kind the declaration has)."""
    if spec.kind == "flag":
        return not spec.default
    if spec.kind == "choice":
        return next(choice for choice in spec.choices if choice != spec.default)
    if spec.kind == "number":
        return next(p for p in spec.presets if p != spec.default)
    assert spec.high is not None
    return int(spec.default) + (1 if spec.default < spec.high else -1)


def set_field(page: Page, field_id: str, spec: OptionSpec, value: Value) -> None:
    """Leave ``value`` in a form field as a person would."""
    node = page.locator(f"#{field_id}")
    if spec.kind == "flag":
        node.set_checked(bool(value))
    elif node.evaluate("n => n.tagName") == "SELECT":
        node.select_option("" if value is None else f"{value}")
    else:
        node.fill(str(value))


def server_options(web_server: ServerThread, code: str) -> dict[str, Any]:
    """The room's options as the server keeps them (``public`` beside them), read by a
    spectator of its own."""

    async def look() -> dict[str, Any]:
        client = GameClient(web_server.url.replace("http", "ws", 1), "Spy")
        await client.connect()
        await client.join(code, spectate=True)
        assert client.doc is not None
        room = client.doc["room"]
        await client.close()
        return {**room["options"], "public": room["public"]}

    # On the server's own loop: Playwright's sync API keeps one running in this thread.
    return asyncio.run_coroutine_threadsafe(look(), web_server.loop).result(timeout=10)


def test_every_declared_option_through_the_create_form_and_the_host_form(
    pages: Pages, web_server: ServerThread
) -> None:
    ana = pages.open("ana")
    ana.fill("#name", "Ana")
    wanted = {spec.name: other_value(spec) for spec in OPTIONS}
    assert {"opening_refill", "scoring"} <= set(wanted)
    ana.select_option("#opt-seats", str(wanted["seats"]))
    for spec in OPTIONS:
        if spec.name != "seats":
            set_field(ana, f"opt-{spec.name}", spec, wanted[spec.name])
    ana.click("#create-go")
    expect(ana.locator("#waiting")).to_be_visible()
    code = ana.locator("#share-code").inner_text()
    got = server_options(web_server, code)
    assert {name: got[name] for name in wanted} == wanted

    # The host's form: every option back at its default (casual is not in it: kept).
    ana.click("#config-open")
    for spec in OPTIONS:
        if spec.name != "casual":
            set_field(ana, f"cfg-{spec.name}", spec, spec.default)
    ana.click("#config-save")
    expect(ana.locator("#config-form")).to_be_hidden()
    expect(ana.locator("#wait-options")).not_to_contain_text("corners")
    got = server_options(web_server, code)
    defaults = {spec.name: spec.default for spec in OPTIONS if spec.name != "casual"}
    assert {name: got[name] for name in defaults} == defaults
    assert got["casual"] is True


def corners_room(code: str, *, play: bool) -> Room:
    """Ana (seat 0, moving first), a bot and Ben, under corners scoring and the opening
    refill; played to its end with ``play``."""
    options = RoomOptions(seats=3, scoring="corners", opening_refill=True, dealer=2)
    room = Room(create_event(code, options))
    room.apply({"e": "sit", "seat": 0, "name": "Ana", "kind": "human", "token": "h"})
    room.apply({"e": "presence", "seat": 0, "connected": True})
    room.apply(bot_seat_event(1, "medium"))
    room.apply({"e": "sit", "seat": 2, "name": "Ben", "kind": "human"})
    room.apply({"e": "start", "seed": "corners"})
    if play:
        play_to_hand_over(room)
    return room


def show(route: WebSocketRoute, doc: dict[str, Any], version: int = 1000) -> None:
    route.send(
        json.dumps(
            {"type": "snapshot", "room": doc["room"]["code"], "version": version, "doc": doc}
        )
    )


def test_corners_collected_the_refill_hint_and_a_result_ranked_by_corners(
    pages: Pages, shots: Shot
) -> None:
    held: dict[str, list[WebSocketRoute]] = {}
    ana = pages.open("ana", setup=lambda page: held.update(routes=rewrite_create(page)))
    routes = held["routes"]
    code = create_room(ana, "Ana", ["open", "open"], target=25)

    # The first turn: the refill window is open, and nobody has collected a corner yet.
    doc = corners_room(code, play=False).doc(0)
    assert doc["game"]["refill_open"] is True and doc["game"]["collected"] == [0, 0, 0]
    doc["game"]["collected"] = [1, 0, 2]  # as the seats' plates must show them
    show(routes[-1], doc)
    expect(ana.locator("#status .refill-note")).to_have_text(
        "Opening refill: moving a side pile away refills its space from the stock until you"
        " play a card."
    )
    expect(ana.locator("#me-plate .corners-long")).to_have_text("corners: 1")
    expect(ana.locator("#bar-hand")).to_have_text("Hand 1 · corners collected")
    expect(ana.locator('#opponents [data-seat="2"] .corners-long')).to_have_text("corners: 2")
    expect(ana.locator('#opponents [data-seat="1"]')).to_have_attribute(
        "aria-label", re.compile("corners: 0")
    )
    shots(ana, "corners-table")

    # The log: a move that refilled its side space, and a corner collected.
    log = [
        {"ev": "moved", "seat": 0, "from": "N", "to": "NE", "refill": "7H"},
        {"ev": "collected", "seat": 2, "corner": "SW", "total": 2},
    ]
    patch = {"type": "patch", "room": code, "from": 1000, "to": 1001, "ops": [], "log": log}
    routes[-1].send(json.dumps(patch))
    ana.click("#tab-log")
    expect(ana.locator("#log")).to_contain_text("Ana moved pile N onto NE; 7\u2665")
    expect(ana.locator("#log")).to_contain_text("from the stock refills N.")
    expect(ana.locator("#log")).to_contain_text(
        "Ben completed the SW corner and collected it (2 so far)."
    )
    choose_language(ana, "cs")
    expect(ana.locator("#log")).to_contain_text("Ben dokončil(a) roh")
    expect(ana.locator("#log")).to_contain_text("z balíčku doplní")
    choose_language(ana, "es")
    expect(ana.locator("#log")).to_contain_text("del mazo rellena")
    expect(ana.locator("#log")).to_contain_text("y la recogió (2 en total)")
    choose_language(ana, "en")

    # The end: places by corners, then penalty; a tie shares its place (1, 2, 2).
    done = corners_room(code, play=True).doc(0)
    game = done["game"]
    assert game["phase"] == "finished" and game["refill_open"] is False
    game |= {"collected": [1, 2, 1], "places": [2, 1, 2], "winners": [1]}
    game["result"]["penalties"] = [3, 5, 3]
    show(routes[-1], done, 2000)
    rows = ana.locator("#result-table tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(0).locator("th")).to_have_text("Bot 2")
    expect(rows.nth(0).locator(".place")).to_have_text("1")
    expect(rows.nth(0).locator(".corners")).to_have_text("2")
    expect(rows.nth(1).locator(".place")).to_have_text("2")
    expect(rows.nth(2).locator(".place")).to_have_text("2")
    expect(ana.locator("#result-table thead")).to_contain_text("Corners")
    expect(ana.locator("#result-table thead")).not_to_contain_text("Total")
    expect(ana.locator("#result-reason")).to_contain_text("Placed by corners collected")
    expect(ana.locator("#status .refill-note")).to_have_count(0)
    shots(ana, "corners-result")
