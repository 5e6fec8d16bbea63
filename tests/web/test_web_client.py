"""The web client in Chromium: lobby, waiting room, a whole hand played by clicking, a
spectator, a refresh, the result screens, both languages, keyboard and phone sizes."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .conftest import Pages, ServerThread, Shot
from .helpers import (
    choose_language,
    create_room,
    gold_piles,
    hand_cards,
    penalty,
    play_turn,
    result_shown,
    stack_the_deck,
    stacked_deck,
    wait_for_mover,
)

# Three seats, the bot deals, so Ana (seat 0) moves first, then Ben, then the bot. Ana can
# build a whole run on N's 9C, keeps AC for later and draws 9S; Ben starts a corner with KS
# and plays 2D on Ana's run; then Ana can go out. The bot cannot stop her (simulated with
# every bot level), and the generic play loop below does not depend on it anyway.
ANA = ["8H", "7S", "6D", "5C", "4H", "3S", "AC"]
BEN = ["2D", "KS", "QH", "JC", "10H", "AD", "4D"]
BOT = ["QD", "JD", "8S", "8C", "6C", "5H", "2H"]
THREE_SEATS = stacked_deck([ANA, BEN, BOT], ["9C", "10D", "JH", "7C"], ["9S", "QC", "6H"])

# Two seats, the bot deals: Ana's hand is one run onto N's 9C, so she goes out at once.
RUN = ["8H", "7S", "6D", "5C", "4H", "3S", "2D"]
LONE_BOT = ["QD", "JD", "8S", "8C", "6C", "5H", "2H"]
TWO_SEATS = stacked_deck([RUN, LONE_BOT], ["9C", "10D", "JH", "7C"], [])


def test_two_people_a_bot_and_a_spectator_play_a_whole_hand(pages: Pages, shot: Shot) -> None:
    ana = pages.open(
        "ana", clipboard=True, setup=lambda page: stack_the_deck(page, [THREE_SEATS], dealer=2)
    )
    expect(ana.locator("#lobby")).to_be_visible()
    expect(ana.locator("#lobby h1")).to_have_text("Kings in the Corner")
    shot(ana, "lobby-desktop")
    code = create_room(ana, "Ana", ["open", "easy"], target=1)
    expect(ana).to_have_url(re.compile(rf"\?room={code}$"))
    ana.click("#copy-link")
    expect(ana.locator(".toast.info")).to_have_text("Link copied.")
    assert ana.evaluate("navigator.clipboard.readText()") == ana.input_value("#share-link")

    # Ben follows the shared link on a phone; his browser speaks Spanish.
    ben = pages.open("ben", phone=True, locale="es-ES", path=f"/?room={code}")
    expect(ben.locator("#invite-title")).to_have_text(f"Te han invitado a la sala {code}")
    shot(ben, "lobby-phone")
    ben.fill("#name", "Ben")
    ben.click("#invite-join")
    expect(ben.locator("#waiting")).to_be_visible()
    expect(ben.locator("#wait-note")).to_have_text(
        "Esperando a que el anfitrión empiece la partida."
    )

    # Cleo finds the public room in the list and watches it.
    cleo = pages.open("cleo")
    cleo.fill("#name", "Cleo")
    cleo.click("#rooms-refresh")
    row = cleo.locator(f'#rooms li[data-room="{code}"]')
    expect(row).to_contain_text("3/3 players · 1 bot · waiting")
    row.get_by_role("button", name="Watch").click()
    expect(cleo.locator("#waiting")).to_be_visible()
    expect(cleo.locator("#wait-note")).to_contain_text("You are watching this room.")

    # The host cannot start before Ben is ready: the button says why.
    expect(ana.locator("#start-go")).to_be_disabled()
    expect(ana.locator("#start-why")).to_contain_text("Waiting for Ben to be ready.")
    ben.click("#ready-btn")
    expect(ana.locator('#wait-seats li[data-seat="1"]')).to_contain_text("ready")
    ana.click("#start-go")
    for page in (ana, ben, cleo):
        expect(page.locator("#table")).to_be_visible()
    expect(ana.locator("#bar-hand")).to_have_text("Hand 1 · target 1")
    expect(ana.locator("#hand .card-btn")).to_have_count(7)
    assert sorted(hand_cards(ana)) == sorted(ANA)

    # The spectator sees the table and every seat's card count, but no hand at all.
    expect(cleo.locator("#board .pile")).to_have_count(8)
    expect(cleo.locator('#board [data-pile="N"]')).to_have_attribute(
        "aria-label", "N: North pile: 9 of clubs, 1 card"
    )
    expect(cleo.locator("#hand")).to_be_hidden()
    expect(cleo.locator("#hand .card")).to_have_count(0)
    expect(cleo.locator("#actions")).to_be_hidden()
    expect(cleo.locator('.plate[data-seat="1"]')).to_contain_text("7 cards")

    # A refresh resumes Ben's seat with the same hand.
    before = sorted(hand_cards(ben))
    assert before == sorted(BEN)
    ben.reload()
    expect(ben.locator("#table")).to_be_visible()
    expect(ben.locator("#hand .card-btn")).to_have_count(7)
    assert sorted(hand_cards(ben)) == before
    expect(ben.locator("#me-plate .pname")).to_have_text("Ben")

    # Chat reaches everyone, as text.
    ana.click("#tab-chat")
    ana.fill("#chat-text", "hola <b>Ben</b>")
    ana.click("#chat-form button[type=submit]")
    ben.click("#tab-chat")
    expect(ben.locator("#chat li")).to_contain_text("hola <b>Ben</b>")
    expect(ben.locator("#chat b")).to_have_count(0)
    # Who comes later reads it too (the room's kept lines), once: a reload brings the
    # history, a line heard before is not shown twice.
    cleo.reload()
    expect(cleo.locator("#table")).to_be_visible()
    cleo.click("#tab-chat")
    expect(cleo.locator("#chat li")).to_have_count(1)
    expect(cleo.locator("#chat li")).to_contain_text("hola <b>Ben</b>")
    expect(cleo.locator("#chat b")).to_have_count(0)

    # Ana's turn. A card that fits nowhere lights nothing; playing it anyway is refused,
    # worded by the client from the refusal's code and parameters (card, onto).
    ana_ace = ana.locator('#hand [data-card="AC"]')
    ana_ace.click()
    assert gold_piles(ana) == []
    ana.click('#board [data-pile="N"]')
    expect(ana.locator(".toast.error").last).to_have_text(
        re.compile(
            "^A\u2663\ufe0e? does not fit on 9\u2663\ufe0e?: "
            "one rank lower and of the opposite colour\\.$"
        )
    )
    expect(ana.locator("#hand .card-btn")).to_have_count(7)

    # By keyboard: Enter selects 8H, the gold pile is N, Space plays it there.
    ana.locator('#hand [data-card="8H"]').focus()
    ana.keyboard.press("Enter")
    assert gold_piles(ana) == ["N"]
    expect(ana.locator('#board [data-pile="N"]')).to_have_attribute(
        "aria-label", "N: North pile: 9 of clubs, 1 card, it fits here, can be moved"
    )
    shot(ana, "table-desktop")
    ana.locator('#board [data-pile="N"]').focus()
    ana.keyboard.press("Space")
    expect(ana.locator('#board [data-pile="N"] .count')).to_have_text("2")
    expect(ana.locator('#board [data-pile="N"]')).to_have_attribute(
        "aria-label", re.compile(r"8 of hearts on top, 9 of clubs at the bottom, 2 cards")
    )
    played = ["8H>N", *play_turn(ana)]
    assert played == ["8H>N", "7S>N", "6D>N", "5C>N", "4H>N", "3S>N"]
    expect(ana.locator("#hand .card-btn")).to_have_count(2)
    expect(ben.locator('.plate[data-seat="0"]')).to_contain_text("2 cartas")
    # Ben's table log is in Spanish, rebuilt from the server's lines.
    ben.click("#tab-log")
    expect(ben.locator("#log")).to_contain_text(re.compile("Ana jugó 8\u2665\ufe0e? en N\\."))
    expect(ben.locator("#log")).to_contain_text("Ana robó una carta y terminó su turno.")

    # Ben's turn on the phone: the first card goes by drag and drop, the rest by taps.
    expect(ben.locator("#end-turn")).to_be_enabled()
    expect(ben.locator("#end-turn")).to_have_text("Robar y terminar turno")
    ben.evaluate("window.scrollTo(0, 0)")  # the chat above scrolled the page down
    ben.locator('#hand [data-card="KS"]').click()
    corners = gold_piles(ben)
    assert corners == ["NW", "NE", "SW", "SE"]
    shot(ben, "table-phone")
    shot(cleo, "table-spectator-desktop")
    ben.locator('#hand [data-card="KS"]').click()
    source = ben.locator('#hand [data-card="KS"]').bounding_box()
    target = ben.locator('#board [data-pile="NE"]').bounding_box()
    assert source is not None and target is not None
    ben.mouse.move(source["x"] + 12, source["y"] + 20)
    ben.mouse.down()
    ben.mouse.move(target["x"] + 20, target["y"] + 60, steps=6)
    ben.mouse.up()
    expect(ben.locator('#board [data-pile="NE"] .count')).to_have_text("1")
    expect(ben.locator('#hand [data-card="KS"]')).to_have_count(0)
    play_turn(ben)

    # From here on, whoever's turn it is plays what the gold highlights allow, until the
    # hand is over (the bot moves on its own).
    for _ in range(40):
        mover = wait_for_mover([ana, ben])
        if mover is None:
            break
        play_turn(mover)
    for page in (ana, ben, cleo):
        expect(page.locator("#overlay")).to_be_visible()

    # The match is over (target 1): everyone sees who went out and what each was left with.
    expect(ana.locator("#result-title")).to_have_text("Match over")
    expect(ana.locator("#result-reason")).to_have_text("Ana went out.")
    expect(ana.locator("#result-winners")).to_have_text("Winner: Ana. You won!")
    expect(ben.locator("#result-winners")).to_have_text("Gana: Ana.")
    expect(ben.locator("#result-title")).to_have_text("Fin de la partida")
    rows = ana.locator("#result-table tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(0)).to_contain_text("none")
    for seat in (1, 2):
        left: list[str] = ana.locator(
            f'#result-table tr[data-seat="{seat}"] .left-cards .card'
        ).evaluate_all("cards => cards.map(c => c.dataset.code)")
        assert left, f"seat {seat} kept no cards"
        expect(rows.nth(seat).locator("td.num").first).to_have_text(f"+{penalty(left)}")
        spectator_row = cleo.locator(f'#result-table tr[data-seat="{seat}"] .left-cards .card')
        expect(spectator_row).to_have_count(len(left))
    expect(ana.locator("#play-again")).to_be_visible()
    expect(ana.locator("#next-hand")).to_be_hidden()
    expect(cleo.locator("#play-again")).to_be_hidden()
    shot(ana, "result-desktop")
    shot(ben, "result-phone")
    expect(ana.locator("#pane-score")).to_be_hidden()
    ana.click("#view-table")
    ana.click("#tab-score")
    expect(ana.locator("#pane-score tbody tr").first).to_contain_text("0")
    assert not result_shown(ana)

    # "New game" goes back to the lobby, with the link forgotten.
    ana.click("#show-result")
    ana.click("#new-game")
    expect(ana.locator("#lobby")).to_be_visible()
    expect(ana).to_have_url(re.compile(r"/$"))


def test_keyboard_play_next_hand_and_language_switch(
    pages: Pages, shot: Shot, web_server: ServerThread
) -> None:
    ana = pages.open("solo", setup=lambda page: stack_the_deck(page, [TWO_SEATS], dealer=1))
    create_room(ana, "Ana", ["easy"], target=25)
    expect(ana.locator("#host-box")).to_be_visible()
    ana.click("#start-go")
    expect(ana.locator("#table")).to_be_visible()
    expect(ana.locator("#end-turn")).to_have_text("Draw and end turn")
    expect(ana.locator('#hand [data-card="8H"]')).to_have_attribute(
        "aria-label", "8 of hearts, playable"
    )

    # Spanish, Czech, then back to English, without losing anything on the table.
    choose_language(ana, "es")
    expect(ana.locator("#end-turn")).to_have_text("Robar y terminar turno")
    expect(ana.locator('#hand [data-card="8H"]')).to_have_attribute(
        "aria-label", "8 de corazones, se puede jugar"
    )
    expect(ana.locator("#bar-hand")).to_have_text("Mano 1 · objetivo 25")
    choose_language(ana, "cs")  # the menu lists English, Spanish and Czech
    expect(ana.locator("#end-turn")).to_have_text("Dobrat a ukončit tah")
    choose_language(ana, "en")
    expect(ana.locator("#end-turn")).to_have_text("Draw and end turn")

    # A cut connection comes back by itself, to the same seat and hand.
    before = sorted(hand_cards(ana))
    web_server.drop_connections()
    expect(ana.locator("#conn-banner")).to_have_text("Connection lost. Reconnecting…")
    expect(ana.locator("#conn-banner")).to_be_hidden()
    expect(ana.locator("#hand .card-btn")).to_have_count(7)
    assert sorted(hand_cards(ana)) == before

    # The whole run, by keyboard only: Enter on a card, Space on the first gold pile.
    for _ in range(len(RUN)):
        playable = ana.locator("#hand .card-btn.playable").first
        card = playable.get_attribute("data-card")
        playable.focus()
        ana.keyboard.press("Enter")
        piles = gold_piles(ana)
        assert piles, f"{card} lit no pile"
        ana.locator(f'#board [data-pile="{piles[0]}"]').focus()
        ana.keyboard.press("Space")
        expect(ana.locator(f'#hand [data-card="{card}"]')).to_have_count(0)

    overlay = ana.locator("#overlay")
    expect(overlay).to_be_visible()
    expect(ana.locator("#result-title")).to_have_text("Hand 1 is over")
    expect(ana.locator("#result-reason")).to_have_text("Ana went out.")
    bot_row = ana.locator('#result-table tr[data-seat="1"]')
    expect(bot_row.locator(".left-cards .card")).to_have_count(7)
    expect(bot_row.locator("td.num").first).to_have_text("+7")
    expect(ana.locator("#next-hand")).to_be_focused()
    shot(ana, "hand-over-desktop")

    # "Next hand" (Enter on the focused button) deals hand 2 at once.
    ana.keyboard.press("Enter")
    expect(overlay).to_be_hidden()
    expect(ana.locator("#bar-hand")).to_have_text("Hand 2 · target 25")
    expect(ana.locator("#hand .card-btn").first).to_be_visible()
    ana.click("#tab-score")
    expect(ana.locator("#pane-score thead")).to_contain_text("H1")
    expect(ana.locator("#pane-score tbody tr").nth(1)).to_contain_text("7")


def test_quick_play_seats_a_lone_player_with_bots(pages: Pages, shot: Shot) -> None:
    page = pages.open("quick")
    page.fill("#name", "Quinn")
    page.select_option("#quick-seats", "4")
    page.click("#quick-go")
    expect(page.locator("#quick-wait-text")).to_have_text("Looking for a table of 4…")
    # After the server's short matchmaking wait, bots take the other three seats.
    expect(page.locator("#table")).to_be_visible()
    expect(page.locator("#me-plate .pname")).to_have_text("Quinn")
    plates = page.locator("#opponents .plate")
    expect(plates).to_have_count(3)
    for i in range(3):
        expect(plates.nth(i)).to_contain_text("bot")
    # Bots move at once: soon it is Quinn's turn (or a bot has already gone out).
    mine_or_over = page.locator("#end-turn:enabled, #overlay:not([hidden])").first
    expect(mine_or_over).to_be_visible(timeout=10_000)
    shot(page, "table-four-seats-desktop")
    expect(page.locator("#hand .card-btn")).to_have_count(7)
    expect(page.locator("#board .pile")).to_have_count(8)
