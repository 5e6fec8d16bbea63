"""The web client in a room that draws until a card can be played: the lobby offers the
rule, the table has a "Draw a card" button (and the D key) while nothing can be played,
and "End turn" only once a card was played."""

from __future__ import annotations

from playwright.sync_api import expect

from .conftest import Pages, Shot
from .helpers import hand_cards, stack_the_deck, stacked_deck

# Two seats, the bot deals: Ana moves first with cards that fit nowhere, on a table where
# no pile can move; the stock gives 10S (no use either), then 8D (onto N's 9C).
ANA = ["2C", "2S", "3C", "3S", "AC", "AS", "10C"]
BOT = ["2D", "2H", "3H", "AD", "AH", "4D", "4H"]
STUCK = stacked_deck([ANA, BOT], ["9C", "5D", "7H", "QS"], ["10S", "8D"])


def test_draw_a_card_until_one_can_be_played_then_end_the_turn(pages: Pages, shots: Shot) -> None:
    page = pages.open("until playable", setup=lambda p: stack_the_deck(p, [STUCK], 1))
    page.fill("#name", "Ana")
    page.select_option("#opt-seats", "2")
    page.select_option("#seat-opt-1", "easy")
    page.select_option("#opt-draw", "until_playable")
    page.click("#create-go")
    expect(page.locator("#waiting")).to_be_visible()
    expect(page.locator("#wait-options")).to_contain_text("draw until playable")
    page.click("#start-go")

    draw, end = page.locator("#draw-card"), page.locator("#end-turn")
    expect(draw).to_be_visible()
    expect(draw).to_have_text("Draw a card")
    expect(draw).to_be_enabled()
    expect(end).to_have_text("End turn")  # nothing is drawn to end a turn here
    expect(end).to_be_disabled()
    expect(end).to_have_attribute("title", "Play a card from your hand before ending the turn.")
    expect(page.locator("#status")).to_have_text("Nothing in your hand can be played: draw a card.")
    shots(page, "until-playable-stuck")

    # D draws while the table has the keys: 10S fits nowhere, so the button stays.
    page.wait_for_function("() => Boolean(document.activeElement.closest('#hand'))")
    page.keyboard.press("d")
    expect(page.locator('#hand [data-card="10S"]')).to_have_count(1)
    expect(page.locator("#log")).to_contain_text("Ana drew a card.")
    expect(draw).to_be_enabled()
    draw.click()
    expect(page.locator('#hand [data-card="8D"]')).to_have_count(1)
    expect(draw).to_be_disabled()  # 8D fits on 9C
    expect(end).to_be_disabled()
    expect(page.locator("#status")).to_have_text(
        "Play a card from your hand before ending the turn."
    )

    page.click('#hand [data-card="8D"]')
    page.click('#board [data-pile="N"]')
    expect(page.locator('#hand [data-card="8D"]')).to_have_count(0)
    expect(end).to_be_enabled()
    before = len(hand_cards(page))
    end.click()
    expect(page.locator("#log")).to_contain_text("Ana ended the turn.")
    assert len(hand_cards(page)) == before == 8  # nothing drawn to end it
