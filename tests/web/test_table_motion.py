"""The table comes alive: cards travel to where they go, the last turn stays marked, a hand
of any size stays readable and tappable, and the piles' names are never covered."""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import Page, WebSocketRoute, expect

from protocol.engine import DECK

from .conftest import DESKTOP, PHONE, Pages, Shot
from .helpers import create_room, end_turn, resize, stacked_deck

# Two seats, the bot deals, so Ana moves first: her hand is one run onto N's 9C.
RUN = ["8H", "7S", "6D", "5C", "4H", "3S", "2D"]
LONE_BOT = ["QD", "JD", "8S", "8C", "6C", "5H", "2H"]
TABLE = ["9C", "10D", "JH", "7C"]
TWO_SEATS = stacked_deck([RUN, LONE_BOT], TABLE, [])

# Flights are paused as soon as they start, so a test can look at them frame by frame.
HOLD_FLIGHTS = """
(() => {
  const animate = Element.prototype.animate;
  window.__flights = [];
  Element.prototype.animate = function (...args) {
    const animation = animate.apply(this, args);
    if (this.classList && this.classList.contains("flight")) {
      window.__flights.push(animation);
      animation.pause();
    }
    return animation;
  };
})();
"""

FLIGHT_BOXES = """(pick) => {
  // The first flight, or with pick "in hand" the first of a card now in the hand.
  const inHandNow = (a) => document.querySelector(
    `#hand [data-card="${a.effect.target.querySelector(".card").dataset.code}"]`);
  const flights = window.__flights;
  const animation = pick === "in hand" ? flights.find(inHandNow) : flights[0];
  const ghost = animation.effect.target;
  const timing = animation.effect.getComputedTiming();
  const box = () => {
    const r = ghost.getBoundingClientRect();
    return { x: r.left, y: r.top, width: r.width, height: r.height };
  };
  animation.currentTime = timing.delay;
  const start = box();
  animation.currentTime = timing.delay + timing.duration - 0.01;
  const end = box();
  const face = ghost.querySelector(".card").dataset.code;
  // Where that card lies in the hand now, measured in the same moment (a later patch of the
  // bot's turn may draw the hand again before the test could ask).
  const inHand = document.querySelector(`#hand [data-card="${face}"] .card`);
  const r = inHand && inHand.getBoundingClientRect();
  animation.finish();
  const held = r && { x: r.left, y: r.top, width: r.width, height: r.height };
  return { start, end, face, inHand: held };
}"""

# Every card of the hand: its button, the part of it no later card covers, and whether its
# rank is what the page shows at the rank's centre.
HAND_CARDS = """() => {
  document.getElementById("hand").scrollIntoView({ block: "center" });
  return [...document.querySelectorAll("#hand .card-btn")].map((button) => {
    const box = button.getBoundingClientRect();
    const rank = button.querySelector(".idx.tl .rank").getBoundingClientRect();
    const at = (x, y) => {
      const hit = document.elementFromPoint(x, y);
      return hit ? hit.closest(".card-btn") === button : false;
    };
    return {
      card: button.dataset.card,
      width: box.width,
      height: box.height,
      left: box.left,
      right: box.right,
      centre: at(box.left + box.width / 2, box.top + box.height / 2),
      rank: at(rank.left + rank.width / 2, rank.top + rank.height / 2),
      rankInside:
        rank.left >= box.left - 0.5 && rank.right <= box.right + 0.5 &&
        rank.top >= box.top - 0.5 && rank.bottom <= box.bottom + 0.5,
    };
  });
}"""

PILE_NAMES = """() => [...document.querySelectorAll("#board .pile")].map((pile) => {
  const name = pile.querySelector(".pile-name").getBoundingClientRect();
  const base = pile.querySelector(".stack .base");
  const b = base ? base.getBoundingClientRect() : null;
  const hit = document.elementFromPoint(name.left + name.width / 2, name.top + name.height / 2);
  return {
    pile: pile.dataset.pile,
    text: pile.querySelector(".pile-name").dataset.text,
    stacked: Boolean(base),
    overlaps: b !== null && name.left < b.right && b.left < name.right &&
      name.top < b.bottom && b.top < name.bottom,
    shown: Boolean(hit && hit.classList.contains("pile-name")),
  };
})"""


def close(a: float, b: float, tolerance: float = 2.0) -> bool:
    return abs(a - b) <= tolerance


def box_of(page: Page, selector: str) -> dict[str, float]:
    box = page.locator(selector).bounding_box()
    assert box is not None, selector
    return box


def start_solo_game(page: Page) -> str:
    code = create_room(page, "Ana", ["easy"], target=25)
    page.click("#start-go")
    expect(page.locator("#table")).to_be_visible()
    expect(page.locator("#hand .card-btn")).to_have_count(7)
    return code


class Wire:
    """The page's WebSocket, with the stacked deck added to its ``create`` and the room's
    version noted from the server's frames, so a test can send a patch of its own."""

    def __init__(self, page: Page, decks: list[list[str]], dealer: int) -> None:
        self.routes: list[WebSocketRoute] = []
        self.version = 0
        self.room = ""

        def route(ws: WebSocketRoute) -> None:
            server = ws.connect_to_server()

            def outgoing(message: str | bytes) -> None:
                if isinstance(message, str):
                    frame = json.loads(message)
                    if frame.get("type") == "create":
                        frame["options"].update(decks=decks, dealer=dealer)
                        message = json.dumps(frame)
                server.send(message)

            def incoming(message: str | bytes) -> None:
                if isinstance(message, str):
                    frame = json.loads(message)
                    if frame.get("type") == "snapshot":
                        self.version, self.room = frame["version"], frame["room"]
                    elif frame.get("type") == "patch":
                        self.version = frame["to"]
                ws.send(message)

            ws.on_message(outgoing)
            server.on_message(incoming)
            self.routes.append(ws)

        page.route_web_socket(re.compile(r"^wss?://"), route)

    def deal_more(self, cards: list[str]) -> None:
        """A patch "from the server" that puts ``cards`` in the player's hand."""
        ops = [{"op": "add", "path": "/game/hand/-", "value": card} for card in cards]
        frame = {
            "type": "patch",
            "room": self.room,
            "from": self.version,
            "to": self.version + 1,
            "ops": ops,
            "log": [],
        }
        self.routes[-1].send(json.dumps(frame))


def moving_page(pages: Pages, label: str) -> Page:
    """A page that lets things move (the pages fixture asks for reduced motion), its
    flights held as they start, at the start of the stacked two-seat game."""
    context = pages.browser.new_context(
        viewport=DESKTOP, locale="en-US", reduced_motion="no-preference"
    )
    context.set_default_timeout(10_000)
    pages.contexts.append(context)
    page = context.new_page()
    pages.watch(page, label)
    page.add_init_script(HOLD_FLIGHTS)
    Wire(page, [TWO_SEATS], dealer=1)
    page.goto(pages.base_url)
    start_solo_game(page)
    return page


def test_a_played_card_flies_from_the_hand_to_its_pile(pages: Pages, shot: Shot) -> None:
    page = moving_page(pages, "motion")

    page.click('#hand [data-card="8H"]')
    page.wait_for_timeout(250)  # the lift of a selected card is a short transition
    source = box_of(page, '#hand [data-card="8H"] .card')
    page.click('#board [data-pile="N"]')
    page.wait_for_function("window.__flights.length > 0")
    flight: dict[str, Any] = page.evaluate(FLIGHT_BOXES)
    target = box_of(page, '#board [data-pile="N"] .stack .top')
    assert flight["face"] == "8H"
    start, end = flight["start"], flight["end"]
    # It leaves from the card in the hand (the lifted card may be on its way down)…
    assert close(start["x"], source["x"]) and close(start["width"], source["width"]), start
    assert abs(start["y"] - source["y"]) <= 24, (start, source)
    # …and lands on the N pile's new top card.
    for key in ("x", "y", "width", "height"):
        assert close(end[key], target[key]), (key, end, target)
    assert abs(start["y"] - end["y"]) > 100
    expect(page.locator(".flight")).to_have_count(0)
    expect(page.locator('#board [data-pile="N"]')).to_have_class(re.compile(r"\blast-turn\b"))
    shot(page, "motion-played-desktop")

    # The card Ana draws comes face up from the stock to its place in her hand.
    stock = box_of(page, "#board .stock .card")
    before = set(page.locator("#hand .card-btn").evaluate_all("bs => bs.map(b => b.dataset.card)"))
    page.evaluate("window.__flights = []")
    page.click("#end-turn")
    # Ana's draw: the flight of a card that is in her hand now (on a busy machine the bot's
    # first flights may be started in the same frame as hers, and ahead of it).
    page.wait_for_function(
        """() => window.__flights.some((a) => document.querySelector(
          `#hand [data-card="${a.effect.target.querySelector(".card").dataset.code}"]`))"""
    )
    drawn: dict[str, Any] = page.evaluate(FLIGHT_BOXES, "in hand")
    assert drawn["face"] not in before
    card = drawn["inHand"]
    assert card is not None, drawn
    for key in ("x", "y", "width", "height"):
        assert close(drawn["start"][key], stock[key]), (key, drawn, stock)
        assert close(drawn["end"][key], card[key]), (key, drawn, card)
    # The bot's moves fly too (held here): let them all land until the turn is Ana's again
    # (on a busy machine the bot's later moves arrive after a first round of landings).
    page.wait_for_function(
        "() => { window.__flights.forEach((a) => a.finish());"
        " return document.querySelectorAll('.flight').length === 0"
        " && !document.querySelector('#end-turn').disabled; }",
        polling=100,
    )
    expect(page.locator(".flight")).to_have_count(0)


def test_last_turn_marked_pile_names_shown_and_no_motion_when_reduced(
    pages: Pages, shots: Shot
) -> None:
    page = pages.open("marks", setup=lambda page: Wire(page, [TWO_SEATS], dealer=1) and None)
    start_solo_game(page)
    me = page.locator("#me-plate .plate")
    bot = page.locator('#opponents .plate[data-seat="1"]')
    expect(page.locator("#board .pile.last-turn")).to_have_count(0)
    expect(page.locator(".last-tag")).to_have_count(0)

    # Ana plays two cards on N: N is marked and Ana is named as the last mover.
    for card in ("8H", "7S"):
        page.click(f'#hand [data-card="{card}"]')
        page.click('#board [data-pile="N"]')
        expect(page.locator(f'#hand [data-card="{card}"]')).to_have_count(0)
    expect(page.locator("#board .pile.last-turn")).to_have_count(1)
    expect(page.locator('#board [data-pile="N"]')).to_have_class(re.compile(r"\blast-turn\b"))
    expect(me).to_have_class(re.compile(r"\blast-mover\b"))
    expect(me.locator(".last-tag")).to_have_text("last move")
    expect(me).to_have_attribute("aria-label", re.compile(r"last move"))
    # Reduced motion: nothing travels, nothing animates.
    assert page.evaluate("document.getAnimations().length") == 0
    assert page.locator(".flight").count() == 0

    # No pile's name is covered by the base card peeking out, on a wide screen or a phone.
    for size in (DESKTOP, PHONE):
        page.set_viewport_size(size)
        page.evaluate("window.scrollTo(0, 0)")
        names: list[dict[str, Any]] = page.evaluate(PILE_NAMES)
        assert sorted(n["text"] for n in names) == sorted(
            ["N", "E", "S", "W", "NE", "SE", "SW", "NW"]
        )
        assert any(n["stacked"] for n in names)
        for name in names:
            assert not name["overlaps"], (size, name)
            assert name["shown"], (size, name)
    page.set_viewport_size(DESKTOP)

    # Ana's turn ends; the bot plays its turn and is the last mover until Ana acts.
    end_turn(page)
    expect(page.locator("#end-turn")).to_be_enabled()
    expect(bot).to_have_class(re.compile(r"\blast-mover\b"))
    expect(me).not_to_have_class(re.compile(r"\blast-mover\b"))
    lines = page.locator("#log li").all_inner_texts()
    drew = max(k for k, line in enumerate(lines) if line.startswith("Ana drew"))
    touched: set[str] = set()
    for line in lines[drew + 1 :]:
        if match := re.search(r" played \S+ on (\w+)\.$", line):
            touched.add(match.group(1))
        if match := re.search(r" moved pile (\w+) onto (\w+)\.$", line):
            touched.update(match.groups())
    marked = set(
        page.locator("#board .pile.last-turn").evaluate_all("ps => ps.map(p => p.dataset.pile)")
    )
    assert marked == touched
    shots(page, "motion-midgame")

    # Ana acts again: the mark moves on to her and to the pile she touches.
    playable = page.locator("#hand .card-btn.playable")
    if playable.count():
        playable.first.click()
        pile = page.locator("#board .pile.legal").first.get_attribute("data-pile")
        page.click(f'#board [data-pile="{pile}"]')
        expect(page.locator("#board .pile.last-turn")).to_have_count(1)
        expect(page.locator(f'#board [data-pile="{pile}"]')).to_have_class(
            re.compile(r"\blast-turn\b")
        )
    else:
        end_turn(page)
    expect(me).to_have_class(re.compile(r"\blast-mover\b"))
    expect(bot).not_to_have_class(re.compile(r"\blast-mover\b"))


def test_a_twenty_card_hand_is_readable_and_tappable(pages: Pages, shot: Shot) -> None:
    wires: list[Wire] = []
    page = pages.open("big hand", setup=lambda page: wires.append(Wire(page, [TWO_SEATS], 1)))
    wire = wires[0]
    start_solo_game(page)
    taken = set(RUN) | set(LONE_BOT) | set(TABLE)
    extra = [card for card in DECK if card not in taken][:13]
    wire.deal_more(extra)
    expect(page.locator("#hand .card-btn")).to_have_count(20)

    for size, name in ((DESKTOP, "desktop"), (PHONE, "phone")):
        resize(page, size)  # the hand is laid out again for the new width
        cards: list[dict[str, Any]] = page.evaluate(HAND_CARDS)
        assert len(cards) == 20
        for card in cards:
            assert card["width"] >= 44 and card["height"] >= 44, (name, card)
            assert card["centre"] and card["rank"] and card["rankInside"], (name, card)
            assert card["left"] >= 0 and card["right"] <= size["width"], (name, card)
        # A selected card rises in its place: its own corner and every other card's
        # still read (it never covers a neighbour's rank).
        page.click(f'#hand [data-card="{cards[3]["card"]}"]')
        expect(page.locator(f'#hand [data-card="{cards[3]["card"]}"]')).to_have_attribute(
            "aria-pressed", "true"
        )
        lifted: list[dict[str, Any]] = page.evaluate(HAND_CARDS)
        for card in lifted:
            assert card["rank"], (name, card)
        shot(page, f"motion-big-hand-{name}")
        page.keyboard.press("Escape")

    # The order: by suit and rank (the default), or as dealt; the choice is remembered.
    page.set_viewport_size(DESKTOP)
    sort = page.locator("#sort-hand")
    expect(sort).to_have_text("By suit")
    by_suit = page.locator("#hand .card-btn").evaluate_all("bs => bs.map(b => b.dataset.card)")
    suits = [card[-1] for card in by_suit]
    assert suits == sorted(suits, key="SHCD".index)
    sort.click()
    expect(sort).to_have_text("As dealt")
    dealt = page.locator("#hand .card-btn").evaluate_all("bs => bs.map(b => b.dataset.card)")
    assert dealt[-13:] == extra and sorted(dealt) == sorted(by_suit)
    assert page.evaluate("localStorage.getItem('kc.hand_order')") == '"dealt"'
    page.reload()
    expect(page.locator("#table")).to_be_visible()
    expect(page.locator("#sort-hand")).to_have_text("As dealt")
    page.click("#sort-hand")
    expect(page.locator("#sort-hand")).to_have_text("By suit")


ALL_FLIGHTS = """() => window.__flights.map((animation) => {
  const ghost = animation.effect.target;
  const timing = animation.effect.getComputedTiming();
  const box = () => {
    const r = ghost.getBoundingClientRect();
    return { x: r.left, y: r.top, width: r.width, height: r.height };
  };
  animation.currentTime = timing.delay;
  const start = box();
  animation.currentTime = timing.delay + timing.duration - 0.01;
  const end = box();
  const faces = [...ghost.querySelectorAll(".card")].map((c) => c.dataset.code || "back");
  return { start, end, faces };
})"""


def centre(box: dict[str, float]) -> tuple[float, float]:
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_a_moved_pile_slides_whole_and_the_other_seat_plays_from_its_plate(
    pages: Pages,
) -> None:
    page = moving_page(pages, "motion-pile")

    # N (9C) moves onto E (10D): the whole stack slides from N to E.
    source = box_of(page, '#board [data-pile="N"] .stack')
    page.click('#board [data-pile="N"]')
    page.click('#board [data-pile="E"]')
    page.wait_for_function("window.__flights.length > 0")
    (slide,) = page.evaluate(ALL_FLIGHTS)
    target = box_of(page, '#board [data-pile="E"] .stack')
    assert slide["faces"] == ["9C"]
    for key in ("x", "y", "width", "height"):
        assert close(slide["start"][key], source[key]), (key, slide, source)
        assert close(slide["end"][key], target[key]), (key, slide, target)
    assert abs(slide["start"]["y"] - slide["end"]["y"]) > 100
    page.evaluate("window.__flights.forEach((a) => a.finish()); window.__flights = []")
    expect(page.locator(".flight")).to_have_count(0)

    # Ana ends her turn; the bot's turn ends with its draw, face down from the stock to its
    # plate, and every card it plays leaves from its plate.
    stock = box_of(page, "#board .stock .card")
    plate = box_of(page, '#opponents .plate[data-seat="1"]')
    page.click("#end-turn")
    page.wait_for_function(
        "window.__flights.some((a) => a.effect.target.querySelector('.card.back'))"
    )
    flights: list[dict[str, Any]] = page.evaluate(ALL_FLIGHTS)
    mine, *theirs = flights
    assert mine["faces"] != ["back"]  # Ana's own draw comes face up
    assert close(mine["start"]["x"], stock["x"]), (mine, stock)
    drawn = [f for f in theirs if f["faces"] == ["back"]]
    played = [f for f in theirs if f["faces"] != ["back"]]
    assert len(drawn) == 1, theirs
    px, py = centre(plate)
    for flight in drawn:
        assert close(flight["start"]["x"], stock["x"]) and close(flight["start"]["y"], stock["y"])
        ex, ey = centre(flight["end"])
        assert close(ex, px) and close(ey, py), (flight, plate)
    for flight in played:
        sx, sy = centre(flight["start"])
        assert close(sx, px) and close(sy, py), (flight, plate)
        assert flight["start"]["width"] < flight["end"]["width"]
    page.evaluate("window.__flights.forEach((a) => a.finish())")
    expect(page.locator(".flight")).to_have_count(0)
