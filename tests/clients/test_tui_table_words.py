"""The full-screen table tells its people apart and keeps whose turn it is in sight: two
new people of one name are ``Name#TAG`` in the log and the status line, a note (connected
again, joined) never hides the turn and goes once the turn changes, and the log is wrapped
again to the pane's width after a resize."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from textual.widgets import RichLog

from clients.i18n import texts
from clients.net import GameClient
from clients.terminal.app import Entry
from clients.terminal.entry import prompt_writer
from clients.terminal.render import rating_lines, seat_name
from clients.terminal.tokens import TokenFile
from clients.terminal.tui.app import KingsCornerApp
from clients.terminal.tui.game import GameScreen
from clients.terminal.tui.look import Look
from clients.terminal.tui.panels import result_text
from clients.words import describe_error
from protocol.schema import error_classes
from server.app import GameServer
from tests.clients.tui_driver import (
    log_text,
    one_turn_deck,
    save,
    screen_text,
    server,
    shows,
    until,
)

__all__ = ["server"]  # the fixture, imported to override the shared one


async def test_two_players_of_one_name_are_told_apart_and_a_note_leaves_the_turn_in_sight(
    server: GameServer, url: str, tmp_path: Path
) -> None:
    # Seat 0 deals: the guest (seat 1) moves first.
    entry = Entry(mode="create", seats=2, bots=(), decks=(one_turn_deck(),), dealer=0)
    client = GameClient(url, "Player", reconnect=True)
    app = KingsCornerApp(client, Look(), entry=entry, tokens=TokenFile(tmp_path / "t.json"))
    guest = GameClient(url, "Player")
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await shows(pilot, "Waiting room · room code")
            assert client.room is not None
            await guest.connect()
            await guest.join(client.room)
            await guest.ready()
            await pilot.press("s")
            await until(pilot, lambda: client.game is not None, what="the deal")
            mine = f"Player#{client.doc['room']['seats'][0]['tag']}"  # type: ignore[index]
            # A new identity is given its tag as it sits: the tags tell the two apart.
            theirs = f"Player#{client.doc['room']['seats'][1]['tag']}"  # type: ignore[index]
            assert re.fullmatch(r"Player#[0-9A-Z]{4,5}", theirs)
            assert mine != theirs

            # The guest's turn; a note of the app's shows above it, not instead of it.
            await shows(pilot, f"{theirs}'s turn.")
            app.note("Connected again.")
            screen = await shows(pilot, "Connected again.")
            assert f"{theirs}'s turn." in screen
            save(app, "note-and-turn-80x24")

            # The guest ends the turn: the note was of a turn that is over.
            await guest.act("end")
            await until(pilot, lambda: client.my_turn, what="my turn")
            screen = await shows(pilot, "Your turn")
            status = str(app.screen.query_one("#status").render())
            assert "Connected again." not in status, status
            assert f"{theirs} ended the turn." in log_text(app) or f"{theirs} drew" in log_text(app)
            assert "Player ended" not in log_text(app) and "Player drew" not in log_text(app)
            save(app, "names-told-apart-80x24")

            # A note said on one's own turn goes by itself after a while, too.
            screen_obj = app.screen
            assert isinstance(screen_obj, GameScreen)
            screen_obj.NOTE_SECONDS = 0.3
            app.note("Connected again.")
            await shows(pilot, "Connected again.")
            await until(
                pilot,
                lambda: "Connected again." not in str(screen_obj.query_one("#status").render()),
                what="the note gone",
            )
            await pilot.press("ctrl+q")
    finally:
        await guest.close()
        await client.close()


async def test_the_log_is_wrapped_again_after_a_resize(
    server: GameServer, url: str, tmp_path: Path
) -> None:
    entry = Entry(mode="create", seats=2, bots=("random",), decks=(one_turn_deck(),), dealer=1)
    client = GameClient(url, "Ana", reconnect=True)
    app = KingsCornerApp(client, Look(), entry=entry, tokens=TokenFile(tmp_path / "t.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        await shows(pilot, "Waiting room · room code")
        await pilot.press("s")
        await shows(pilot, "Your hand (7)")
        log = app.screen.query_one("#log", RichLog)
        said = "You are in seat 1 of room"
        narrow = [line.text for line in log.lines]
        assert any(
            line.startswith(said) and "room " + str(client.room) not in line for line in narrow
        ), narrow
        await pilot.resize_terminal(140, 40)
        await until(
            pilot,
            lambda: any(
                f"{said} {client.room}." in line.text
                for line in app.screen.query_one("#log", RichLog).lines
            ),
            what="the log wrapped to the wider pane",
        )
        save(app, "log-rewrapped-140x40")
        await pilot.press("ctrl+q")
    await client.close()


def test_a_bot_in_the_seat_of_a_person_who_left_is_named_as_such_but_the_rating_is_theirs() -> None:
    # The server leaves the leaver's name on the bot that plays their seat on.
    seats = [
        {"name": "Ana", "tag": "4F7K", "kind": "human"},
        {"name": "Bea", "tag": None, "kind": "bot", "level": "hard"},
        {"name": "Bot 3", "tag": None, "kind": "bot", "level": "easy"},
    ]
    change = {"before": 1000, "after": 940, "provisional": True, "matches": 1}
    doc = {
        "room": {
            "seats": seats,
            "rated": True,
            "ratings": [
                {**change, "after": 1030, "reason": "placed", "place": 1, "of": 2},
                {**change, "reason": "abandoned", "of": 3},
                None,
            ],
        },
        "game": {"phase": "finished", "winners": [1]},
    }
    assert seat_name(doc, 1) == "bot for Bea"
    assert seat_name(doc, 2) == "Bot 3"
    assert seat_name(doc, 1, "es") == "bot por Bea"
    result = result_text(
        doc
        | {
            "game": {
                **doc["game"],
                "result": None,
                "scores": [],
                "totals": [1, 0, 2],
                "target": 25,
                "seats": 3,
            }
        },
        0,
        Look(),
    )
    assert "Match over: bot for Bea won." in result.plain
    lines = rating_lines(doc, 0)
    assert any(line.strip().startswith("Bea: Left the match") for line in lines), lines
    # Ana's place is among the two who played on, not the three seats: it says so.
    assert lines[0].startswith("Your rating: 1st of the 2 counted: +30"), lines


def test_no_refusal_is_shown_in_the_protocols_words() -> None:
    refusal = {
        "code": "bad_phase",
        "message": "'sit' is not possible while the room is finished",
        "params": {"command": "sit", "phase": "finished"},
    }
    for lang in ("en", "es", "cs"):
        worded = describe_error(refusal, lang)
        assert "'sit'" not in worded and worded == texts(lang)["err.bad_phase"]
    # Every code the server may send is worded in every language.
    for code in sorted(cls.code for cls in error_classes()):
        for lang in ("en", "es", "cs"):
            assert describe_error({"code": code, "message": "RAW"}, lang) != "RAW", (code, lang)


def test_the_lobby_asks_for_the_rating_again_once_a_match_is_rated() -> None:
    app = KingsCornerApp(GameClient("ws://127.0.0.1:1/", "Ana"), Look())
    room: dict[str, Any] = {"seats": [], "ratings": None}
    app.client.doc = {"room": room, "game": None}
    assert not app.ratings_changed()  # finished, not rated yet
    room["ratings"] = [{"before": 1000, "after": 940}]
    assert app.ratings_changed()
    assert not app.ratings_changed()  # asked once
    app.client.doc = None
    assert not app.ratings_changed()


async def test_a_terminal_smaller_than_80_by_24_is_told_so(
    server: GameServer, url: str, tmp_path: Path
) -> None:
    entry = Entry(mode="create", seats=2, bots=("random",), decks=(one_turn_deck(),), dealer=1)
    client = GameClient(url, "Ana", reconnect=True)
    app = KingsCornerApp(client, Look(), entry=entry, tokens=TokenFile(tmp_path / "t.json"))
    async with app.run_test(size=(60, 20)) as pilot:
        await shows(pilot, "Waiting room")
        await shows(pilot, "This terminal is 60\u00d720: the table needs at least 80\u00d724.")
        save(app, "too-small-60x20")
        await pilot.resize_terminal(80, 24)
        await until(
            pilot,
            lambda: "the table needs" not in screen_text(app),
            what="the notice gone at 80x24",
        )
        await pilot.press("ctrl+q")
    await client.close()


def test_the_line_mode_prints_above_a_prompt_that_keeps_what_was_typed() -> None:
    stream = io.StringIO()
    write = prompt_writer(stream, lambda: "7h>")
    write("· Bot 2 played 8♦ on N.")
    assert stream.getvalue() == "\r\x1b[K· Bot 2 played 8♦ on N.\n> 7h>"
