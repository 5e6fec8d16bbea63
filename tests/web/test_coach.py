"""The coach on the match result in Chromium: a known blunder (ending the turn one card short
of going out) is listed with the better line, its saving and the tip's words, in the
player's language, and "Replay this turn" opens the replay at that turn."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from .conftest import Pages, Shot
from .helpers import choose_language, create_room, stack_the_deck, stacked_deck

# Ana deals, so the bot moves first: nothing of its fits, it draws 2C and ends. Ana's hand
# is one run onto N's 9C; she plays six of it and ends one card short (the blunder),
# drawing AC. The bot draws 6H and still has nothing to play; Ana plays 2D and AC and goes
# out: the bot's nine cards end the match at the target of 9.
RUN = ["8H", "7S", "6D", "5C", "4H", "3S", "2D"]
BOT = ["QD", "QC", "5H", "5S", "3C", "3D", "AH"]
DECK = stacked_deck([BOT, RUN], ["9C", "9D", "JH", "JS"], ["2C", "AC", "6H"])


def play(page: Page, cards: list[str]) -> None:
    for card in cards:
        page.locator(f'#hand [data-card="{card}"]').click()
        page.locator('#board [data-pile="N"].legal').click()
        expect(page.locator(f'#hand [data-card="{card}"]')).to_have_count(0)


def finish_with_a_blunder(page: Page) -> str:
    code = create_room(page, "Ana", ["random"], target=9)
    page.click("#start-go")
    expect(page.locator("#end-turn")).to_be_enabled()  # after the bot's draw
    play(page, RUN[:6])
    page.click("#end-turn")
    expect(page.locator('#hand [data-card="AC"]')).to_have_count(1)
    expect(page.locator("#end-turn")).to_be_enabled()  # the bot drew again
    play(page, ["2D", "AC"])
    expect(page.locator("#result-title")).to_have_text("Match over")
    return code


def test_the_coach_names_the_turn_that_ended_one_card_short(pages: Pages, shots: Shot) -> None:
    ana = pages.open("coach", setup=lambda p: stack_the_deck(p, [DECK], dealer=0))
    code = finish_with_a_blunder(ana)

    coach = ana.locator("#result-coach")
    expect(coach).to_be_visible()
    expect(coach.locator("h3")).to_have_text("Your three costliest turns")
    turn = coach.locator(".coach-turn").first
    expect(turn).to_be_visible(timeout=60_000)  # computed in the bot workers
    expect(turn).to_have_attribute("data-step", "1")
    expect(turn.locator(".coach-where")).to_have_text("Hand 1, your hand:")
    expect(turn.locator(".coach-hand .card")).to_have_count(7)
    expect(turn.locator(".coach-played")).to_contain_text("You played: 8")
    expect(turn.locator(".coach-better")).to_have_text(
        re.compile("^Better: the same, then 2\u2666\ufe0e? → North$")
    )
    expect(turn.locator(".coach-why")).to_have_text(
        "It is your last card: the hand ends and you score 0."
    )
    expect(turn.locator(".coach-saved")).to_have_text(
        re.compile(r"^About \d+\.\d penalty points saved; chance to win \d+% → \d+%\.$")
    )
    ana.locator("#overlay").evaluate("o => o.querySelector('.dialog').scrollTo(0, 1e6)")
    shots(ana, "coach-result")
    # Narrowed with the result open (a phone turned upright): the table still fits.
    ana.set_viewport_size({"width": 1280, "height": 800})
    ana.set_viewport_size({"width": 375, "height": 667})
    fits = """() => {
      const dialog = document.querySelector('#overlay .dialog');
      return dialog.scrollWidth <= dialog.clientWidth;
    }"""
    ana.wait_for_function(fits, timeout=5000)
    ana.set_viewport_size({"width": 1280, "height": 800})

    # The same, in Czech.
    choose_language(ana, "cs")
    expect(coach.locator("h3")).to_have_text("Tvoje tři nejdražší tahy")
    expect(turn.locator(".coach-why")).to_have_text(re.compile(r"\S"))
    expect(turn.locator(".coach-replay")).to_have_text("Přehrát tento tah")
    choose_language(ana, "en")

    turn.locator(".coach-replay").click()
    expect(ana.locator("#replay-body")).to_be_visible()
    expect(ana).to_have_url(re.compile(rf"#replay/{code}-1/1$"))
    expect(ana.locator("#replay-slider")).to_have_value("1")
    expect(ana.locator("#replay-caption")).to_have_text("Bot 2 drew a card and ended the turn.")

    # Beside the replay, the same turns; each jumps to its step.
    side = ana.locator("#replay-coach")
    expect(side).to_be_visible()
    expect(side.locator(".coach-turn")).to_have_count(1)
    ana.click("#replay-last")
    expect(ana.locator("#replay-slider")).not_to_have_value("1")
    side.locator(".coach-replay").click()
    expect(ana.locator("#replay-slider")).to_have_value("1")
    shots(ana, "coach-replay")
