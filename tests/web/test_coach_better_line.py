"""The coach's words and its better lines in Chromium, on reviews made up for the test.

A real match is played (a real replay), but the review the page asks for
(``GET /api/matches/ID/review``) is answered by the test with turns written here: one that
could have gone out, one whose better line moves a pile, one where nothing was played, and
reviews of two, one and no turns. What the real server's review of a real blunder looks like
is checked in ``test_coach.py``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import Page, Route, expect

from .conftest import Pages, Shot
from .helpers import create_room, stack_the_deck, stacked_deck
from .test_accessibility import serious
from .test_coach import card_text, line_text, pile_top, play, replay_hand

# The bot deals, so Ana moves first; her run onto N's 9C empties her hand in one turn and,
# at target 1, ends the match. N's 9C may also move whole onto E's 10D.
RUN = ["8H", "7S", "6D", "5C", "4H", "3S", "2D"]
BOT = ["QD", "JD", "8S", "8C", "6C", "5H", "2H"]
TABLE = ["9C", "10D", "JH", "7C"]
DECK = stacked_deck([RUN, BOT], TABLE, [])
CORNERS: dict[str, list[str]] = {"NE": [], "SE": [], "SW": [], "NW": []}


def position(hand: list[str], north: list[str]) -> dict[str, Any]:
    piles = {"N": north, "E": ["10D"], "S": ["JH"], "W": ["7C"], **CORNERS}
    return {"hand": hand, "piles": piles, "stock": 31, "counts": [len(hand), 7], "hand_no": 1}


def turn(
    step: int,
    hand: list[str],
    north: list[str],
    played: list[str],
    better: list[str],
    fork: int,
    reason: dict[str, Any],
    *,
    could_go_out: bool = False,
    cost: float = 2.0,
) -> dict[str, Any]:
    return {
        "hand": 0,
        "step": step,
        "seat": 0,
        "position": position(hand, north),
        "played": played,
        "better": better,
        "fork": fork,
        "cost": cost,
        "could_go_out": could_go_out,
        "win_chance": {"played": 0.4, "better": 0.6},
        "reason": {**reason, "at": 0},
    }


# After two plays (step 2) the rest of the run would have gone out.
GOES_OUT = turn(
    2,
    RUN[2:],
    ["9C", "8H", "7S"],
    ["6D>N", "5C>N"],
    ["6D>N", "5C>N", "4H>N", "3S>N", "2D>N"],
    2,
    {"code": "goes_out", "params": {"card": "2D", "pile": "N"}},
    could_go_out=True,
    cost=5.0,
)
# At the start: N moved whole onto E first, then 8H after it (a line that parts at once).
MERGES = turn(
    0,
    RUN,
    ["9C"],
    ["8H>N"],
    ["N>E", "8H>E"],
    0,
    {"code": "plays_more", "params": {"count": 2, "card": "8H", "pile": "E"}},
)
NOTHING = turn(
    5,
    RUN[5:],
    ["9C", "8H", "7S", "6D", "5C", "4H"],
    [],
    ["3S>N"],
    0,
    {"code": "closes_space", "params": {"count": 1}},
    cost=1.0,
)
FOLLOW = turn(
    4,
    RUN[4:],
    ["9C", "8H", "7S", "6D", "5C"],
    ["4H>N", "3S>N"],
    ["4H>N"],
    1,
    {"code": "keeps_follow", "params": {"card": "2D", "target": "3S", "pile": "N"}},
)
HOLDS = turn(
    3,
    RUN[3:],
    ["9C", "8H", "7S", "6D"],
    ["5C>N"],
    ["5C>N"],
    1,
    {"code": "holds_back", "params": {"card": "4H", "count": 3}},
)


def review(*turns: dict[str, Any]) -> dict[str, Any]:
    seat = {"seat": 0, "turns": 4, "mistakes": len(turns), "lost": 9.0, "costliest": list(turns)}
    return {"match": "any", "worlds": 16, "threshold": 0.5, "seats": [seat, None]}


class Reviews:
    """Answers the page's review requests with ``self.now``."""

    def __init__(self, first: dict[str, Any]) -> None:
        self.now = first

    def serve(self, route: Route) -> None:
        route.fulfill(status=200, content_type="application/json", body=json.dumps(self.now))

    def install(self, page: Page) -> None:
        page.route(re.compile(r"/api/matches/[^/]+/review$"), self.serve)
        stack_the_deck(page, [DECK], dealer=1)


def finish(page: Page) -> str:
    """Ana plays her run and goes out: the match is over. Returns the match's id."""
    code = create_room(page, "Ana", ["random"], target=1)
    page.click("#start-go")
    expect(page.locator("#end-turn")).to_be_enabled()
    play(page, RUN[:-1])
    page.locator('#hand [data-card="2D"]').click()
    page.locator('#board [data-pile="N"].legal').click()
    expect(page.locator("#result-title")).to_have_text("Match over")
    return f"{code}-1"


def reopen_replay(page: Page, match: str) -> None:
    """Leave the replay for "My matches" and open it again: its review is asked anew."""
    page.evaluate("location.hash = '#matches'")
    page.locator(f'#match-list li[data-match="{match}"] button').first.click()
    expect(page.locator("#replay-body")).to_be_visible()


def test_three_turns_read_plainly_and_their_better_lines_play_on_the_table(
    pages: Pages, shots: Shot
) -> None:
    reviews = Reviews(review(GOES_OUT, MERGES, NOTHING))
    ana = pages.open("coach-lines", setup=reviews.install)
    match = finish(ana)

    coach = ana.locator("#result-coach")
    items = coach.locator(".coach-turn")
    expect(items).to_have_count(3)
    expect(coach.locator("h3")).to_have_text("Your three costliest turns")
    expect(coach.locator("#coach-note")).to_be_hidden()

    # Could have gone out: said first, then the shared start and where the lines part.
    out = items.nth(0)
    expect(out.locator("p").first).to_have_text("You could have gone out this turn.")
    expect(out.locator(".coach-common")).to_have_text(f"As you played: {line_text(['6D', '5C'])}")
    expect(out.locator(".coach-played")).to_have_text("Then you ended your turn.")
    expect(out.locator(".coach-better")).to_have_text(
        f"Better from there: {line_text(['4H', '3S', '2D'])}"
    )
    expect(out.locator(".coach-why")).to_have_text(
        f"You could have gone out: {card_text('2D')} on North was your last card, the hand"
        " ends and you score 0."
    )
    expect(out.locator(".coach-saved")).to_have_text(
        "About 5.0 penalty points saved; chance to win 40% → 60%."
    )

    # Parting at once: the two whole lines, a pile moved whole, the count a plain number.
    merge = items.nth(1)
    expect(merge.locator(".coach-out")).to_have_count(0)
    expect(merge.locator("p").first).to_have_text("Hand 1, your hand:")
    expect(merge.locator(".coach-common")).to_have_count(0)
    expect(merge.locator(".coach-played")).to_have_text(f"You played: {line_text(['8H'])}")
    expect(merge.locator(".coach-better")).to_have_text(
        f"Better: North → East, {card_text('8H')} → East"
    )
    expect(merge.locator(".coach-why")).to_have_text(
        "Each card left costs a point: that line leaves you 2 fewer"
        f" ({card_text('8H')} on East among them)."
    )

    nothing = items.nth(2)
    expect(nothing.locator(".coach-played")).to_have_text("You played nothing and ended your turn.")
    expect(nothing.locator(".coach-better")).to_have_text(f"Better: {line_text(['3S'])}")
    expect(nothing.locator(".coach-why")).to_have_text(
        "Empty side spaces left for the next player to dump a card on: 1 fewer."
    )
    expect(coach.locator(".coach-show-better")).to_have_count(0)
    ana.locator("#overlay").evaluate("o => o.querySelector('.dialog').scrollTo(0, 1e6)")
    shots(ana, "coach-crafted-result")
    assert serious(ana, "coach") == []

    # In Spanish, the same turns in its words.
    ana.click("#lang")
    ana.click('#lang-menu [data-lang="es"]')
    expect(coach.locator("h3")).to_have_text("Tus tres turnos más caros")
    expect(out.locator("p").first).to_have_text("En este turno podías haber cerrado la mano.")
    expect(merge.locator(".coach-why")).to_contain_text("te deja 2 menos")
    ana.click("#lang")
    ana.click('#lang-menu [data-lang="en"]')

    # The pile-moving turn in the replay, and its better line on the table.
    merge.locator(".coach-replay").click()
    expect(ana).to_have_url(re.compile(rf"#replay/{match}/0$"))
    side = ana.locator("#replay-coach")
    expect(side.locator("h2")).to_have_text("Your three costliest turns")
    turns = side.locator(".coach-turn")
    expect(turns).to_have_count(3)
    status = ana.locator("#replay-better-status")
    turns.nth(1).locator(".coach-show-better").click()
    expect(status).to_have_text("Better line: the turn as it began")
    expect(pile_top(ana, "N")).to_have_attribute("data-code", "9C")
    ana.click("#replay-next")
    expect(status).to_have_text("Better line: move 1 of 2")
    expect(ana.locator("#replay-caption")).to_have_text("Ana moved pile N onto E.")
    expect(pile_top(ana, "N")).to_have_count(0)
    expect(pile_top(ana, "E")).to_have_attribute("data-code", "9C")
    expect(ana.locator('#replay-felt [data-pile="E"] .count')).to_have_text("2")
    expect(replay_hand(ana)).to_have_count(7)
    ana.click("#replay-next")
    expect(status).to_have_text("Better line: move 2 of 2")
    expect(pile_top(ana, "E")).to_have_attribute("data-code", "8H")
    expect(ana.locator('#replay-felt [data-pile="E"] .count')).to_have_text("3")
    expect(replay_hand(ana)).to_have_count(6)
    expect(ana.locator('#replay-felt .open-hand[data-seat="0"] [data-code="8H"]')).to_have_count(0)
    # Its button leaves it too (the one pressed keeps the focus).
    back = turns.nth(1).locator(".coach-show-better")
    expect(back).to_have_text("Back to what you played")
    back.click()
    expect(back).to_be_focused()
    expect(back).to_have_text("Play the better line")
    expect(ana.locator("#replay-better")).to_be_hidden()
    expect(pile_top(ana, "N")).to_have_attribute("data-code", "9C")
    expect(pile_top(ana, "E")).to_have_attribute("data-code", "10D")
    expect(replay_hand(ana)).to_have_count(7)
    expect(ana.locator("#replay-slider")).to_have_value("0")

    # From one turn's better line straight to another's: it starts at that turn's step.
    turns.nth(1).locator(".coach-show-better").click()
    ana.click("#replay-next")
    turns.nth(0).locator(".coach-show-better").click()
    expect(turns.nth(0)).to_have_class(re.compile(r"\bshowing\b"))
    expect(turns.nth(1)).not_to_have_class(re.compile(r"\bshowing\b"))
    expect(status).to_have_text("Better line: the turn as it began")
    expect(ana.locator("#replay-slider")).to_have_value("2")
    expect(replay_hand(ana)).to_have_count(5)
    expect(pile_top(ana, "N")).to_have_attribute("data-code", "7S")
    # "Play" runs it to the end.
    ana.click("#replay-play")
    expect(status).to_have_text("Better line: move 5 of 5", timeout=8000)
    expect(replay_hand(ana)).to_have_count(0)
    expect(pile_top(ana, "N")).to_have_attribute("data-code", "2D")
    shots(ana, "coach-crafted-better-line")
    assert serious(ana, "better line") == []
    # "Replay this turn" leaves the better line for the replay at that turn.
    turns.nth(2).locator(".coach-replay").click()
    expect(ana.locator("#replay-better")).to_be_hidden()
    expect(ana.locator("#replay-slider")).to_have_value("5")
    expect(pile_top(ana, "N")).to_have_attribute("data-code", "4H")
    expect(turns.nth(0).locator(".coach-show-better")).to_have_text("Play the better line")

    # The heading counts the turns: two, one, and none (then it claims no turns at all).
    reviews.now = review(FOLLOW, HOLDS)
    reopen_replay(ana, match)
    expect(side.locator("h2")).to_have_text("Your two costliest turns")
    expect(turns).to_have_count(2)
    expect(turns.nth(0).locator(".coach-out")).to_have_count(0)
    expect(turns.nth(0).locator(".coach-common")).to_have_text(
        f"As you played: {line_text(['4H'])}"
    )
    expect(turns.nth(0).locator(".coach-played")).to_have_text(
        f"Then you played: {line_text(['3S'])}"
    )
    expect(turns.nth(0).locator(".coach-better")).to_have_text("Better from there: end the turn")
    expect(turns.nth(0).locator(".coach-why")).to_have_text(
        f"It keeps {card_text('2D')} for the {card_text('3S')} on North: it fits there on a"
        " later turn."
    )
    expect(turns.nth(1).locator(".coach-why")).to_have_text(
        f"Keeping {card_text('4H')} costs a point, but it leaves the others 3 fewer places to play."
    )
    reviews.now = review(MERGES)
    reopen_replay(ana, match)
    expect(side.locator("h2")).to_have_text("Your costliest turn")
    expect(turns).to_have_count(1)
    reviews.now = review()
    reopen_replay(ana, match)
    expect(ana.locator("#replay-coach-note")).to_have_text(
        "The coach found no turn of yours that cost half a point or more. Well played."
    )
    expect(side.locator("h2")).to_be_hidden()
    expect(ana.locator("#replay-coach-list")).to_be_hidden()
