"""A whole corners match with the opening refill, played in Chromium through the real
server: the room made with the lobby form's two variant controls, a corner collected by
the player's own pile moves in the first turn, and the result placed by corners.

The deal (seat 1, a heuristic bot, deals, so Ana moves first): K♠, Q♥, J♣ and 10♦ lie on
the side spaces and the stock starts 9♠ … A♠. In the opening refill's window each side pile
Ana moves onto the NE corner is replaced by the stock's top card, so thirteen moves (N, E,
S, W, three times over, then N) build NE from king to ace and collect it. She then plays
10♥ (the window closes) and ends her turn holding three kings; the bot plays its seven
cards onto the 8♣ the last refills left and goes out. Ana is placed first on her corner,
though the bot has no penalty: a ranking by penalty would put the bot first.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from playwright.sync_api import Page, expect

from server.room import VARIANTS_FORMAT, Room

from .conftest import Pages, ServerThread, Shot
from .helpers import create_room, end_turn, stack_the_deck, stacked_deck

#: Ana's hand: 10♥ fits on the J♠ the last refill leaves on N; three kings weigh 30.
ANA = ["10H", "KH", "KD", "KC", "QD", "JD", "9C"]
#: The bot's hand: each card fits on the one before, the first on an 8♣.
BOT = ["7H", "6S", "5H", "4S", "3H", "2S", "AH"]
#: N, E, S, W as dealt: the corner's first four cards.
TABLE = ["KS", "QH", "JC", "10D"]
#: The stock's top: the rest of the corner, refilled onto N, E, S, W in turn.
RUN = ["9S", "8H", "7C", "6D", "5S", "4H", "3C", "2D", "AS"]
#: What the next refills leave on E, S, W and N once the corner is collected: nothing of
#: the bot's fits anywhere but on 8♣, and no side pile fits on another.
AFTER = ["8C", "QC", "2H", "JS"]
#: The card Ana draws as she ends her turn.
DRAWN = "9D"
#: The side piles Ana moves onto NE, in order: each one was refilled by an earlier move.
MOVES = ("N", "E", "S", "W") * 3 + ("N",)
#: Ana's penalty at the end: three kings, three other cards and the one she drew.
ANA_PENALTY = 30 + 4
#: How long to wait for what needs the server's answer (a busy two-core machine).
ANSWER = 15_000


def corners_deck() -> list[str]:
    """The stacked deck above (index 0 the top), dealt with seat 1 dealing."""
    return stacked_deck([ANA, BOT], TABLE, [*RUN, *AFTER, DRAWN])


def stored_room(web_server: ServerThread, code: str) -> tuple[Room, list[dict[str, Any]]]:
    """The room as the server's store has it: its events, folded again."""
    game = web_server.game
    assert game is not None
    read = asyncio.run_coroutine_threadsafe(game.store.read(code), web_server.loop)
    events = read.result(timeout=10)
    return Room.from_events(events), events


def move_pile(page: Page, source: str, target: str) -> None:
    """Tap a pile, then the pile it goes onto, as a person does."""
    page.locator(f'#board [data-pile="{source}"]').click()
    expect(page.locator(f'#board [data-pile="{source}"]')).to_have_attribute(
        "aria-label", re.compile("selected to move$")
    )
    page.locator(f'#board [data-pile="{target}"]').click()


def test_a_corners_match_with_the_opening_refill_against_a_bot(
    pages: Pages, web_server: ServerThread, shots: Shot
) -> None:
    ana = pages.open("ana", setup=lambda page: stack_the_deck(page, [corners_deck()], dealer=1))
    # The two variants chosen in the lobby's form, as a person chooses them.
    ana.select_option("#opt-scoring", "corners")
    ana.locator("#opt-opening_refill").check()
    code = create_room(ana, "Ana", ["heuristic"], target=25)
    expect(ana.locator("#wait-options")).to_contain_text("corners collected")
    expect(ana.locator("#wait-options")).to_contain_text("opening refill")
    ana.click("#start-go")
    expect(ana.locator("#end-turn")).to_be_enabled(timeout=ANSWER)

    # The first turn: the refill's note, the bar naming corners, nobody's corners yet.
    note = ana.locator("#status .refill-note")
    expect(note).to_have_text(
        "Opening refill: moving a side pile away refills its space from the stock until you"
        " play a card."
    )
    expect(ana.locator("#bar-hand")).to_have_text("Hand 1 · corners collected")
    mine = ana.locator("#me-plate .corners-long")
    bots = ana.locator('#opponents [data-seat="1"] .corners-long')
    expect(mine).to_have_text("corners: 0")
    expect(bots).to_have_text("corners: 0")
    stock = ana.locator("#board .stock-count")
    expect(stock).to_have_text(str(52 - 14 - 4))

    # Thirteen pile moves onto NE, each refilling the side space it empties.
    ne = ana.locator('#board [data-pile="NE"]')
    for n, source in enumerate(MOVES, start=1):
        move_pile(ana, source, "NE")
        expect(stock).to_have_text(str(52 - 14 - 4 - n), timeout=ANSWER)
        if n < len(MOVES):
            expect(ne.locator(".count")).to_have_text(str(n))
            expect(note).to_be_visible()  # pile moves keep the window open
        if n == 1:
            expect(ana.locator("#log")).to_contain_text(
                "Ana moved pile N onto NE; 9\u2660\ufe0e from the stock refills N."
            )
            expect(ana.locator('#board [data-pile="N"]')).to_have_attribute(
                "aria-label", re.compile(r"^N: .*: 9 of spades, 1 card")
            )
        if n == 12:
            expect(mine).to_have_text("corners: 0")
            shots(ana, "variants-match-before-collection")

    # The ace completed the corner: Ana collected it, NE is empty again.
    expect(mine).to_have_text("corners: 1")
    expect(bots).to_have_text("corners: 0")
    expect(ne).to_have_class(re.compile(r"\bempty\b"))
    expect(ana.locator("#log")).to_contain_text(
        "Ana completed the NE corner and collected it (1 so far)."
    )
    expect(ana.locator('#opponents [data-seat="1"]')).to_have_attribute(
        "aria-label", re.compile("corners: 0")
    )
    shots(ana, "variants-match-collected")

    # A card from the hand closes the refill's window.
    ana.locator('#hand [data-card="10H"]').click()
    ana.locator('#board [data-pile="N"]').click()
    expect(ana.locator('#hand [data-card="10H"]')).to_have_count(0, timeout=ANSWER)
    expect(note).to_have_count(0)
    end_turn(ana)

    # The bot goes out; the result ranks by corners, not by penalty.
    expect(ana.locator("#overlay")).to_be_visible(timeout=ANSWER)
    expect(ana.locator("#result-title")).to_have_text("Match over")
    expect(ana.locator("#result-reason")).to_contain_text("Placed by corners collected")
    expect(ana.locator("#result-winners")).to_contain_text("Winner: Ana.")
    expect(ana.locator("#result-table thead")).to_contain_text("Corners")
    rows = ana.locator("#result-table tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0).locator("th")).to_have_text("Ana")
    expect(rows.nth(0).locator(".place")).to_have_text("1")
    expect(rows.nth(0).locator(".corners")).to_have_text("1")
    expect(rows.nth(0)).to_contain_text(f"+{ANA_PENALTY}")
    expect(rows.nth(1).locator("th")).to_have_text("Bot 2")
    expect(rows.nth(1).locator(".place")).to_have_text("2")
    expect(rows.nth(1).locator(".corners")).to_have_text("0")
    expect(rows.nth(1)).to_contain_text("+0")
    shots(ana, "variants-match-result")

    # The server's own state: the options, the stored log's marks and the match it folds.
    room, events = stored_room(web_server, code)
    assert events[0]["options"]["scoring"] == "corners"
    assert events[0]["options"]["opening_refill"] is True
    acts = [(e["seat"], e["a"], e.get("v")) for e in events if e["e"] == "act"]
    assert acts[: len(MOVES)] == [(0, f"{s}>NE", VARIANTS_FORMAT) for s in MOVES]
    assert acts[len(MOVES) :] == [
        (0, "10H>N", None),
        (0, "end", None),
        *[(1, f"{card}>E", None) for card in BOT],
    ]
    match = room.match
    assert match is not None and match.phase == "finished"
    assert match.position.collected == (1, 0)
    assert match.places == (1, 2) and match.winners == (0,)
    assert match.position.result is not None
    assert match.position.result.penalties == (ANA_PENALTY, 0)
