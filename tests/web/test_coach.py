"""The coach on the match result in Chromium, on the real server's review: a known blunder
(ending the turn one card short of going out) is listed first as a turn that could have gone
out, with where the lines part, what the better one gains, its saving, in the player's
language; "Replay this turn" opens the replay at that turn, and beside the replay its better
line plays out on the table, move by move, and gives way again to what was played."""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

from .conftest import Pages, Shot
from .helpers import choose_language, create_room, stack_the_deck, stacked_deck

# Ana deals, so the bot moves first: nothing of its fits, it draws 2C and ends. Ana's hand
# is one run onto N's 9C; she plays six of it and ends one card short (the blunder),
# drawing AC. The bot draws 6H and still has nothing to play; Ana plays 2D and AC and goes
# out: the bot's nine cards end the match at the target of 9.
RUN = ["8H", "7S", "6D", "5C", "4H", "3S", "2D"]
BOT = ["QD", "QC", "5H", "5S", "3C", "3D", "AH"]
DECK = stacked_deck([BOT, RUN], ["9C", "9D", "JH", "JS"], ["2C", "AC", "6H"])
SUITS = {"H": "\u2665\ufe0e", "D": "\u2666\ufe0e", "C": "\u2663\ufe0e", "S": "\u2660\ufe0e"}


def card_text(code: str) -> str:
    """A card as the coach's lines write it: 8♥︎."""
    return code[:-1] + SUITS[code[-1]]


def line_text(cards: list[str], pile: str = "North") -> str:
    """Plays of ``cards`` onto one pile, as the coach's lines write them."""
    return ", ".join(f"{card_text(card)} → {pile}" for card in cards)


def replay_hand(page: Page, seat: int = 0) -> Locator:
    return page.locator(f'#replay-felt .open-hand[data-seat="{seat}"] .card')


def pile_top(page: Page, pile: str) -> Locator:
    return page.locator(f'#replay-felt [data-pile="{pile}"] .stack .top')


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
    turn = coach.locator(".coach-turn").first
    expect(turn).to_be_visible(timeout=60_000)  # computed in the bot workers
    # One turn: the heading says one, not three.
    expect(coach.locator("h3")).to_have_text("Your costliest turn")
    expect(coach.locator(".coach-turn")).to_have_count(1)
    expect(turn).to_have_attribute("data-step", "1")
    # Its first line: she could have gone out.
    expect(turn.locator("p").first).to_have_text("You could have gone out this turn.")
    expect(turn.locator("p").first).to_have_class("coach-out")
    expect(turn.locator(".coach-where")).to_have_text("Hand 1, your hand:")
    expect(turn.locator(".coach-hand .card")).to_have_count(7)
    # The fork: the six plays both lines share once, then where they part.
    expect(turn.locator(".coach-common")).to_have_text(f"As you played: {line_text(RUN[:6])}")
    expect(turn.locator(".coach-played")).to_have_text("Then you ended your turn.")
    expect(turn.locator(".coach-better")).to_have_text(f"Better from there: {line_text(RUN[6:])}")
    expect(turn.locator(".coach-why")).to_have_text(
        "You could have gone out: 2\u2666\ufe0e on North was your last card, the hand ends"
        " and you score 0."
    )
    expect(turn.locator(".coach-show-better")).to_have_count(0)  # that is the replay's
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
    expect(coach.locator("h3")).to_have_text("Tvůj nejdražší tah")
    expect(turn.locator("p").first).to_have_text("V tomhle tahu jsi mohl dohrát.")
    expect(turn.locator(".coach-why")).to_have_text(re.compile(r"^Mohl jsi dohrát: 2"))
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
    expect(side.locator("h2")).to_have_text("Your costliest turn")
    expect(side.locator(".coach-turn")).to_have_count(1)
    ana.click("#replay-last")
    expect(ana.locator("#replay-slider")).not_to_have_value("1")
    side.locator(".coach-replay").click()
    expect(ana.locator("#replay-slider")).to_have_value("1")
    shots(ana, "coach-replay")

    # Its better line, on the table: the turn as it began, then a move a step.
    status = ana.locator("#replay-better-status")
    expect(ana.locator("#replay-better")).to_be_hidden()
    side.locator(".coach-show-better").click()
    expect(status).to_have_text("Better line: the turn as it began")
    expect(side.locator(".coach-show-better")).to_have_text("Back to what you played")
    expect(side.locator(".coach-turn")).to_have_class(re.compile(r"\bshowing\b"))
    expect(ana.locator("#replay-next")).to_be_focused()
    expect(ana.locator("#replay-slider")).to_be_disabled()
    expect(replay_hand(ana)).to_have_count(7)
    expect(pile_top(ana, "N")).to_have_attribute("data-code", "9C")
    ana.click("#replay-next")
    expect(status).to_have_text("Better line: move 1 of 7")
    expect(ana.locator("#replay-caption")).to_have_text("Ana played 8\u2665\ufe0e on N.")
    expect(replay_hand(ana)).to_have_count(6)
    expect(ana.locator('#replay-felt .open-hand[data-seat="0"] [data-code="8H"]')).to_have_count(0)
    expect(pile_top(ana, "N")).to_have_attribute("data-code", "8H")
    # The replay's keys step through it too: to its end, the hand empty, and one back.
    ana.keyboard.press("End")
    expect(status).to_have_text("Better line: move 7 of 7")
    expect(replay_hand(ana)).to_have_count(0)
    expect(pile_top(ana, "N")).to_have_attribute("data-code", "2D")
    expect(ana.locator('#replay-felt [data-pile="N"] .count')).to_have_text("8")
    expect(ana.locator("#replay-next")).to_be_disabled()
    ana.keyboard.press("ArrowLeft")
    expect(status).to_have_text("Better line: move 6 of 7")
    expect(replay_hand(ana)).to_have_count(1)
    expect(pile_top(ana, "N")).to_have_attribute("data-code", "3S")
    ana.keyboard.press("ArrowRight")
    expect(status).to_have_text("Better line: move 7 of 7")
    shots(ana, "coach-better-line")

    # Back to what was played: the replay at the turn's step, the table as it was.
    ana.click("#replay-better-back")
    expect(ana.locator("#replay-better")).to_be_hidden()
    expect(ana.locator("#replay-next")).to_be_focused()
    expect(ana.locator("#replay-slider")).to_have_value("1")
    expect(ana.locator("#replay-slider")).to_be_enabled()
    expect(ana.locator("#replay-caption")).to_have_text("Bot 2 drew a card and ended the turn.")
    expect(replay_hand(ana)).to_have_count(7)
    expect(pile_top(ana, "N")).to_have_attribute("data-code", "9C")
    expect(side.locator(".coach-show-better")).to_have_text("Play the better line")
    # The replay steps on as it was played: six plays and the end of the turn.
    ana.click("#replay-last")
    ana.click("#replay-first")
    ana.locator("#replay-slider").fill("7")
    expect(pile_top(ana, "N")).to_have_attribute("data-code", "3S")
    expect(replay_hand(ana)).to_have_count(1)
