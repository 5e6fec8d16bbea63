"""Driving the web client the way a person does: by what the page shows."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping, Sequence

from playwright.sync_api import Page, WebSocket, WebSocketRoute, expect

from protocol.engine import DECK

HAND_SIZE = 7


def stacked_deck(
    hands: Sequence[Sequence[str]], table: Sequence[str], stock: Sequence[str]
) -> list[str]:
    """A 52-card deck (index 0 = top) dealing ``hands`` when the last seat deals.

    ``hands[k]`` is the hand of seat ``k``; seat 0 sits left of the dealer, so it gets the
    first card and moves first. ``table`` goes face up on N, E, S, W; ``stock`` starts the
    stock, and every card not named follows in canonical order.
    """
    deck = [hand[i] for i in range(HAND_SIZE) for hand in hands]
    deck += [*table, *stock]
    deck += [card for card in DECK if card not in set(deck)]
    assert len(deck) == 52 and len(set(deck)) == 52
    return deck


def rewrite_create(
    page: Page, servers: list[WebSocketRoute] | None = None, **options: object
) -> list[WebSocketRoute]:
    """Add ``options`` to the ``create`` messages this page sends; everything else passes.

    Returns the page's WebSocket routes (one per connection, newest last): a test can send
    the page a frame "from the server" with ``routes[-1].send(...)``; ``servers`` collects
    the server sides, to speak to the server as the page does.
    """
    routes: list[WebSocketRoute] = []

    def route(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        if servers is not None:
            servers.append(server)

        def forward(message: str | bytes) -> None:
            if isinstance(message, str) and options:
                frame = json.loads(message)
                if frame.get("type") == "create":
                    frame["options"].update(options)
                    message = json.dumps(frame)
            server.send(message)

        ws.on_message(forward)
        routes.append(ws)

    page.route_web_socket(re.compile(r"^wss?://"), route)
    return routes


def stack_the_deck(page: Page, decks: list[list[str]], dealer: int) -> None:
    """Add stacked decks and a dealer to the room this page creates.

    The lobby has no such options (they are for tests and tournaments), so the test adds
    them to the page's outgoing ``create`` message.
    """
    rewrite_create(page, decks=decks, dealer=dealer)


def create_room(page: Page, name: str, seats: list[str], target: int) -> str:
    """Fill the lobby's form and create a room; returns its code."""
    page.fill("#name", name)
    page.select_option("#opt-seats", str(len(seats) + 1))
    for i, choice in enumerate(seats, start=1):
        page.select_option(f"#seat-opt-{i}", choice)
    page.fill("#opt-target", str(target))
    moved: list[str] = []

    def watch(ws: WebSocket) -> None:
        if "room=" in ws.url:
            ws.on("framereceived", lambda data: moved.append(str(data)))

    page.on("websocket", watch)
    page.click("#create-go")
    expect(page.locator("#waiting")).to_be_visible()
    code = page.locator("#share-code").inner_text()
    assert re.fullmatch(r"[A-Z0-9]{6}", code)
    expect(page.locator("#share-link")).to_have_value(re.compile(rf"/\?room={code}$"))
    # The page moves to a socket naming the room (docs/protocol.md, "Transport"): wait
    # until it took the seat there, so what a test then sends reaches the socket it reads.
    for _ in range(500):
        if any('"joined"' in frame for frame in moved):
            break
        page.wait_for_timeout(20)
    else:
        raise AssertionError("the page never moved to a socket naming its room")
    page.remove_listener("websocket", watch)
    return code


def join_by_link(page: Page, name: str) -> None:
    """On a page opened with ``/?room=CODE``: type a name and take a seat."""
    page.fill("#name", name)
    page.click("#invite-join")
    expect(page.locator("#waiting")).to_be_visible()


def resize(page: Page, size: Mapping[str, int]) -> None:
    """Give ``page`` the viewport ``size`` (width, height) and wait until it has reacted.

    Playwright returns once the window has its new size, but the page hears of it only
    with its next frame: the resize event, on which the client lays the hand out, comes
    then (before that frame's animation callbacks), and a busy machine can take a while to
    draw one. Measuring straight away would measure the old layout at the new size.
    """
    width, height = size["width"], size["height"]
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_function("([w, h]) => innerWidth === w && innerHeight === h", arg=[width, height])
    page.evaluate(
        "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
    )


def choose_language(page: Page, code: str) -> None:
    """Open the language menu and choose ``code`` (en, es, cs) from it."""
    page.click("#lang")
    page.click(f'#lang-menu [data-lang="{code}"]')
    expect(page.locator("html")).to_have_attribute("lang", code)
    expect(page.locator("#lang-menu")).to_be_hidden()


def hand_cards(page: Page) -> list[str]:
    cards: list[str] = page.locator("#hand .card-btn").evaluate_all(
        "buttons => buttons.map(b => b.dataset.card)"
    )
    return cards


def gold_piles(page: Page) -> list[str]:
    """The piles glowing gold for the current selection."""
    piles: list[str] = page.locator("#board .pile.legal").evaluate_all(
        "buttons => buttons.map(b => b.dataset.pile)"
    )
    return piles


def result_shown(page: Page) -> bool:
    return page.locator("#overlay").is_visible()


def wait_for_mover(pages: Sequence[Page], timeout: float = 15.0) -> Page | None:
    """The page whose turn it is, or None once the hand is over (bots move by themselves)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for page in pages:
            if result_shown(page):
                return None
            if page.locator("#end-turn").is_enabled():
                return page
        pages[0].wait_for_timeout(40)
    raise AssertionError("nobody got the turn")


def play_a_card(page: Page) -> str | None:
    """Tap the first card marked playable, then the first pile that glows gold for it.

    Returns the action played (``7H>N``), or None when no card fits anywhere.
    """
    playable = page.locator("#hand .card-btn.playable")
    if playable.count() == 0:
        return None
    button = playable.first
    card = button.get_attribute("data-card")
    button.click()
    expect(button).to_have_attribute("aria-pressed", "true")
    piles = gold_piles(page)
    assert piles, f"{card} is marked playable but lights no pile"
    page.locator(f'#board [data-pile="{piles[0]}"]').click()
    expect(page.locator(f'#hand [data-card="{card}"]')).to_have_count(0)
    return f"{card}>{piles[0]}"


def play_turn(page: Page) -> list[str]:
    """Play every card that fits, then "Draw and end turn" (unless the hand ended)."""
    played: list[str] = []
    while not result_shown(page):
        action = play_a_card(page)
        if action is None:
            break
        played.append(action)
    if not result_shown(page):
        end_turn(page)
    return played


MARK_LAST_LOG_LINE = """() => {
  const last = document.querySelector("#log li:last-child");
  if (last) last.dataset.seen = "yes";
}"""
NEW_LOG_LINE = """() => {
  const last = document.querySelector("#log li:last-child");
  return Boolean(last) && last.dataset.seen !== "yes";
}"""


def end_turn(page: Page) -> None:
    """Click "Draw and end turn" and wait until the server's answer is in.

    Bots without a delay may play a whole round before the button could be seen disabled,
    so the sign is the table log: the end of the turn always adds a line to it.
    """
    page.evaluate(MARK_LAST_LOG_LINE)
    page.locator("#end-turn").click()
    page.wait_for_function(NEW_LOG_LINE)


def penalty(cards: Sequence[str]) -> int:
    return sum(10 if card.startswith("K") else 1 for card in cards)


def play_until_over(page: Page, turns: int = 80) -> None:
    """Play this page's turns (bots play theirs) until the hand's result shows."""
    for _ in range(turns):
        if wait_for_mover([page]) is None:
            return
        play_turn(page)
    raise AssertionError(f"the hand lasted more than {turns} turns")


def storage_item(page: Page, area: str, key: str) -> object:
    """A JSON value the client keeps in ``localStorage`` or ``sessionStorage``."""
    raw = page.evaluate("([area, key]) => window[area].getItem(key)", [area, key])
    return None if raw is None else json.loads(raw)


def my_board_row(page: Page) -> None:
    """Wait for the leaderboard's highlighted row. History is written just after the last
    move, so the board is asked again if its first answer came before that."""
    mine = page.locator("#board-table tr.mine")
    for _ in range(10):
        if mine.count() == 1:
            return
        page.click("#board-refresh")
        page.wait_for_timeout(200)
    expect(mine).to_have_count(1)
