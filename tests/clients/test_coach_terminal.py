"""The coach in the terminal clients: a seat's three costliest turns worded in every
language (the cards as the client draws them, the moves, the saving, the chances to win,
why), shown under the match's result on the full screen, where 1, 2 and 3 open the replay
at that turn; and printed by the line mode."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from typing import Any

import pytest
from textual.app import App

from clients.i18n import texts
from clients.net import GameClient
from clients.terminal import replay as replay_module
from clients.terminal.app import TerminalClient
from clients.terminal.coach import (
    CoachError,
    await_review,
    coach_lines,
    costliest,
    move_text,
    seat_review,
)
from clients.terminal.render import Style, card
from clients.terminal.replay import build
from clients.terminal.tui.game import GameScreen
from clients.terminal.tui.look import Look
from clients.terminal.tui.replayview import ReplayScreen
from clients.words import describe_reason
from server.app import GameServer
from tests.clients.test_replay import played_match, record_of
from tests.clients.test_tui_ratings import (
    HARD,
    PLACED,
    finished_doc,
    left_panel,
    play_out,
    rated,
    text_of,
    wait_for,
)
from tests.clients.tui_driver import ARTIFACTS, server

COSTLY: dict[str, Any] = {
    "hand": 1,
    "step": 17,
    "seat": 0,
    "position": {"hand": ["7D", "KS", "3C"], "piles": {}, "hand_no": 2},
    "played": ["7D>N", "N>W"],
    "better": ["KS>NE"],
    "cost": 3.25,
    "win_chance": {"played": 0.2, "better": 0.354},
    "reason": {"code": "sheds_king", "params": {"card": "KS", "pile": "NE"}, "at": 0},
}
NOTHING_PLAYED: dict[str, Any] = {
    "hand": 0,
    "step": 4,
    "seat": 0,
    "position": {"hand": ["2H", "QC"]},
    "played": [],
    "better": ["2H>E"],
    "cost": 1.0,
    "win_chance": {"played": 0.5, "better": 0.61},
    "reason": {"code": "plays_card", "params": {"card": "2H", "top": "3S"}, "at": 0},
}
ENDED: dict[str, Any] = {
    **NOTHING_PLAYED,
    "step": 9,
    "played": ["QC>S"],
    "better": [],
    "reason": {"code": "keeps_follow", "params": {"card": "QC", "target": "JH", "pile": "S"}},
}
REVIEW: dict[str, Any] = {
    "match": "ABCDEF-1",
    "worlds": 16,
    "threshold": 0.5,
    "seats": [
        {
            "seat": 0,
            "turns": 12,
            "mistakes": 3,
            "lost": 5.3,
            "costliest": [COSTLY, NOTHING_PLAYED, ENDED],
        },
        None,
        {"seat": 2, "turns": 9, "mistakes": 0, "lost": 0.1, "costliest": []},
        None,
    ],
}
LOOK = Look()

__all__ = ["server"]  # the fixture: the real server, its bots thinking in threads


# --- the words --------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "es", "cs"])
def test_each_costly_turn_is_worded_in_each_language(lang: str) -> None:
    words = texts(lang)
    lines = coach_lines(seat_review(REVIEW, 0), lang, LOOK.card)
    text = "\n".join(lines)
    assert lines[0] == words["coach.title"]
    # Hand numbers count from 1; the hand is drawn as the table draws it, by suit.
    where = words["coach.where"].format(hand=2, cards="K♠ 3♣ 7♦")
    assert lines[1] == f"1. {where}"
    assert words["coach.played"].format(moves="7♦→N, N→W") in text
    assert words["coach.better"].format(moves="K♠→NE") in text
    points = "3.2" if lang == "en" else "3,2"
    assert words["coach.saved"].format(points=points, played=20, better=35) in text
    assert describe_reason(COSTLY["reason"], lang, LOOK.card) in text
    assert "K♠" in describe_reason(COSTLY["reason"], lang, LOOK.card)
    # Nothing played: said so; nothing better than ending: "end the turn".
    assert words["coach.played_none"] in text
    assert words["coach.saved"].format(points="1", played=50, better=61) in text
    assert words["coach.better"].format(moves=words["coach.then_end"]) in text
    assert [line[:3] for line in lines if not line.startswith(" ")][1:] == ["1. ", "2. ", "3. "]


@pytest.mark.parametrize("lang", ["en", "es", "cs"])
def test_a_seat_without_costly_turns_and_a_bot_seat_say_none(lang: str) -> None:
    none = texts(lang)["coach.none"]
    assert coach_lines(seat_review(REVIEW, 2), lang) == [texts(lang)["coach.title"], none]
    assert seat_review(REVIEW, 1) is None
    assert coach_lines(seat_review(REVIEW, 1), lang)[1:] == [none]
    assert seat_review(REVIEW, None) is None and seat_review(REVIEW, 9) is None


def test_moves_cards_letters_and_steps() -> None:
    assert move_text("7D>N", LOOK.card) == "7♦→N"
    assert move_text("NW>SE", LOOK.card) == "NW→SE"
    assert move_text("10H>S", Look(symbols=False).card) == "10H→S"
    letters = Style(symbols=False)
    lines = coach_lines(seat_review(REVIEW, 0), "en", lambda code: card(code, letters))
    assert "   You played: 7D→N, N→W" in lines
    assert [turn.step for turn in costliest(seat_review(REVIEW, 0))] == [17, 4, 9]


async def test_a_pending_review_is_asked_for_again_a_bounded_number_of_times() -> None:
    answers: list[dict[str, Any] | None] = [None, None, REVIEW]
    asked: list[tuple[str, str]] = []

    def fetch(url: str, match_id: str) -> dict[str, Any] | None:
        asked.append((url, match_id))
        return answers.pop(0)

    assert await await_review("http://h", "ABCDEF-1", fetch=fetch, wait=0) == REVIEW
    assert asked == [("http://h", "ABCDEF-1")] * 3
    with pytest.raises(CoachError):
        await await_review("http://h", "ABCDEF-1", fetch=lambda u, m: None, tries=3, wait=0)


# --- the full screen ----------------------------------------------------------------------


class Table(App[None]):
    """The room screen over a finished match, its review from ``review`` (the screen's
    seam), a replay opened as the app opens one: from the match's record, at a step."""

    def __init__(self, client: GameClient, look: Look, gate: asyncio.Event) -> None:
        super().__init__()
        self.client = client
        self.look = look
        self.gate = gate
        self.opened: list[tuple[str, int | None]] = []
        self.record = record_of(played_match())

    async def review(
        self, client: GameClient, doc: Mapping[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        await self.gate.wait()
        return "ABCDEF-1", REVIEW

    async def on_mount(self) -> None:
        await self.push_screen(GameScreen(self.client, self.look, review=self.review))

    def open_replay(self, match_id: str, step: int | None = None) -> None:
        self.opened.append((match_id, step))
        self.push_screen(ReplayScreen(build(self.record), self.look, step or 0))


async def test_the_result_shows_the_costly_turns_and_1_to_3_replay_them() -> None:
    client = GameClient("ws://127.0.0.1:9/", "Ana")
    client.seat, client.room = 0, "ABCDEF"
    client.doc = finished_doc(**rated(PLACED))
    gate = asyncio.Event()
    app = Table(client, LOOK, gate)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: "Match over" in text_of(app), "the result")
        # The result comes first, whole, as before; the keys line says the coach is below.
        assert re.search(r"total\s+2\s+0\s+1\s+12", text_of(app)), text_of(app)
        assert "r rematch · ↓ coach · c chat" in text_of(app)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        middle = screen.query_one("#middle")

        def coach_on_top() -> bool:
            return left_panel(app).startswith("Your three costliest turns")

        async def scroll_to_coach() -> None:
            for _ in range(40):  # the arrows scroll the result (the keys stay theirs)
                if coach_on_top():
                    return
                await pilot.press("down")
            raise AssertionError(text_of(app))

        await pilot.press("pagedown")
        await wait_for(pilot, lambda: middle.scroll_y > 0, "the result scrolled")
        assert texts("en")["coach.pending"] in left_panel(app), text_of(app)
        await pilot.press("1")  # nothing to replay yet
        assert app.opened == []
        gate.set()
        await wait_for(
            pilot, lambda: screen.coach is not None and screen.coach.state == "ready", "the review"
        )
        await pilot.press("pageup", "pageup", "pageup")
        await wait_for(pilot, lambda: middle.scroll_y == 0, "the top again")
        await scroll_to_coach()
        flat = left_panel(app)
        assert "Keys 1\u20133: replay that turn · ↑↓ scroll" in flat, text_of(app)
        assert "1 Hand 2, your hand: K♠ 3♣ 7♦" in flat, text_of(app)
        assert "You played: 7♦→N, N→W Better: K♠→NE" in flat
        assert "chance to win 20% → 35%" in flat
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        app.save_screenshot("coach-80x24.svg", str(ARTIFACTS))
        (ARTIFACTS / "coach-80x24.txt").write_text(text_of(app))
        await pilot.press("2")
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay")
        assert app.opened == [("ABCDEF-1", 4)]
        replay = app.screen
        assert isinstance(replay, ReplayScreen) and replay.index == 4
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, GameScreen), "the result again")
        await pilot.press("3")
        await wait_for(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay")
        assert app.opened[-1] == ("ABCDEF-1", 9)


async def test_a_daily_deal_and_a_failed_review() -> None:
    client = GameClient("ws://127.0.0.1:9/", "Ana")
    client.seat, client.room = 0, "ABCDEF"
    client.doc = finished_doc(**rated(None))

    async def broken(client: GameClient, doc: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        raise CoachError("no")

    class Broken(App[None]):
        async def on_mount(self) -> None:
            await self.push_screen(GameScreen(client, LOOK, review=broken))

    app = Broken()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: "could not be loaded" in left_panel(app), "the failure")
        await pilot.press("1")
        assert isinstance(app.screen, GameScreen)
        screen = app.screen
        client.doc = finished_doc(daily={"day": "2026-12-04", "ranked": True})
        screen.refresh_view()
        await pilot.pause(0.05)
        assert "costliest" not in left_panel(app)


# --- the line mode --------------------------------------------------------------------------


async def test_the_line_mode_prints_the_turns_after_the_result_and_on_coach() -> None:
    lines: list[str] = []
    client = GameClient("ws://127.0.0.1:9/", "Ana")
    client.seat, client.room = 0, "ABCDEF"
    gate = asyncio.Event()
    asked: list[str] = []

    async def review(client: GameClient, doc: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        asked.append(doc["room"]["code"])
        await gate.wait()
        return "ABCDEF-1", REVIEW

    app = TerminalClient(client, write=lines.append, review=review)
    client.doc = finished_doc(**rated(None))
    app.show_updates()
    assert "Match over: Bot 2 won." in lines[-1]
    assert app.coach() == "The coach is looking at your turns…"
    app.show_updates()
    await asyncio.sleep(0.01)
    assert asked == ["ABCDEF"]  # fetched once
    gate.set()
    async with asyncio.timeout(5):
        while "three costliest" not in lines[-1]:
            await asyncio.sleep(0.01)
    text = lines[-1]
    assert text.startswith("Your three costliest turns\n1. Hand 2, your hand: K♠ 3♣ 7♦\n")
    assert "   You played: 7♦→N, N→W\n   Better: K♠→NE\n" in text
    assert "   About 3.2 penalty points saved; chance to win 20% → 35%.\n" in text
    assert "   A king costs 10 in your hand: K♠ goes onto the empty NE.\n" in text
    url = "http://127.0.0.1:9"
    assert f"   Replay this turn: kings-corner replay ABCDEF-1 --step 17 --url {url}\n" in text
    assert text.endswith(f"--step 9 --url {url}")
    assert await app.handle("coach") and lines[-1] == text
    # A rematch forgets it.
    doc = finished_doc(**rated(None))
    doc["game"]["phase"] = "playing"
    client.doc = doc
    app.show_updates()
    assert app.coach() == "The coach reviews your turns once a match is over."


def test_the_replay_command_line_starts_at_a_step(monkeypatch: pytest.MonkeyPatch) -> None:
    record = record_of(played_match())
    monkeypatch.setattr(replay_module, "fetch_record", lambda url, match_id: record)
    out: list[str] = []
    argv = ["ABCDEF-1", "--step", "5", "--ascii"]
    assert replay_module.main(argv, read_line=lambda: None, write=out.append) == 0
    assert " · step 5 of " in out[-1]
    argv = ["ABCDEF-1", "--step", "100000", "--ascii"]
    assert replay_module.main(argv, read_line=lambda: None, write=out.append) == 0
    assert f" · step {build(record).last} of " in out[-1]


# --- a real match, end to end ----------------------------------------------------------------


async def test_a_real_match_is_reviewed_in_the_line_mode(server: GameServer, url: str) -> None:
    """Against three hard bots on the real server: the line mode finds the match in the
    history, waits for the review and prints the coach's lines (whatever it found)."""
    lines: list[str] = []
    client = GameClient(url, "Ana")
    app = TerminalClient(client, write=lines.append)
    await client.connect()
    await app.enter(HARD)
    follower = asyncio.create_task(app.follow())
    try:
        await client.send({"type": "start", "fill": "hard"})
        await play_out(client)
        async with asyncio.timeout(60):
            while not any(line.startswith("Your three costliest turns") for line in lines):
                await asyncio.sleep(0.05)
        text = next(line for line in lines if line.startswith("Your three costliest turns"))
        turns = text.count("\n1. ") + text.count("\n2. ") + text.count("\n3. ")
        if texts("en")["coach.none"] not in text:
            assert turns >= 1 and "Replay this turn: kings-corner replay " in text, text
        assert app.coach() == text
    finally:
        follower.cancel()
        await client.close()
