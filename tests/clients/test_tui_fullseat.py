"""The full-screen client as a full seat: every room starts with an empty log and chat, a
hint highlights without choosing, and typed card codes read the same after it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import RichLog

from clients.net import GameClient, ServerError
from clients.terminal import commands
from clients.terminal.app import Entry, amain
from clients.terminal.lists import render_leaderboard, render_matches
from clients.terminal.render import (
    card,
    plate,
    render,
    render_result,
    sort_key,
)
from clients.terminal.tokens import TokenFile
from clients.terminal.tui import keys
from clients.terminal.tui.app import KingsCornerApp
from clients.terminal.tui.boards import board_text, match_label
from clients.terminal.tui.game import GameScreen
from clients.terminal.tui.look import Look
from server.app import GameServer, port_of, start_server
from server.ratings import PROVISIONAL_MATCHES
from tests.clients.test_render import make_room, play_to_hand_over, started
from tests.clients.tui_driver import RUN, one_turn_deck, save, server, shows, until
from tests.server.conftest import test_settings

__all__ = ["server"]  # the fixture, imported to override the shared one

PILES = {"N": ["8C"], "E": ["9D"], "S": ["KS"], "W": ["2D"]} | {
    p: [] for p in ("NE", "SE", "SW", "NW")
}


def typed(picker: keys.Picker, presses: str, hand: list[str]) -> tuple[keys.Picker, list[Any]]:
    outcomes = []
    for key in presses:
        picker, outcome = keys.press(picker, key, hand, PILES)
        outcomes.append(outcome)
    return picker, outcomes


def test_a_typed_code_reads_the_same_from_nothing_chosen() -> None:
    hand = list(RUN)
    # Nothing chosen: a digit starts a card code, its suit completes it, the next digit is
    # the pile. 2♠ then 4 is 2♠ onto W, whatever was typed and forgotten before.
    for before in ("", "q", "7", "m", "1"):
        picker, _ = typed(keys.NOTHING, before, hand)
        picker, _ = keys.press(picker, "escape", hand, PILES)
        picker, outcomes = typed(picker, "2s4", hand)
        assert outcomes[-1] == keys.Act("2S>W"), before
        assert picker == keys.NOTHING
    # A ten by 1 then 0, or by t.
    picker, _ = typed(keys.NOTHING, "10", hand)
    assert picker.typed == "10"
    picker, _ = typed(keys.NOTHING, "t", hand)
    assert picker.typed == "10"
    # With a card chosen a digit is a pile key (the status line says so).
    picker, outcomes = typed(keys.Picker(card="7H"), "8", hand)
    assert outcomes == [keys.Act("7H>N")]


def log_lines(app: KingsCornerApp, pane: str) -> str:
    widget = app.screen.query_one(pane, RichLog)
    return "\n".join(strip.text for strip in widget.lines)


async def test_a_new_room_starts_clean_and_a_hint_only_highlights(
    server: GameServer, url: str, tmp_path: Path
) -> None:
    entry = Entry(mode="create", seats=2, bots=("random",), decks=(one_turn_deck(),), dealer=1)
    client = GameClient(url, "Ana", reconnect=True)
    app = KingsCornerApp(client, Look(), entry=entry, tokens=TokenFile(tmp_path / "t.json"))
    sent: list[dict[str, Any]] = []
    real_send = client.send

    async def recording(message: dict[str, Any]) -> None:
        sent.append(message)
        await real_send(message)

    client.send = recording  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await shows(pilot, "Waiting room · room code")
        # Ana's plate, in the room and in the seats pane, names her with her tag.
        tag = (seats_of(client)[0] or {}).get("tag")
        assert isinstance(tag, str) and len(tag) == 4
        screen = await shows(pilot, f"1  Ana#{tag}")
        assert screen.count(f"Ana#{tag}") == 2, screen
        await pilot.press("c", *"old words", "enter")
        await until(pilot, lambda: "old words" in log_lines(app, "#chat"), what="the chat")
        await pilot.press("s")
        await shows(pilot, "Your hand (7)")

        # The hint: words, the cursor on its card, its pile marked; nothing chosen.
        await pilot.press("h")
        await shows(pilot, "Hint: play")
        screen = app.screen
        assert isinstance(screen, GameScreen)
        assert screen.picker == keys.NOTHING
        hinted = next(m for m in reversed(client.frames) if m["type"] == "hint")
        card = str(hinted["text"]).partition(">")[0]
        assert screen.cursor == card
        save(app, "hint-80x24")
        # ... so 2 s 4 is 2♠ onto W, as typed (the server refuses it: 2 on 2♦).
        await pilot.press("2", "s")
        await shows(pilot, "2♠ chosen")
        await pilot.press("4")
        await until(pilot, lambda: any(m["type"] == "act" for m in sent), what="the act")
        acts = [m["action"] for m in sent if m["type"] == "act"]
        assert acts == [{"type": "play", "card": "2S", "pile": "W"}]
        await pilot.press("escape", "7", "h", "8")
        await shows(pilot, "Ana played 7♥ on N.")

        # Leave for good, then a new room from the form: no old log line, no old chat.
        await pilot.press("l", "l")
        await shows(pilot, "You left room")
        await pilot.press("n")
        await shows(pilot, "New room")
        await pilot.click("#create")
        await shows(pilot, "Waiting room · room code")
        await until(pilot, lambda: isinstance(app.screen, GameScreen), what="the room")
        assert "played" not in log_lines(app, "#log")
        assert "old words" not in log_lines(app, "#chat")
        screen_now = app.screen
        assert isinstance(screen_now, GameScreen)
        await pilot.press("ctrl+q")
    await client.close()


def test_hands_are_sorted_in_plain_mode_and_results() -> None:
    room = started(make_room())
    doc = room.doc(0)
    hand = doc["game"]["hand"]
    line = next(x for x in render(doc, 0).splitlines() if x.startswith("Your hand"))
    shown = line.split(": ", 1)[1].split()
    ordered = sorted(hand, key=sort_key)
    assert len(shown) == len(ordered)
    assert shown == [card(c) for c in ordered]
    play_to_hand_over(room)
    doc = room.doc(0)
    for seat_line, left in zip(
        [x for x in render_result(doc).splitlines() if "penalty (" in x and "no cards" not in x],
        [x for x in doc["game"]["result"]["left"] if x],
        strict=True,
    ):
        inside = seat_line.split("(", 1)[1].rstrip(")").split()
        assert inside == [card(c) for c in sorted(left, key=sort_key)]


class _FakeClient:
    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        self.game = doc["game"]
        self.seat = 0


def test_the_footer_offers_only_what_the_phase_allows() -> None:
    def footer(phase: str, daily: bool) -> str:
        doc = {"room": {"daily": {"ranked": True} if daily else None}, "game": {"phase": phase}}
        screen = GameScreen(_FakeClient(doc), Look())  # type: ignore[arg-type]
        return screen.keys_text()

    assert "n next hand" in footer("hand_over", False)
    assert "r rematch" not in footer("hand_over", False)
    assert "r rematch" in footer("finished", False)
    assert "n next hand" not in footer("finished", False)
    done = footer("finished", True)  # the daily deal is played once
    assert "r rematch" not in done and "n next hand" not in done and "l leave" in done


async def test_the_new_room_form_starts_on_its_first_field_and_makes_a_casual_room(
    server: GameServer, url: str, tmp_path: Path
) -> None:
    tokens = TokenFile(tmp_path / "tokens.json")
    client = GameClient(url, "Ana", reconnect=True)
    app = KingsCornerApp(client, Look(), tokens=tokens)
    async with app.run_test(size=(80, 24)) as pilot:
        await shows(pilot, "n  new room")
        await pilot.press("n")
        screen = await shows(pilot, "New room")
        assert "Casual" in screen
        focused = app.screen.focused
        assert focused is not None and focused.id == "seats"
        await pilot.click("#casual")
        await pilot.click("#create")
        screen = await shows(pilot, "Waiting room · room code")
        assert client.doc is not None and client.doc["room"]["options"]["casual"] is True
        assert "casual (unrated)" in screen
        # The host changes an option: the room stays casual.
        await pilot.press("f")
        await until(
            pilot,
            lambda: client.doc is not None and client.doc["room"]["options"]["kings_first"],
            what="kings first",
        )
        assert client.doc["room"]["options"]["casual"] is True
        await pilot.press("ctrl+q")
    await client.close()


def test_every_board_and_history_row_names_people_with_their_tags() -> None:
    assert commands.parse("leaderboard rating") == commands.Board("rating")
    assert commands.parse("lb top") == commands.Board("rating")
    top = {
        "board": "rating",
        "day": None,
        "entries": [
            {"player": "aaaa", "name": "Rho", "tag": "4F7K", "rating": 31, "matches": 12},
            {"player": "bbbb", "name": "Rho", "tag": "Q2ZT", "rating": 28, "matches": 9},
        ],
    }
    text = render_leaderboard(top, "bbbb").splitlines()
    assert text[0] == "Top players (by rating):"
    assert text[2].split() == ["1", "Rho#4F7K", "31", "12"]
    assert text[3].split() == ["▶", "2", "Rho#Q2ZT", "28", "9", "(you)"]
    assert "No established players" in render_leaderboard({**top, "entries": []})
    shown = board_text(top, "aaaa", "en").plain
    assert "Top players" in shown and "Rho#4F7K" in shown and "Rho#Q2ZT" in shown
    alltime = {
        "board": "alltime",
        "entries": [
            {"player": p, "name": "Rho", "tag": tag, "won": 1, "played": 1, "avg_penalty": 0}
            for p, tag in (("a", "AAAA"), ("b", "BBBB"))
        ],
    }
    assert "Rho#AAAA" in render_leaderboard(alltime) and "Rho#BBBB" in render_leaderboard(alltime)
    assert "Rho#BBBB" in board_text(alltime, None, "en").plain
    summary = {
        "id": "ABCDEF-1",
        "finished_at": 0.0,
        "seats": [{"name": "Ana", "tag": "4F7K"}, {"name": "Bot 2", "tag": None}],
        "totals": [0, 30],
        "winners": [0],
    }
    assert "Ana#4F7K* 0, Bot 2 30" in render_matches([summary])
    assert "Ana#4F7K* 0, Bot 2 30" in match_label(summary)
    # Seat plates: the tag the seat was taken with; a long name is cut, never the tag.
    rho = {"name": "Rho", "tag": "4F7K", "kind": "human"}
    assert plate(rho) == "Rho#4F7K"
    assert plate({**rho, "name": "Rhododendron"}, 10) == "Rhodo#4F7K"
    assert plate({**rho, "tag": None}) == "Rho"
    assert plate({"name": "Bot 2", "tag": None, "kind": "bot"}, 10) == "Bot 2"


async def test_top_players_and_a_rename_from_the_lobby(
    server: GameServer, url: str, tmp_path: Path
) -> None:
    out: list[str] = []
    args = ["--url", url, "--name", "Ana", "--token-file", str(tmp_path / "plain.json")]
    assert await amain([*args, "--leaderboard", "rating"], write=out.append) == 0
    assert out == ["Top players (by rating):\n  No established players yet."]

    tokens = TokenFile(tmp_path / "tokens.json")
    client = GameClient(url, "Ana", reconnect=True)
    app = KingsCornerApp(client, Look(), tokens=tokens)
    async with app.run_test(size=(80, 24)) as pilot:
        await shows(pilot, "e  change your name")
        await shows(pilot, "Ana#")
        me = client.player_id
        assert me is not None
        # Established (enough rated matches) and on the board, as the server's rating does.
        rated = {me: {"mu": 30.0, "sigma": 2.0, "matches": PROVISIONAL_MATCHES}}
        assert await server.store.update_ratings({me: 0}, rated, {me: 24.0})
        save(app, "lobby-me-80x24")

        await pilot.press("b")
        await shows(pilot, "Daily deal leaderboard")
        await pilot.press("tab")
        await shows(pilot, "All-time leaderboard")
        await pilot.press("tab")
        screen = await shows(pilot, "Top players")
        profile = await client.request({"type": "profile"}, "profile")
        row = next(line for line in screen.splitlines() if f"Ana#{profile['tag']}" in line)
        assert "▶" in row and str(profile["rating"]) in row
        save(app, "top-players-80x24")
        await pilot.press("tab")
        await shows(pilot, "Daily deal leaderboard")
        await pilot.press("t")
        await shows(pilot, "Top players")
        await pilot.press("escape")

        # A rename: the server keeps it (with a tag) and answers with the profile.
        await pilot.press("e")
        await shows(pilot, "Your new name")
        await pilot.press(*"Bea", "enter")
        screen = await shows(pilot, "You go by Bea#")
        assert "Kings in the Corner · Bea" in screen
        assert client.name == "Bea"
        # A refused name says why, in words.
        await pilot.press("e")
        await shows(pilot, "Your new name")
        await pilot.press(*"Be#a", "enter")
        await shows(pilot, "A name cannot hold #")
        assert client.name == "Bea"
        await pilot.press("ctrl+q")
    await client.close()


@pytest.fixture
async def patient_server() -> AsyncIterator[GameServer]:
    """Bots in threads, and a long pause after a hand: only ``n`` deals the next one."""
    game = await start_server(test_settings(bot_workers=0, hand_pause=60.0))
    yield game
    await game.shutdown()


def seats_of(client: GameClient) -> list[Any]:
    return list(client.doc["room"]["seats"]) if client.doc is not None else []


async def test_the_host_kicks_adds_a_bot_and_deals_the_next_hand_by_keys(
    patient_server: GameServer, tmp_path: Path
) -> None:
    url = f"ws://127.0.0.1:{port_of(patient_server)}/"
    entry = Entry(mode="create", seats=2, bots=(), decks=(one_turn_deck(),), dealer=1)
    client = GameClient(url, "Ana", reconnect=True)
    app = KingsCornerApp(client, Look(), entry=entry, tokens=TokenFile(tmp_path / "t.json"))
    ben = GameClient(url, "Ben")
    async with app.run_test(size=(80, 24)) as pilot:
        await shows(pilot, "Waiting room · room code")
        code = client.room
        assert code is not None
        await ben.connect()
        await ben.join(code)
        await until(pilot, lambda: seats_of(client)[1] is not None, what="Ben seated")
        await shows(pilot, "Ben")

        # k then the seat's number: Ben is removed.
        await pilot.press("k", "2")
        await until(pilot, lambda: any(f["type"] == "kicked" for f in ben.frames), what="kicked")
        await until(pilot, lambda: seats_of(client)[1] is None, what="seat 2 empty")
        # a then the seat's number: a bot sits there; + twice raises the target to 35.
        await pilot.press("a", "2")
        await until(
            pilot,
            lambda: (seats_of(client)[1] or {}).get("kind") == "bot",
            what="a bot in seat 2",
        )
        await pilot.press("+", "+")
        await until(
            pilot,
            lambda: client.doc is not None and client.doc["room"]["options"]["target"] == 35,
            what="target 35",
        )
        await pilot.press("s")
        await shows(pilot, "Your hand (7)")
        for card_keys in (("7", "h"), ("6", "s"), ("5", "h"), ("4", "s"), ("3", "h")):
            before = len(client.game["hand"]) if client.game is not None else 0
            await pilot.press("escape", *card_keys, "8")

            def played(b: int = before) -> bool:
                return client.game is not None and len(client.game.get("hand") or []) == b - 1

            await until(pilot, played, what=f"{card_keys} played")
        await pilot.press("escape", "2", "s", "8")
        await until(pilot, lambda: len(client.game["hand"]) == 1, what="2♠ played")  # type: ignore[index]
        await pilot.press("escape", "a", "h", "8")
        await until(
            pilot,
            lambda: client.game is not None and client.game["phase"] == "hand_over",
            what="the hand over (34 < 35: the match goes on)",
        )
        screen = await shows(pilot, "n next hand")
        assert "r rematch" not in screen
        save(app, "hand-over-80x24")
        # n deals the next hand now (the server would wait a minute).
        await pilot.press("n")
        await until(
            pilot,
            lambda: client.game is not None and client.game["hand_no"] == 2,
            what="hand 2",
        )
        await shows(pilot, "hand 2")
        await pilot.press("ctrl+q")
    await ben.close()
    await client.close()


async def test_a_seat_taken_back_from_the_bot_and_a_pile_moved_by_clicks(
    server: GameServer, url: str, tmp_path: Path
) -> None:
    entry = Entry(
        mode="create",
        seats=2,
        bots=("random",),
        options={"target": 500},
        decks=(one_turn_deck(),),
        dealer=1,
    )
    client = GameClient(url, "Ana", reconnect=True)
    app = KingsCornerApp(client, Look(), entry=entry, tokens=TokenFile(tmp_path / "t.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        await shows(pilot, "Waiting room · room code")
        screen = app.screen
        assert isinstance(screen, GameScreen) and client.doc is not None
        # Long enough for the two clicks below on a busy machine, short enough to wait out.
        await screen.configure({**client.doc["room"]["options"], "turn_timer": 8.0})
        await until(
            pilot,
            lambda: client.doc is not None and client.doc["room"]["options"]["turn_timer"],
            what="the turn timer set",
        )
        await pilot.press("s")
        await shows(pilot, "Your hand (7)")

        # Mouse: a click on the pile S (the K♠) chooses it, a click on NE moves it there.
        await pilot.click("#pile-S")
        await shows(pilot, "Pile S chosen")
        await pilot.click("#pile-NE")
        await until(
            pilot,
            lambda: client.game is not None and client.game["piles"]["NE"] == ["KS"],
            what="the K♠ pile moved by clicks",
        )

        # Two turns left to the timer in a row: away, a bot plays the seat; b takes it back.
        await until(pilot, lambda: bool((seats_of(client)[0] or {}).get("away")), 60, "away")
        await shows(pilot, "b takes it back")
        save(app, "away-80x24")
        await pilot.press("b")
        await until(
            pilot,
            lambda: not (seats_of(client)[0] or {}).get("away"),
            what="the seat taken back",
        )
        await pilot.press("ctrl+q")
    await client.close()


async def test_a_recovery_code_from_inside_the_app_and_the_kept_name(
    server: GameServer, url: str, tmp_path: Path
) -> None:
    # Ana plays in a browser (any client will do) and asks there for a recovery code.
    browser = GameClient(url, "Ana")
    await browser.connect()
    tokens = TokenFile(tmp_path / "tokens.json")
    client = GameClient(url, "Someone", reconnect=True)
    app = KingsCornerApp(client, Look(), tokens=tokens)
    try:
        ana = await browser.request({"type": "profile"}, "profile")
        code = await browser.recovery_code()
        browser_token = browser.player
        async with app.run_test(size=(80, 24)) as pilot:
            await shows(pilot, "i  you on another device")
            await shows(pilot, "Someone#")
            assert client.player_id != browser.player_id
            await pilot.press("i")
            await shows(pilot, "c  a new recovery code")
            # A wrong code says why, in words; this terminal stays who it was.
            await pilot.press("u")
            await shows(pilot, "Recovery code (Enter")
            await pilot.press(*"ABCD-EFGH-JKMN-PQRS", "enter")
            await shows(pilot, "That recovery code belongs to nobody")
            assert client.player_id != browser.player_id
            # The right one (typed in small letters): this terminal is Ana from now on.
            await pilot.press("u")
            await shows(pilot, "Recovery code (Enter")
            await pilot.press(*code.lower(), "enter")
            screen = await shows(pilot, f"Welcome back, Ana#{ana['tag']}")
            assert client.player_id == browser.player_id
            assert "Kings in the Corner · Ana" in screen
            await shows(pilot, f"Ana#{ana['tag']} · rating")
            assert tokens.player(url) == client.player
            save(app, "recovered-80x24")

            # A new code from here: shown once, kept as the new token; the browser is
            # signed out (its token is of the generation before).
            await pilot.press("i")
            await shows(pilot, "c  a new recovery code")
            await pilot.press("c")
            screen = await shows(pilot, "Your recovery code: ")
            given = next(f for f in reversed(client.frames) if f["type"] == "recovery_code")
            assert f"Your recovery code: {given['code']}" in screen
            assert tokens.player(url) == given["player"] == client.player
            save(app, "recovery-code-80x24")
            stale = GameClient(url, "Ana")
            stale.player = browser_token
            with pytest.raises(ServerError) as refused:
                await stale.connect()
            assert refused.value.code == "identity_revoked"
            await stale.close()
            await pilot.press("escape")
            await shows(pilot, "n  new room")
            await pilot.press("ctrl+q")
        await client.close()

        # The next visit names itself "Someone" on the command line: the kept name wins.
        again = GameClient(url, "Someone", reconnect=True)
        again.player = tokens.player(url)
        app = KingsCornerApp(again, Look(), tokens=tokens)
        async with app.run_test(size=(80, 24)) as pilot:
            await shows(pilot, "Kings in the Corner · Ana")
            assert again.name == "Ana" and again.player_id == browser.player_id
            await pilot.press("ctrl+q")
        await again.close()
    finally:
        await browser.close()
