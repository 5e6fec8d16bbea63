"""The terminal client's identity, daily deal, leaderboards and match list."""

from __future__ import annotations

import asyncio
import json
import stat
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from clients.net import GameClient
from clients.terminal import commands
from clients.terminal.app import amain
from clients.terminal.lists import render_leaderboard, render_matches
from clients.terminal.replay import ReplayError, fetch_record
from clients.terminal.tokens import KEEP, Saved, TokenFile
from server.app import port_of, start_server
from server.records import today
from tests.clients.test_terminal import Screen
from tests.server.conftest import make_settings

ACTIONS = "Actions (type a number"
OVER = "The daily deal is over."
BOARD = "Daily deal leaderboard"


@pytest.fixture
async def daily_url() -> AsyncIterator[str]:
    """A server whose daily deal is quick: target 1 (one hand), random bots."""
    game = await start_server(make_settings(daily_target=1, daily_level="random"))
    yield f"ws://127.0.0.1:{port_of(game)}/"
    await game.shutdown()


# --- pure parts -----------------------------------------------------------------------


def test_the_token_file_keeps_the_player_beside_the_rooms(tmp_path: Path) -> None:
    path = tmp_path / "cfg" / "tokens.json"
    tokens = TokenFile(path)
    url = "ws://example:8000/"
    assert tokens.player(url) is None
    tokens.put_player(url, "p" * 32, "0123456789abcdef")
    assert tokens.player(url) == "p" * 32 and tokens.player("ws://other/") is None
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    for n in range(KEEP + 5):
        tokens.put(url, f"room{n}", Saved(token=f"t{n}", seat=0, name="Ana"))
    data = json.loads(path.read_text(encoding="utf-8"))
    assert len(data[url]) == KEEP + 1  # the oldest rooms went, the player stayed
    assert data[url]["player"] == {"token": "p" * 32, "id": "0123456789abcdef"}
    assert tokens.get(url, "ROOM0") is None and tokens.get(url, f"room{KEEP + 4}") is not None
    assert tokens.get(url, "player") is None  # not a room
    # A token the server would refuse (too short or long, not text) is not sent.
    for bad in ("short", "x" * 65, 12345):
        data[url]["player"] = {"token": bad}
        path.write_text(json.dumps(data), encoding="utf-8")
        assert tokens.player(url) is None
    path.write_text('{"ws://example:8000/": "not rooms"}', encoding="utf-8")
    assert tokens.player(url) is None and tokens.get(url, "ROOM1") is None


def test_leaderboard_and_matches_commands_and_their_text() -> None:
    assert commands.parse("leaderboard") == commands.Board("daily")
    assert commands.parse("Leaderboard ALLTIME") == commands.Board("alltime")
    assert commands.parse("lb daily") == commands.Board("daily")
    assert isinstance(commands.parse("leaderboard weekly"), commands.Invalid)
    assert commands.parse("matches") == commands.Simple("matches")

    daily = {
        "type": "leaderboard",
        "board": "daily",
        "day": "2030-01-02",
        "entries": [
            {"player": "aaaa", "name": "Ana", "penalty": 0, "hands": 1},
            {"player": "bbbb", "name": "Ben", "penalty": 7, "hands": 2},
        ],
    }
    text = render_leaderboard(daily, "bbbb").splitlines()
    assert text[0] == "Daily deal leaderboard, 2030-01-02:"
    assert text[2].split() == ["1", "Ana", "0", "1"]
    assert text[3].split() == ["▶", "2", "Ben", "7", "2", "(you)"]
    assert "not on this board" in render_leaderboard(daily, "cccc")
    alltime = {
        "board": "alltime",
        "day": None,
        "entries": [{"player": "aaaa", "name": "Ana", "won": 3, "played": 4, "avg_penalty": 2.5}],
    }
    text = render_leaderboard(alltime, "aaaa").splitlines()
    assert text[0] == "All-time leaderboard:"
    assert text[2].split() == ["▶", "1", "Ana", "3", "4", "2.5", "(you)"]
    assert "nobody" in render_leaderboard({**daily, "entries": []}).lower()

    summary = {
        "id": "ABCDEF-1",
        "room": "ABCDEF",
        "finished_at": 0.0,
        "seats": [{"name": "Ana"}, {"name": "Bot 2"}, None],
        "totals": [3, 30, 12],
        "winners": [0],
        "daily": {"day": "2030-01-02", "ranked": True},
    }
    listing = render_matches([summary], "http://h:1", today="2030-01-02")
    assert "ABCDEF-1  1970-01-01 00:00 UTC  Ana* 3, Bot 2 30, Seat 3 12" in listing
    assert "[daily 2030-01-02, ranked] (replay once the day is over)" in listing
    assert listing.endswith("Replay one with: kings-corner replay ID --url http://h:1")
    assert "(replay once" not in render_matches([summary], today="2030-01-03")
    assert render_matches([]) == "You have no finished matches yet."


# --- against a server -----------------------------------------------------------------


async def test_the_same_player_on_every_visit(url: str, tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    args = ["--url", url, "--name", "Ana", "--token-file", str(path), "--leaderboard", "alltime"]
    out: list[str] = []
    assert await amain(args, write=out.append) == 0
    assert out == ["All-time leaderboard:\n  No matches yet."]
    first = json.loads(path.read_text(encoding="utf-8"))[url]["player"]
    assert len(first["token"]) >= 16 and len(first["id"]) == 16

    # The second run sends the kept token: the server knows the same player.
    assert await amain(args, write=out.append) == 0
    assert json.loads(path.read_text(encoding="utf-8"))[url]["player"] == first
    again = GameClient(url, "Ana")
    again.player = TokenFile(path).player(url)
    await again.connect()
    assert again.player_id == first["id"]
    await again.close()

    # A token file without a usable player token gets a fresh identity.
    other = tmp_path / "other.json"
    other.write_text(json.dumps({url: {"player": {"token": "short"}}}), encoding="utf-8")
    assert await amain([*args[:5], str(other), *args[6:]], write=out.append) == 0
    fresh = json.loads(other.read_text(encoding="utf-8"))[url]["player"]
    assert fresh["id"] != first["id"] and len(fresh["token"]) >= 16


class DailyPlayer:
    """Answers the client like a person would: the first action on every turn, then, once
    the daily deal is over, the day's leaderboard (again until it has our row: the match is
    recorded just after it ends), the match list, and quit."""

    def __init__(self, screen: Screen) -> None:
        self.screen = screen
        self.turns = 0

    async def __call__(self) -> str | None:
        async with asyncio.timeout(60):
            while True:
                text = self.screen.text
                if OVER in text:
                    lines = self.screen.lines
                    if not any(x.startswith(BOARD) and "(you)" in x for x in lines):
                        if any(x.startswith(BOARD) for x in lines):
                            await asyncio.sleep(0.05)
                        return "leaderboard daily"
                    if "Your finished matches" not in text:
                        return "matches"
                    return "quit"
                boards = sum(ACTIONS in line for line in self.screen.lines)
                if boards > self.turns:
                    self.turns = boards
                    return "1"
                await asyncio.sleep(0.01)


async def test_daily_deal_plays_to_the_end_and_the_board_shows_you(
    daily_url: str, tmp_path: Path
) -> None:
    day = today()
    path = tmp_path / "tokens.json"
    common = ["--url", daily_url, "--name", "Dana", "--token-file", str(path)]
    screen = Screen()
    status = await amain([*common, "--daily"], read_line=DailyPlayer(screen), write=screen.write)
    assert status == 0
    text = screen.text
    assert f"Daily deal (ranked): the deal of {day} (UTC) against three bots." in text
    assert "Daily deal (ranked) · Room " in text  # the board's head line
    assert "bot random" in text and "Match over: " in text
    assert "--join" not in text  # nothing to come back to after the daily deal
    (board,) = [x for x in screen.lines if x.startswith(BOARD) and "(you)" in x]
    assert board.startswith(f"Daily deal leaderboard, {day}:")
    (row,) = [x for x in board.splitlines() if "(you)" in x]
    assert row.split()[:2] == ["▶", "1"] and row.split()[2].startswith("Dana#")  # the tag
    (listing,) = [x for x in screen.lines if x.startswith("Your finished matches")]
    (line,) = listing.splitlines()[1:2]
    match_id = line.split()[0]
    assert f"[daily {day}, ranked] (replay once the day is over)" in line
    assert "Dana" in line and "Bot 2" in line
    base = daily_url.replace("ws://", "http://").rstrip("/")
    assert listing.endswith(f"Replay one with: kings-corner replay ID --url {base}")
    # Today's daily match is withheld from replays until the day is over.
    with pytest.raises(ReplayError, match="not over yet"):
        await asyncio.to_thread(fetch_record, base, match_id)

    # The same player again today: practice, and the board still shows the ranked row.
    again = Screen()
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    run = asyncio.create_task(amain([*common, "--daily"], read_line=lines.get, write=again.write))
    await again.shows("Daily deal (practice): the deal of ")
    await lines.put("quit")
    assert await asyncio.wait_for(run, 10) == 0
    out: list[str] = []
    assert await amain([*common, "--leaderboard"], write=out.append) == 0
    (printed,) = out
    assert printed.startswith(f"Daily deal leaderboard, {day}:")
    mine = [x.split()[:3] for x in printed.splitlines() if "(you)" in x]
    assert len(mine) == 1 and mine[0][:2] == ["▶", "1"] and mine[0][2].startswith("Dana#")
    # Someone else sees the row unmarked.
    out.clear()
    other = ["--url", daily_url, "--token-file", str(tmp_path / "o.json"), "--leaderboard"]
    assert await amain(other, write=out.append) == 0
    assert "Dana" in out[0] and "(you)" not in out[0] and "not on this board" in out[0]


async def test_matches_and_leaderboards_from_inside_a_room(url: str, tmp_path: Path) -> None:
    screen = Screen()
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    args = ["--url", url, "--name", "Ana", "--token-file", str(tmp_path / "t.json")]
    run = asyncio.create_task(
        amain([*args, "--seats", "2"], read_line=lines.get, write=screen.write)
    )
    await screen.shows("You are in seat 1 of room ")
    await lines.put("matches")
    await screen.shows("You have no finished matches yet.")
    await lines.put("leaderboard alltime")
    await screen.shows("All-time leaderboard:")
    await lines.put("leaderboard forever")
    await screen.shows("Which board? leaderboard daily, alltime or rating.")
    await lines.put("quit")
    assert await asyncio.wait_for(run, 10) == 0


async def test_a_recovery_code_brings_an_identity_to_the_terminal(
    daily_url: str, tmp_path: Path
) -> None:
    # Someone in a browser (any client) asks for a recovery code.
    browser = GameClient(daily_url, "Ana")
    await browser.connect()
    try:
        code = await browser.recovery_code()
        lines: list[str] = []
        tokens = tmp_path / "tokens.json"
        argv = ["--url", daily_url, "--name", "Someone", "--token-file", str(tokens)]
        assert await amain([*argv, "--recover", code.lower()], write=lines.append) == 0
        # Same identity, so the same tag, and the name it kept when it asked for the code
        # (not the one this run gave).
        tag = (await browser.request({"type": "profile"}, "profile"))["tag"]
        assert any(line.startswith(f"You are Ana#{tag} ") for line in lines), lines
        # The terminal keeps the identity: the next run is the same player.
        saved = json.loads(tokens.read_text(encoding="utf-8"))[daily_url]["player"]
        assert saved["id"] == browser.player_id
        again = GameClient(daily_url, "Ana")
        again.player = TokenFile(tokens).player(daily_url)
        await again.connect()
        assert again.player_id == browser.player_id
        await again.close()
        # A new code from the terminal replaces the browser's: the old one stops working.
        lines.clear()
        assert await amain([*argv, "--recovery-code"], write=lines.append) == 0
        assert any(line.startswith("Your recovery code: ") for line in lines), lines
        lines.clear()
        assert await amain([*argv, "--recover", code], write=lines.append) == 1
        assert any("did not work" in line for line in lines), lines
    finally:
        await browser.close()
