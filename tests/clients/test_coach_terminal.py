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
    coach_title,
    costliest,
    line_tables,
    move_text,
    seat_review,
    turn_lines,
)
from clients.terminal.render import Style, card
from clients.terminal.replay import build
from clients.terminal.tui.game import GameScreen
from clients.terminal.tui.look import Look
from clients.terminal.tui.replayview import ReplayScreen
from clients.words import describe_gain, describe_reason
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
    "fork": 0,
    "cost": 3.25,
    "could_go_out": False,
    "win_chance": {"played": 0.2, "better": 0.354},
    "reason": {"code": "saves_king", "params": {"card": "KS", "pile": "NE"}, "at": 0},
}
NOTHING_PLAYED: dict[str, Any] = {
    "hand": 0,
    "step": 4,
    "seat": 0,
    "position": {"hand": ["2H", "QC"]},
    "played": [],
    "better": ["2H>E"],
    "fork": 0,
    "cost": 1.0,
    "could_go_out": False,
    "win_chance": {"played": 0.5, "better": 0.61},
    "reason": {"code": "plays_more", "params": {"count": 1, "card": "2H", "pile": "E"}, "at": 0},
}
ENDED: dict[str, Any] = {
    **NOTHING_PLAYED,
    "step": 9,
    "played": ["QC>S"],
    "better": [],
    "reason": {
        "code": "keeps_follow",
        "params": {"card": "QC", "target": "JH", "pile": "S"},
        "at": 0,
    },
}
#: A turn the player could have ended by going out: the lines share two plays, then part.
GONE_OUT: dict[str, Any] = {
    "hand": 0,
    "step": 6,
    "seat": 0,
    "position": {"hand": ["8H", "7S", "6D", "QC"]},
    "played": ["8H>N", "7S>N", "QC>S"],
    "better": ["8H>N", "7S>N", "6D>N", "QC>E"],
    "fork": 2,
    "cost": 9.5,
    "could_go_out": True,
    "win_chance": {"played": 0.4, "better": 0.9},
    "reason": {"code": "goes_out", "params": {"card": "QC", "pile": "E"}, "at": 3},
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
            "could_go_out": 0,
            "lost": 5.3,
            "costliest": [COSTLY, NOTHING_PLAYED, ENDED],
        },
        None,
        {"seat": 2, "turns": 9, "mistakes": 0, "could_go_out": 0, "lost": 0.1, "costliest": []},
        None,
    ],
}


def seat_of(*turns: Mapping[str, Any]) -> dict[str, Any]:
    """A seat's entry in a review with these costliest turns."""
    gone = sum(1 for turn in turns if turn.get("could_go_out"))
    return {
        "seat": 0,
        "turns": 9,
        "mistakes": len(turns),
        "could_go_out": gone,
        "lost": 9.0,
        "costliest": list(turns),
    }


LOOK = Look()
#: What the coach's lines of a review begin with: a heading, or that it found nothing.
COACH_FIRST = tuple(
    texts("en")[key] for key in ("coach.title", "coach.title_1", "coach.title_2", "coach.none")
)

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
    # No fork: what was played, then the better line, each whole.
    assert lines[2] == "   " + words["coach.played"].format(moves="7♦→N, N→W")
    assert lines[3] == "   " + words["coach.better"].format(moves="K♠→NE")
    points = "3.2" if lang == "en" else "3,2"
    assert words["coach.saved"].format(points=points, played=20, better=35) in text
    # Why: what the better line gains (gain.<code>), the card drawn, the pile named.
    gain = words["gain.saves_king"].format(card="K♠", pile=words["pile.NE"])
    assert describe_gain(COSTLY["reason"], lang, LOOK.card) == gain
    assert lines[5] == f"   {gain}"
    # Nothing played: said so; nothing better than ending: "end the turn".
    assert words["coach.played_none"] in text
    assert words["coach.saved"].format(points="1", played=50, better=61) in text
    assert words["coach.better"].format(moves=words["coach.then_end"]) in text
    plays_more = words["gain.plays_more"].format(count=1, card="2♥", pile=words["pile.E"])
    keeps = words["gain.keeps_follow"].format(card="Q♣", target="J♥", pile=words["pile.S"])
    assert f"   {plays_more}" in lines and f"   {keeps}" in lines
    assert [line[:3] for line in lines if not line.startswith(" ")][1:] == ["1. ", "2. ", "3. "]
    assert "{" not in text and "why." not in text and "gain." not in text


@pytest.mark.parametrize("lang", ["en", "es", "cs"])
def test_a_turn_that_could_go_out_says_so_first_and_the_lines_part_at_the_fork(lang: str) -> None:
    words = texts(lang)
    lines = coach_lines(seat_of(GONE_OUT, COSTLY), lang, LOOK.card)
    assert lines[0] == words["coach.title_2"]
    # The turn's first line: the player could have gone out; then where it was.
    assert lines[1] == "1. " + words["coach.could_go_out"]
    assert lines[2] == "   " + words["coach.where"].format(hand=1, cards="7♠ 8♥ Q♣ 6♦")
    # The start the lines share once, then each line from the fork on.
    assert lines[3] == "   " + words["coach.as_played"].format(moves="8♥→N, 7♠→N")
    assert lines[4] == "   " + words["coach.then_played"].format(moves="Q♣→S")
    assert lines[5] == "   " + words["coach.then_better"].format(moves="6♦→N, Q♣→E")
    assert lines[6] == "   " + words["coach.saved"].format(
        points="9.5" if lang == "en" else "9,5", played=40, better=90
    )
    gain = words["gain.goes_out"].format(card="Q♣", pile=words["pile.E"])
    assert lines[7] == f"   {gain}"
    # The other turn, no fork: no "could have gone out", the two lines whole.
    assert lines[8] == "2. " + words["coach.where"].format(hand=2, cards="K♠ 3♣ 7♦")
    assert words["coach.could_go_out"] not in "\n".join(lines[8:])
    assert lines[9] == "   " + words["coach.played"].format(moves="7♦→N, N→W")
    # Nothing played after the shared start: it ended the turn; the better line too.
    ended = {**GONE_OUT, "played": GONE_OUT["played"][:2], "better": GONE_OUT["better"][:2]}
    turn = turn_lines(ended, lang, LOOK.card)
    assert turn.head == words["coach.could_go_out"]
    assert turn.moves[1:] == (
        words["coach.then_ended"],
        words["coach.then_better"].format(moves=words["coach.then_end"]),
    )
    # A fork the lines do not share (or none said) is no fork: both lines whole.
    for odd in ({**GONE_OUT, "fork": 3}, {k: v for k, v in GONE_OUT.items() if k != "fork"}):
        moves = turn_lines(odd, lang, LOOK.card).moves
        assert moves == (
            words["coach.played"].format(moves="8♥→N, 7♠→N, Q♣→S"),
            words["coach.better"].format(moves="8♥→N, 7♠→N, 6♦→N, Q♣→E"),
        )


@pytest.mark.parametrize("lang", ["en", "es", "cs"])
def test_the_heading_counts_the_turns(lang: str) -> None:
    words = texts(lang)
    assert coach_lines(seat_of(COSTLY), lang)[0] == words["coach.title_1"]
    assert coach_lines(seat_of(COSTLY, ENDED), lang)[0] == words["coach.title_2"]
    assert coach_lines(seat_of(GONE_OUT, COSTLY, ENDED), lang)[0] == words["coach.title"]
    assert [coach_title(n, lang) for n in range(4)] == [
        "",
        words["coach.title_1"],
        words["coach.title_2"],
        words["coach.title"],
    ]


@pytest.mark.parametrize("lang", ["en", "es", "cs"])
def test_each_gain_is_worded(lang: str) -> None:
    words = texts(lang)
    reasons = {
        "goes_out": {"card": "2D", "pile": "N"},
        "saves_king": {"card": "KS", "pile": "NW"},
        "plays_more": {"count": 2, "card": "5C", "pile": "SE"},
        "closes_space": {"count": 1},
        "no_merge": {"count": 3},
        "holds_back": {"card": "10H", "count": 2},
        "keeps_follow": {"card": "QC", "target": "JH", "pile": "W"},
    }
    for code, params in reasons.items():
        text = describe_gain({"code": code, "params": params, "at": 0}, lang, LOOK.card)
        assert text and "{" not in text, (code, text)
        for key, value in params.items():
            if key == "pile":
                assert words[f"pile.{value}"] in text
            elif key == "count":
                assert str(value) in text
            else:
                assert LOOK.card(str(value)) in text
    assert describe_gain({"code": "no_such"}, lang) == "" and describe_gain(None, lang) == ""
    # A review from before the gains words its reason as a hint does.
    old = {"code": "sheds_king", "params": {"card": "KS", "pile": "NE"}}
    assert turn_lines({**COSTLY, "reason": old}, lang, LOOK.card).why == describe_reason(
        old, lang, LOOK.card
    )


@pytest.mark.parametrize("lang", ["en", "es", "cs"])
def test_a_seat_without_costly_turns_and_a_bot_seat_say_none(lang: str) -> None:
    none = texts(lang)["coach.none"]
    assert coach_lines(seat_review(REVIEW, 2), lang) == [none]
    assert seat_review(REVIEW, 1) is None
    assert coach_lines(seat_review(REVIEW, 1), lang) == [none]
    assert seat_review(REVIEW, None) is None and seat_review(REVIEW, 9) is None


def test_the_better_line_played_on_a_table() -> None:
    hands = [["8H", "7S", "QC"], ["2C"]]
    piles = {"N": ["9C"], "E": [], "S": ["KD"], "W": ["JS"], "NE": [], "SE": [], "SW": [], "NW": []}
    tables = line_tables(hands, piles, 0, ["8H>N", "7S>N", "N>E", "QC>S", "9C>W"])
    assert [table.move for table in tables] == [None, "8H>N", "7S>N", "N>E", "QC>S"]
    assert tables[0].hands == (("8H", "7S", "QC"), ("2C",)) and tables[0].pile is None
    assert tables[1].hands[0] == ("7S", "QC") and tables[1].piles["N"] == ("9C", "8H")
    assert tables[1].pile == "N"
    # A pile laid on another: all of it, in order, and the space left empty.
    assert tables[3].piles["E"] == ("9C", "8H", "7S") and tables[3].piles["N"] == ()
    assert tables[4].hands == ((), ("2C",)) and tables[4].piles["S"] == ("KD", "QC")
    # The line stops at a move that cannot be made (9♣ is in no hand); nothing was changed.
    assert hands[0] == ["8H", "7S", "QC"] and piles["N"] == ["9C"]
    assert len(line_tables(hands, piles, 0, ["NE>N", "8H>N"])) == 1  # an empty pile moves not
    assert len(line_tables(hands, piles, 1, ["8H>N"])) == 1  # not seat 1's card


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

    def __init__(
        self,
        client: GameClient,
        look: Look,
        gate: asyncio.Event,
        review: Mapping[str, Any] = REVIEW,
    ) -> None:
        super().__init__()
        self.client = client
        self.look = look
        self.gate = gate
        self.the_review = dict(review)
        self.opened: list[tuple[str, int | None]] = []
        self.record = record_of(played_match())

    async def review(
        self, client: GameClient, doc: Mapping[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        await self.gate.wait()
        return "ABCDEF-1", self.the_review

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
        # Page Down scrolls smoothly: wait for the view to arrive, not only to start moving.
        await wait_for(
            pilot, lambda: texts("en")["coach.pending"] in left_panel(app), "the coach's line"
        )
        assert middle.scroll_y > 0
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


@pytest.mark.parametrize("lang", ["en", "es", "cs"])
async def test_the_result_words_could_go_out_first_and_wraps_every_line_at_80(lang: str) -> None:
    """Two turns, the first one the player could have ended by going out: the heading says
    two, that turn says so first, the lines part at the fork; every line wrapped inside the
    result's box at 80 columns, none cut."""
    words = texts(lang)
    client = GameClient("ws://127.0.0.1:9/", "Ana")
    client.seat, client.room = 0, "ABCDEF"
    client.doc = finished_doc(**rated(PLACED))
    gate = asyncio.Event()
    gate.set()
    look = Look(lang=lang)
    review = {**REVIEW, "seats": [seat_of(GONE_OUT, COSTLY), None, None, None]}
    app = Table(client, look, gate, review)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(
            pilot,
            lambda: (
                isinstance(app.screen, GameScreen)
                and app.screen.coach is not None
                and app.screen.coach.state == "ready"
            ),
            "the review",
        )
        heading = words["coach.title_2"]
        for _ in range(60):
            if left_panel(app).startswith(heading):
                break
            await pilot.press("down")
        else:
            raise AssertionError(text_of(app))
        flat = left_panel(app)
        first = f"1 {words['coach.could_go_out']} "
        assert first + words["coach.where"].format(hand=1, cards="7♠ 8♥ Q♣ 6♦") in flat, flat
        for line in (
            words["coach.as_played"].format(moves="8♥→N, 7♠→N"),
            words["coach.then_played"].format(moves="Q♣→S"),
            words["coach.then_better"].format(moves="6♦→N, Q♣→E"),
            words["gain.goes_out"].format(card="Q♣", pile=words["pile.E"]),
            "2 " + words["coach.where"].format(hand=2, cards="K♠ 3♣ 7♦"),
        ):
            assert " ".join(line.split()) in flat, (line, flat)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        middle = screen.query_one("#middle").region
        rows = text_of(app).splitlines()[middle.y : middle.bottom]
        inside = [row[middle.x : middle.right] for row in rows]
        # Inside its box, the scroll bar (▄ ▇) the only thing beside the text.
        assert all(row[-1] in "│╮╯" for row in inside), inside
        assert not any("…" in row for row in inside), inside
        (ARTIFACTS / f"coach-fork-{lang}-80x24.txt").write_text(text_of(app))
        app.save_screenshot(f"coach-fork-{lang}-80x24.svg", str(ARTIFACTS))


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
    assert "   A king costs 10 in your hand: that line puts K♠ on Northeast.\n" in text
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
            while not any(line.startswith(COACH_FIRST) for line in lines):
                await asyncio.sleep(0.05)
        text = next(line for line in lines if line.startswith(COACH_FIRST))
        turns = text.count("\n1. ") + text.count("\n2. ") + text.count("\n3. ")
        if text != texts("en")["coach.none"]:
            assert text.startswith(coach_title(turns)), text
            assert turns >= 1 and "Replay this turn: kings-corner replay " in text, text
        assert app.coach() == text
    finally:
        follower.cancel()
        await client.close()
