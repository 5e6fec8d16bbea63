"""The terminal client driven through its input seam against a real server."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from clients.net import GameClient
from clients.terminal.app import Entry, TerminalClient, amain
from clients.terminal.render import action_label, describe
from clients.terminal.tokens import Saved, TokenFile
from server.app import GameServer


class Screen:
    """Collects everything the client writes, and waits for text to appear."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._grew = asyncio.Event()

    def write(self, text: str) -> None:
        self.lines.append(text)
        self._grew.set()

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    async def shows(self, needle: str, timeout: float = 10.0) -> None:
        async with asyncio.timeout(timeout):
            while needle not in self.text:
                self._grew.clear()
                await self._grew.wait()


async def wait_for(check: Callable[[], bool], timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.01)


def newer_than(version: int) -> Callable[[GameClient], bool]:
    return lambda c: c.version > version


def mine(c: GameClient) -> bool:
    game = c.game
    return game is not None and (game["phase"] != "playing" or bool(game.get("legal")))


# The bot's moves come from threads of the server: a server's first bot decision otherwise
# waits for its worker processes to start (a fork server and three interpreters), which beside
# busy processes took longer than the test waits for a move (the bot may move first).
@pytest.mark.settings(bot_workers=0)
async def test_terminal_plays_moves_by_number_text_and_words(url: str, tmp_path: Path) -> None:
    screen = Screen()
    tokens = TokenFile(tmp_path / "tokens.json")
    client = GameClient(url, "Ana")
    app = TerminalClient(client, write=screen.write, tokens=tokens, fill="random")
    await client.connect()
    await app.enter(Entry(mode="create", seats=2, options={"target": 50}))
    assert client.room is not None and client.seat == 0
    saved = tokens.get(url, client.room)
    assert saved is not None and saved.token == client.token and saved.seat == 0
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    runner = asyncio.create_task(app.run(lines.get))

    await screen.shows("type 'start' to begin")
    await lines.put("help")
    await screen.shows("chat TEXT")
    await lines.put("chat good luck")
    await screen.shows("[Ana] good luck")
    await lines.put("what now")
    await screen.shows("Not a command or an action: 'what now'")
    await lines.put("start")
    await client.until(lambda c: c.game is not None)
    await screen.shows(f"Room {client.room} · playing · hand 1")
    assert "bot random" in screen.text

    played = 0
    typed_text = hinted = False
    while played < 8:
        await client.until(mine)
        game = client.game
        assert game is not None
        if game["phase"] == "hand_over":
            # The bot went out first (a random bot can, now and then): the next hand is
            # dealt at once; play on there.
            await client.until(lambda c: c.game is not None and c.game["phase"] != "hand_over")
            continue
        if game["phase"] != "playing":
            break
        legal = list(game["legal"])
        # The board on our turn lists every legal action with its number.
        await screen.shows(f"{len(legal):>2}) {action_label(legal[-1])}")
        version = client.version
        log_before = len(client.log)
        if not hinted:
            hinted = True
            await lines.put("hint")
            await screen.shows("Hint: ")
            hint_line = next(x for x in reversed(screen.lines) if x.startswith("Hint: "))
            # Worded as the numbered actions are (J♣ → S), not as the wire's J C>S.
            assert any(hint_line.startswith(f"Hint: {action_label(a)}") for a in legal)
            assert not any(f"Hint: {a} " in hint_line + " " for a in legal if ">" in a)
        if not typed_text and legal[0] != "end":
            typed_text = True
            choice = legal[0]
            await lines.put(choice.lower())  # action text, in any case
        else:
            choice = legal[0]
            await lines.put("1")
        await client.until(newer_than(version))
        played += 1
        ours = client.log[log_before]
        assert ours["seat"] == 0
        if choice == "end":
            assert ours["ev"] in ("ended", "drew")
        else:
            assert ours["ev"] == ("played" if choice[0] not in "NESW" else "moved")
        words = describe(ours, client.doc)
        assert words.startswith("Ana ") and ("ended the turn" in words or choice != "end")
        await screen.shows(f"· {words}")
    assert played >= 1
    # End the turn by its number; the other seat's moves are then streamed as they happen.
    await client.until(mine)
    game = client.game
    assert game is not None
    if game["phase"] == "playing":
        await lines.put(str(game["legal"].index("end") + 1))
        await screen.shows("· Bot 2 ")

    await lines.put("quit")
    assert await asyncio.wait_for(runner, 10) == 0
    assert f"--join {client.room}" in screen.text


async def test_cli_comes_back_to_its_seat_with_the_token_file(
    server: GameServer, url: str, tmp_path: Path
) -> None:
    token_file = tmp_path / "cfg" / "tokens.json"
    common = ["--url", url, "--name", "Ana", "--token-file", str(token_file)]
    first = Screen()
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    run = asyncio.create_task(
        amain(
            [*common, "--create", "--seats", "2", "--bots", "random"],
            read_line=lines.get,
            write=first.write,
            tty=False,
        )
    )
    await first.shows("You are in seat 1 of room ")
    data = json.loads(token_file.read_text(encoding="utf-8"))
    ((code, entry),) = ((k, v) for k, v in data[url].items() if k != "player")
    assert len(data[url]["player"]["token"]) >= 16  # the identity is kept beside the seats
    assert entry["seat"] == 0 and entry["name"] == "Ana"
    await first.shows("Bot 2")
    await lines.put(None)  # end of input: the client disconnects, the seat stays Ana's
    assert await asyncio.wait_for(run, 10) == 0

    live = server.lobby.rooms[code]
    await wait_for(lambda: live.room.seats[0] is not None and not live.room.seats[0].connected)

    again = Screen()
    lines = asyncio.Queue()
    run = asyncio.create_task(
        amain([*common, "--join", code.lower()], read_line=lines.get, write=again.write, tty=False)
    )
    await again.shows(f"You are in seat 1 of room {code}.")
    await wait_for(lambda: live.room.seats[0] is not None and live.room.seats[0].connected)
    assert [s.name if s else None for s in live.room.seats] == ["Ana", "Bot 2"]
    await lines.put("start")
    await again.shows("Your hand (")
    assert "\x1b[" not in again.text  # not a tty: no colours
    await lines.put("leave")
    assert await asyncio.wait_for(run, 10) == 0
    assert TokenFile(token_file).get(url, code) is None


async def test_stale_token_falls_back_to_a_new_seat_and_spectators_see_no_hand(
    url: str, tmp_path: Path
) -> None:
    host = GameClient(url, "Host")
    await host.connect()
    code = await host.create(seats=3)
    token_file = tmp_path / "tokens.json"
    TokenFile(token_file).put(url, code, Saved(token="not-a-real-token", seat=2, name="Ana"))
    screen = Screen()
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    args = ["--url", url, "--name", "Ana", "--token-file", str(token_file), "--join", code]
    run = asyncio.create_task(amain(args, read_line=lines.get, write=screen.write, tty=False))
    await screen.shows("no longer valid")
    await screen.shows(f"You are in seat 2 of room {code}.")
    saved = TokenFile(token_file).get(url, code)
    assert saved is not None and saved.token != "not-a-real-token" and saved.seat == 1

    watcher = Screen()
    watch_lines: asyncio.Queue[str | None] = asyncio.Queue()
    watch = asyncio.create_task(
        amain(
            [
                "--url",
                url,
                "--name",
                "Eve",
                "--token-file",
                str(tmp_path / "w.json"),
                "--watch",
                code,
            ],
            read_line=watch_lines.get,
            write=watcher.write,
            tty=False,
        )
    )
    await watcher.shows(f"You are watching room {code}.")
    await screen.shows("Type 'ready' when you are.")
    await lines.put("ready")
    await host.until(lambda c: c.doc is not None and c.doc["room"]["seats"][1]["ready"])
    await host.start("random")
    await watcher.shows("· The match begins")
    await watcher.shows("Table (base … top):")
    assert "Your hand" not in watcher.text
    await screen.shows("Your hand (")
    await watch_lines.put("quit")
    await lines.put("quit")
    assert list(await asyncio.wait_for(asyncio.gather(run, watch), 10)) == [0, 0]
    await host.close()


async def test_quick_play_seats_the_player_at_a_table_with_bots(url: str, tmp_path: Path) -> None:
    screen = Screen()
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    args = ["--url", url, "--name", "Quinn", "--token-file", str(tmp_path / "t.json"), "--quick"]
    run = asyncio.create_task(amain([*args, "2"], read_line=lines.get, write=screen.write))
    await screen.shows("Waiting for a table of 2")
    await screen.shows("You are in seat 1 of room ")
    await screen.shows("Your hand (")
    assert "bot hard" in screen.text  # quick play fills with the default level
    await lines.put("quit")
    assert await asyncio.wait_for(run, 10) == 0


async def test_a_kicked_player_is_told_and_the_client_stops(url: str, tmp_path: Path) -> None:
    host = GameClient(url, "Host")
    await host.connect()
    code = await host.create(seats=2)
    screen = Screen()
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    token_file = tmp_path / "t.json"
    args = ["--url", url, "--name", "Ana", "--token-file", str(token_file), "--join", code]
    run = asyncio.create_task(amain(args, read_line=lines.get, write=screen.write))
    await screen.shows(f"You are in seat 2 of room {code}.")
    assert TokenFile(token_file).get(url, code) is not None
    await host.send({"type": "kick", "seat": 1})
    assert await asyncio.wait_for(run, 10) == 0
    assert "The host removed you from the room." in screen.text
    assert TokenFile(token_file).get(url, code) is None
    await host.close()
