"""Which mode ``kings-corner play`` runs in, by its output: in a terminal (a pty here) the
full screen; with ``--plain``, or when the input is not a terminal, one line per event."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import pty
import re
import struct
import sys
import termios
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from clients.net import GameClient
from clients.terminal.app import TerminalClient
from protocol.engine import legal_actions
from tests.clients.test_render import make_room, started
from tests.clients.tui_driver import server

__all__ = ["server"]  # the fixture, imported to override the shared one


def command(url: str, tmp_path: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "kings_corner",
        "play",
        "--url",
        url,
        "--name",
        "Ana",
        "--token-file",
        str(tmp_path / "tokens.json"),
        *extra,
    ]


async def read_until(stream: asyncio.StreamReader, needle: str, seen: list[str]) -> None:
    async with asyncio.timeout(20):
        while needle not in "".join(seen):
            line = await stream.readline()
            if not line:
                raise AssertionError(f"no {needle!r} before the end:\n{''.join(seen)}")
            seen.append(line.decode())


async def test_plain_mode_writes_one_line_per_event(url: str, tmp_path: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        *command(url, tmp_path, "--plain", "--create", "--seats", "2", "--bots", "random"),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    assert process.stdin is not None and process.stdout is not None
    seen: list[str] = []
    await read_until(process.stdout, "Type 'help' for the commands.", seen)
    process.stdin.write(b"start\n")
    await read_until(process.stdout, "Your hand (", seen)
    process.stdin.write(b"chat hello\n")
    await read_until(process.stdout, "[Ana] hello", seen)
    process.stdin.write(b"quit\n")
    await process.stdin.drain()
    rest, _ = await asyncio.wait_for(process.communicate(), 20)
    assert process.returncode == 0
    out = "".join(seen) + rest.decode()
    lines = out.splitlines()
    # An event is a line of its own.
    assert any(re.fullmatch(r"· The match begins; (Ana|Bot 2) deals\.", line) for line in lines)
    assert "[Ana] hello" in lines
    assert any(line.startswith("You are in seat 1 of room ") for line in lines)
    assert "\x1b" not in out  # no screen control, no colours: text for scripts and readers
    assert any(line.startswith("Bye. Come back to your seat with: --join ") for line in lines)


async def test_a_terminal_gets_the_full_screen(url: str, tmp_path: Path) -> None:
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "NO_COLOR": "1"}
    env.pop("TEXTUAL", None)
    process = await asyncio.create_subprocess_exec(
        *command(url, tmp_path, "--create", "--seats", "2", "--bots", "random"),
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=env,
    )
    os.close(follower)
    output = bytearray()

    def read() -> bytes:
        try:
            return os.read(leader, 65536)
        except OSError:
            return b""

    try:
        async with asyncio.timeout(30):
            while b"Waiting" not in output:
                chunk = await asyncio.to_thread(read)
                if not chunk:
                    break
                output += chunk
            assert b"\x1b[?1049h" in output  # the alternate screen: nothing scrolls away
            assert b"Waiting" in output
            os.write(leader, b"\x11")  # Ctrl+Q
            while process.returncode is None:
                chunk = await asyncio.to_thread(read)
                if not chunk:
                    break
                output += chunk
            assert await process.wait() == 0
    finally:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        os.close(leader)
    assert b"Come back to your seat with: --join " in output


BOARD = "Table (base … top):"


async def test_plain_mode_prints_what_changed_and_the_board_once_a_turn() -> None:
    """Fed a real room's documents and log: the whole board at the start of each of the
    viewer's turns (and on ``look``), only the hand and moves after each of their moves,
    only log lines while others play."""
    room = started(make_room(seats=2))  # Ana (seat 0) moves first
    assert room.match is not None and room.match.position.turn == 0
    client = GameClient("ws://127.0.0.1:9/", "Ana")
    client.seat, client.room = 0, "ABCDEF"
    out: list[str] = []
    app = TerminalClient(client, write=out.append)

    def show(lines: Iterable[dict[str, Any]] = ()) -> list[str]:
        client.doc = room.doc(0)
        client.log.extend(lines)
        app.show_updates()
        printed = out[:]
        out.clear()
        return printed

    [board] = show()
    assert BOARD in board and "Your hand (7): " in board and "Actions (" in board
    assert show() == []  # nothing new, nothing printed

    play = next(
        a.text()
        for a in legal_actions(room.match.position)
        if a.text() != "end" and a.text()[0] not in "NESW"
    )
    log, moves = show(room.apply({"e": "act", "seat": 0, "a": play}))
    assert log.startswith("· Ana played ")
    assert moves.startswith("Your hand (6): ") and "Actions (" in moves and BOARD not in moves
    [ended] = show(room.apply({"e": "act", "seat": 0, "a": "end"}))
    assert ended.startswith("· Ana ") and "turn" in ended  # drew a card and ended, or ended

    # Bot 2's turn ends, Ana's begins: its log line, then the whole board once.
    assert room.match.position.turn == 1
    log, board = show(room.apply({"e": "act", "seat": 1, "a": "end"}))
    assert log.startswith("· Bot 2 ") and BOARD in board and "Actions (" in board
    assert show() == []

    # look: the board (and the log) whenever asked.
    assert await app.handle("look")
    [looked] = out
    assert BOARD in looked and "Log:" in looked
