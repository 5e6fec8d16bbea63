"""The daily deal in Chromium: the same deal for every player, ranked once a day, then the
daily leaderboard with your own row highlighted (the test server's daily deal is one hand
against random bots: ``daily_target=1``, ``daily_level="random"``)."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from .conftest import Pages, Shot
from .helpers import hand_cards, my_board_row, play_until_over, storage_item


def play_daily(page: Page, name: str, bots: str = "bot · random") -> list[str]:
    """Start today's deal from the lobby; returns the hand dealt to seat 0 (the player)."""
    page.fill("#name", name)
    page.click("#daily-go")
    expect(page.locator("#table")).to_be_visible()
    expect(page.locator("#hand .card-btn")).to_have_count(7)
    expect(page.locator("#opponents .plate")).to_have_count(3)
    for i in range(3):
        expect(page.locator("#opponents .plate").nth(i)).to_contain_text(bots)
    # Only the player's own moves change this hand, and none has been made yet.
    return sorted(hand_cards(page))


def test_daily_deal_is_the_same_for_everyone_and_ranked_once(pages: Pages, shots: Shot) -> None:
    # Named so that no other test of this shared server has her name on today's board.
    ana = pages.open("ana")
    first_hand = play_daily(ana, "Aurelia")
    expect(ana.locator("#bar-daily")).to_have_text("Daily deal — ranked")
    ana_token = storage_item(ana, "localStorage", "kc.player")
    assert isinstance(ana_token, str) and len(ana_token) >= 16

    # Another browser (its own storage) is another player: the same deal, and ranked too,
    # since it is that player's first daily deal today. Its browser speaks Spanish.
    ben = pages.open("ben", locale="es-ES")
    assert play_daily(ben, "Ben", bots="bot · aleatorio") == first_hand
    expect(ben.locator("#bar-daily")).to_have_text("Reparto diario — clasificatoria")
    ben_token = storage_item(ben, "localStorage", "kc.player")
    assert isinstance(ben_token, str) and ben_token != ana_token

    # Ana plays the hand out; with target 1 it ends the match.
    play_until_over(ana)
    expect(ana.locator("#result-title")).to_have_text("Match over")
    expect(ana.locator("#play-again")).to_be_hidden()  # no rematch of the day's deal
    total = ana.locator('#result-table tr[data-seat="0"] td.total').inner_text()

    # Today's replay is withheld until the day is over: no button, a note saying when.
    expect(ana.locator("#result-replay")).to_be_hidden()
    expect(ana.locator("#result-note")).to_contain_text("opens when the day is over (UTC)")

    # The leaderboard, from the match-end screen: today's board, Ana's row highlighted.
    ana.click("#result-boards")
    expect(ana.locator("#boards")).to_be_visible()
    expect(ana.locator("#board-tab-daily")).to_have_attribute("aria-selected", "true")
    my_board_row(ana)
    mine = ana.locator("#board-table tr.mine")
    expect(mine.locator(".who-name")).to_have_text("Aurelia")
    expect(mine.locator(".you-tag")).to_have_text("you")
    expect(mine.locator("td.num").nth(1)).to_have_text(total)  # rank, penalty, hands
    expect(mine.locator("td.num").nth(2)).to_have_text("1")
    expect(ana.locator("#board-rank")).to_have_text(re.compile(r"^Your rank today: \d+ of \d+\.$"))
    expect(ana.locator("#board-caption")).to_contain_text("Daily deal of 20")
    shots(ana, "leaderboards")

    # All time, by keyboard from the selected tab: the daily deal is not rated, so it is
    # not on the all-time board (its own board above is where it counts).
    ana.locator("#board-tab-daily").focus()
    ana.keyboard.press("ArrowRight")
    expect(ana.locator("#board-tab-alltime")).to_have_attribute("aria-selected", "true")
    expect(ana.locator("#board-tab-alltime")).to_be_focused()
    expect(ana.locator("#board-caption")).to_contain_text("Every rated match")
    expect(ana.locator("#board-table tr.mine")).to_have_count(0)

    # Ben's board does not highlight Ana: his own identity is not on it yet.
    ben.click("#leave")
    ben.click("#leave-yes")  # the match is still on: leaving asks first
    ben.click("#boards-go")
    expect(ben.locator("#board-rank")).to_have_text(
        "Aún no estás en la clasificación de hoy: juega el reparto diario."
    )
    expect(ben.locator("#board-table tr.mine")).to_have_count(0)
    expect(ben.locator("#board-table .who-name", has_text="Aurelia")).to_have_count(1)

    # Back to the table, then a new game from the lobby: the same deal again, now practice.
    ana.locator("#boards .view-back").click()
    expect(ana.locator("#overlay")).to_be_visible()
    ana.click("#new-game")
    expect(ana.locator("#lobby")).to_be_visible()
    assert play_daily(ana, "Aurelia") == first_hand
    expect(ana.locator("#bar-daily")).to_have_text("Daily deal — practice (already played today)")
    assert storage_item(ana, "localStorage", "kc.player") == ana_token
