"""My matches and the replay viewer in Chromium: a finished two-hand match replayed step by
step, forward and back, by hand number and by keyboard, down to the final totals."""

from __future__ import annotations

import json
import re
import urllib.request
from typing import Any

from playwright.sync_api import Page, expect

from .conftest import Pages, ServerThread, Shot
from .helpers import create_room, stack_the_deck, stacked_deck

# Hand 1: Ana deals, so the deal starts with the bot (listed first) and the bot moves
# first. Nothing of its fits and no pile can move: it draws 2C and ends. Then Ana's hand is
# one run onto N's 9C and she goes out (8 points for the bot).
RUN = ["8H", "7S", "6D", "5C", "4H", "3S", "2D"]
BOT_ONE = ["QD", "QC", "5H", "5S", "3C", "3D", "AH"]
HAND_ONE = stacked_deck([BOT_ONE, RUN], ["9C", "9D", "JH", "JS"], ["2C"])
# Hand 2: the bot deals and Ana goes out at once (7 more points: 15, past the target of 9).
BOT_TWO = ["QD", "JD", "8S", "8C", "6C", "5H", "2H"]
HAND_TWO = stacked_deck([RUN, BOT_TWO], ["9C", "10D", "JH", "7C"], [])
STEPS = 16  # the bot's draw, 7 plays, the next deal, 7 plays


def play_the_run(page: Page) -> None:
    """Ana's run onto N, one card after the other, each where the gold highlight says."""
    for card in RUN:
        page.locator(f'#hand [data-card="{card}"]').click()
        page.locator('#board [data-pile="N"].legal').click()
        expect(page.locator(f'#hand [data-card="{card}"]')).to_have_count(0)


def replay_of(server: ServerThread, match_id: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{server.url}api/matches/{match_id}/replay", timeout=10) as r:
        data: dict[str, Any] = json.load(r)
    return data


def open_hand(page: Page, seat: int) -> list[str]:
    cards: list[str] = page.locator(
        f'#replay-felt .open-hand[data-seat="{seat}"] .card'
    ).evaluate_all("cards => cards.map(c => c.dataset.code)")
    return cards


def at_step(page: Page, n: int) -> None:
    expect(page.locator("#replay-pos")).to_have_text(f"Step {n} of {STEPS}")
    expect(page.locator("#replay-slider")).to_have_value(str(n))


def test_my_matches_replay_forward_back_jump_and_totals(
    pages: Pages, shots: Shot, web_server: ServerThread
) -> None:
    ana = pages.open("replay", setup=lambda p: stack_the_deck(p, [HAND_ONE, HAND_TWO], dealer=0))
    code = create_room(ana, "Ana", ["random"], target=9)
    ana.click("#start-go")
    expect(ana.locator("#end-turn")).to_be_enabled()  # after the bot's draw
    play_the_run(ana)
    expect(ana.locator("#result-title")).to_have_text("Hand 1 is over")
    ana.click("#next-hand")
    expect(ana.locator("#bar-hand")).to_have_text("Hand 2 · target 9")
    expect(ana.locator("#end-turn")).to_be_enabled()
    play_the_run(ana)
    expect(ana.locator("#result-title")).to_have_text("Match over")
    expect(ana.locator("#result-winners")).to_have_text("Winner: Ana. You won!")

    # "Replay this match" from the match-end screen finds it in Ana's history.
    ana.click("#result-replay")
    expect(ana.locator("#replay-body")).to_be_visible()
    expect(ana).to_have_url(re.compile(rf"\?room={code}#replay/{code}-1$"))
    at_step(ana, 0)
    ana.locator("#replay .view-back").click()
    expect(ana.locator("#overlay")).to_be_visible()
    ana.click("#new-game")
    expect(ana.locator("#lobby")).to_be_visible()

    # My matches, on a later visit (this browser is the same player): the match with both
    # totals, the winner starred.
    ana.reload()
    ana.click("#matches-go")
    row = ana.locator(f'#match-list li[data-match="{code}-1"]')
    expect(row).to_contain_text(f"Room {code}")
    # A person's name carries their tag; a bot's does not.
    expect(row.locator('.match-seats li[data-seat="0"]')).to_have_text(
        re.compile(r"^Ana#[0-9A-Z]{4}0$")
    )
    expect(row.locator('.match-seats li[data-seat="1"]')).to_have_text("Bot 215")
    expect(row.locator('.match-seats li[data-seat="0"]')).to_have_class("winner")
    row.get_by_role("button", name=re.compile(f"^Replay Room {code}")).click()
    expect(ana.locator("#replay-body")).to_be_visible()

    replay = replay_of(web_server, f"{code}-1")
    assert len(replay["steps"]) == STEPS
    assert replay["hands"] == [0, 9]
    assert replay["totals"] == [0, 15]

    # The first view: every hand open, the deal in the caption.
    at_step(ana, 0)
    expect(ana.locator("#replay-next")).to_be_focused()
    expect(ana.locator("#replay-caption")).to_have_text("The match begins; Ana deals.")
    assert sorted(open_hand(ana, 0)) == sorted(RUN)
    assert sorted(open_hand(ana, 1)) == sorted(BOT_ONE)
    expect(ana.locator('#replay-felt [data-pile="E"]')).to_have_attribute(
        "aria-label", "E: East pile: 9 of diamonds, 1 card"
    )
    expect(ana.locator("#replay-first")).to_be_disabled()
    expect(ana.locator("#replay-prev")).to_be_disabled()

    # Forward with the button, then by keyboard.
    ana.click("#replay-next")
    at_step(ana, 1)
    expect(ana.locator("#replay-caption")).to_have_text("Bot 2 drew a card and ended the turn.")
    assert "2C" in open_hand(ana, 1)
    ana.click("#replay-next")
    at_step(ana, 2)
    expect(ana.locator("#replay-caption")).to_have_text(
        re.compile("^Ana played 8\u2665\ufe0e? on N\\.$")
    )
    expect(ana.locator('#replay-felt [data-pile="N"] .count')).to_have_text("2")
    assert len(open_hand(ana, 0)) == 6
    ana.keyboard.press("ArrowRight")
    ana.keyboard.press("ArrowRight")
    at_step(ana, 4)
    expect(ana.locator("#replay-caption")).to_have_text(
        re.compile("^Ana played 6\u2666\ufe0e? on N\\.$")
    )
    assert len(open_hand(ana, 0)) == 4

    # Back: by keyboard and with the button, to the first view.
    ana.keyboard.press("ArrowLeft")
    at_step(ana, 3)
    ana.click("#replay-prev")
    at_step(ana, 2)
    ana.keyboard.press("Home")
    at_step(ana, 0)
    assert len(open_hand(ana, 0)) == 7
    assert len(open_hand(ana, 1)) == 7

    # Jump to hand 2: the new deal, with hand 1's penalty on the score.
    ana.select_option("#replay-hand", label="Hand 2")
    at_step(ana, 9)
    expect(ana.locator("#replay-caption")).to_have_text("Hand 2: Bot 2 deals.")
    assert sorted(open_hand(ana, 0)) == sorted(RUN)
    assert sorted(open_hand(ana, 1)) == sorted(BOT_TWO)
    expect(ana.locator('#replay-felt [data-pile="E"]')).to_have_attribute(
        "aria-label", "E: East pile: 10 of diamonds, 1 card"
    )
    expect(ana.locator('#replay-score tbody tr[data-seat="1"] td.total')).to_have_text("8")
    ana.locator("#replay-next").focus()
    ana.keyboard.press("ArrowRight")
    at_step(ana, 10)
    expect(ana.locator("#replay-caption")).to_have_text(
        re.compile("^Ana played 8\u2665\ufe0e? on N\\.$")
    )
    ana.keyboard.press("PageUp")
    at_step(ana, 9)
    ana.keyboard.press("PageUp")
    at_step(ana, 0)
    ana.keyboard.press("PageDown")
    at_step(ana, 9)
    ana.keyboard.press("ArrowRight")
    ana.keyboard.press("ArrowRight")
    at_step(ana, 11)
    shots(ana, "replay")

    # Play runs by itself; pause stops it.
    ana.click("#replay-play")
    expect(ana.locator("#replay-play")).to_have_attribute("aria-pressed", "true")
    at_step(ana, 12)
    ana.click("#replay-play")
    expect(ana.locator("#replay-play")).to_have_attribute("aria-pressed", "false")
    stopped = ana.locator("#replay-slider").input_value()
    ana.wait_for_timeout(1000)
    expect(ana.locator("#replay-slider")).to_have_value(stopped)

    # The last step: Ana out, the match over, the totals the server computed.
    ana.click("#replay-last")
    at_step(ana, STEPS)
    expect(ana.locator("#replay-caption")).to_have_text(
        re.compile("^Ana played 2\u2666\ufe0e? on N\\. Ana went out\\. Match over: Ana won\\.$")
    )
    for seat, total in enumerate(replay["totals"]):
        cell = ana.locator(f'#replay-score tbody tr[data-seat="{seat}"] td.total')
        expect(cell).to_have_text(str(total))
    expect(ana.locator("#replay-result")).to_have_text("Match over. Winner: Ana.")
    expect(ana.locator("#replay-next")).to_be_disabled()
    assert open_hand(ana, 0) == []

    # Back goes to My matches (where the replay was opened from), Escape back to the lobby.
    ana.locator("#replay .view-back").click()
    expect(ana.locator("#matches")).to_be_visible()
    ana.keyboard.press("Escape")
    expect(ana.locator("#lobby")).to_be_visible()
