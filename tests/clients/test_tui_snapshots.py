"""Snapshots of the full-screen client's main screens at 80 by 24: a layout change shows as a
diff of the SVG screenshot (``--snapshot-update`` accepts a new one after a person looked).

Every screen is drawn from a fixed document (a room ``ABCDEF`` dealt from a fixed seed, fixed
names and tags, no clock on screen), so the pictures are the same on every run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen

from clients.terminal.replay import build
from clients.terminal.tui.boards import BoardsScreen, MatchesScreen
from clients.terminal.tui.game import GameScreen
from clients.terminal.tui.help import HelpScreen
from clients.terminal.tui.lobby import CreateScreen, IdentityScreen, LobbyScreen
from clients.terminal.tui.look import Look
from clients.terminal.tui.replayview import ReplayScreen
from clients.words import describe_profile
from server.room import bot_seat_event
from tests.clients.test_render import make_room, play_to_hand_over, started
from tests.clients.test_replay import played_match, record_of

pytest.importorskip("pytest_textual_snapshot")

SIZE = (80, 24)
Compare = Callable[..., bool]


class FixedClient:
    """What the screens read of a connection, from one fixed document; nothing is sent."""

    url = "ws://127.0.0.1:1/"
    player_id = "aaaa"
    close_code: int | None = None

    def __init__(self, doc: Mapping[str, Any] | None = None, seat: int | None = 0) -> None:
        self.doc = doc
        self.seat = seat
        self.room = doc["room"]["code"] if doc is not None else None
        self.log: list[dict[str, Any]] = []
        self.chat: list[dict[str, Any]] = []
        self.replies: dict[str, dict[str, Any]] = {}

    @property
    def game(self) -> Any:
        return self.doc.get("game") if self.doc is not None else None

    async def send(self, message: Mapping[str, Any]) -> None:
        """Nothing leaves a snapshot."""

    async def request(self, message: Mapping[str, Any], reply: str) -> dict[str, Any]:
        return self.replies[reply]


class ScreenApp(App[None]):
    """One screen of the client, over the lobby (as in the real app)."""

    def __init__(self, make: Callable[[ScreenApp], Screen[Any]] | None = None) -> None:
        super().__init__()
        self.look = Look()
        self.make = make
        self.lobby = LobbyScreen("Ana")

    async def on_mount(self) -> None:
        await self.push_screen(self.lobby)
        self.lobby.show_me(describe_profile(PROFILE))
        if self.make is not None:
            await self.push_screen(self.make(self))

    # The lobby's host: nothing happens in a snapshot.
    def start_entry(self, entry: object) -> None: ...
    async def cancel_queue(self) -> None: ...
    def open_boards(self) -> None: ...
    def open_matches(self) -> None: ...
    def open_replay(self, match_id: str) -> None: ...
    def rename(self, name: str) -> None: ...
    def note(self, text: str) -> None: ...

    async def recovery_code(self) -> str:
        return "9WPC-9W9A-HCHE-RG4T"

    async def recover(self, code: str) -> str:
        return "Ana#4F7K"


PROFILE = {
    "name": "Ana",
    "tag": "4F7K",
    "rating": 1034,
    "matches": 3,
    "provisional": True,
    "min_matches": 10,
}


async def never_reviewed(client: object, doc: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The coach's review, forever pending: the same picture on every run."""
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


def room_screen(doc: Mapping[str, Any]) -> Callable[[ScreenApp], Screen[Any]]:
    return lambda app: GameScreen(FixedClient(doc), app.look, review=never_reviewed)  # type: ignore[arg-type]


def test_the_lobby(snap_compare: Compare) -> None:
    assert snap_compare(ScreenApp(), terminal_size=SIZE)


def test_the_new_room_form(snap_compare: Compare) -> None:
    assert snap_compare(ScreenApp(lambda app: CreateScreen(app.look)), terminal_size=SIZE)


def test_the_waiting_room(snap_compare: Compare) -> None:
    assert snap_compare(ScreenApp(room_screen(make_room().doc(0))), terminal_size=SIZE)


def test_the_table(snap_compare: Compare) -> None:
    doc = started(make_room()).doc(0)
    assert snap_compare(ScreenApp(room_screen(doc)), terminal_size=SIZE)


def test_a_hand_over(snap_compare: Compare) -> None:
    room = started(make_room(target=500))
    play_to_hand_over(room)
    assert snap_compare(ScreenApp(room_screen(room.doc(0))), terminal_size=SIZE)


def test_a_four_seat_match_over(snap_compare: Compare) -> None:
    room = make_room(seats=4, target=1)
    room.apply(bot_seat_event(3, "hard"))
    started(room)
    play_to_hand_over(room)
    doc = room.doc(0)
    assert doc["game"]["phase"] == "finished"
    assert snap_compare(ScreenApp(room_screen(doc)), terminal_size=SIZE)


def test_the_top_players_board(snap_compare: Compare) -> None:
    client = FixedClient()
    client.replies["leaderboard"] = {
        "type": "leaderboard",
        "board": "rating",
        "day": None,
        "entries": [
            {"player": "bbbb", "name": "Rho", "tag": "Q2ZT", "rating": 1312, "matches": 41},
            {"player": "aaaa", "name": "Ana", "tag": "4F7K", "rating": 1207, "matches": 12},
            {"player": "cccc", "name": "Rho", "tag": "7HXM", "rating": 1101, "matches": 10},
        ],
    }
    screen = lambda app: BoardsScreen(client, app.look, "rating")  # type: ignore[arg-type]  # noqa: E731
    assert snap_compare(ScreenApp(screen), terminal_size=SIZE)


def test_the_help(snap_compare: Compare) -> None:
    assert snap_compare(ScreenApp(lambda app: HelpScreen(app.look)), terminal_size=SIZE)


def test_the_identity_dialog_with_a_new_recovery_code(snap_compare: Compare) -> None:
    async def ask(pilot: Pilot[None]) -> None:
        await pilot.press("c")
        await pilot.pause()

    dialog = lambda app: IdentityScreen(app.look, describe_profile(PROFILE))  # noqa: E731
    assert snap_compare(ScreenApp(dialog), terminal_size=SIZE, run_before=ask)


def test_your_matches(snap_compare: Compare) -> None:
    client = FixedClient()
    seats = [{"name": "Ana", "tag": "4F7K"}, {"name": "Bot 2", "tag": None}]
    change = {"before": 1022, "after": 1034, "matches": 3, "provisional": True}
    change |= {"place": 1, "of": 2, "reason": "placed"}
    client.replies["matches"] = {
        "type": "matches",
        "matches": [
            {
                "id": "ABCDEF-2",
                "finished_at": 1_700_003_600.0,
                "seat": 0,
                "seats": seats,
                "totals": [4, 31],
                "winners": [0],
                "ratings": [change, None],
                "unrated": None,
            },
            {
                "id": "ABCDEF-1",
                "finished_at": 1_700_000_000.0,
                "seat": 0,
                "seats": seats,
                "totals": [27, 9],
                "winners": [1],
                "ratings": None,
                "unrated": "casual",
            },
        ],
    }
    screen = lambda app: MatchesScreen(client, app.look)  # type: ignore[arg-type]  # noqa: E731
    assert snap_compare(ScreenApp(screen), terminal_size=SIZE)


def test_a_replay(snap_compare: Compare) -> None:
    replay = build(record_of(played_match()))
    screen = lambda app: ReplayScreen(replay, app.look, 12)  # noqa: E731
    assert snap_compare(ScreenApp(screen), terminal_size=SIZE)
