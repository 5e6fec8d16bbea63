"""The server installs and runs without the clients' dependencies (the ``terminal`` extra).

Real processes: the ``kings-corner`` command in an interpreter where ``textual`` cannot be
imported, as in the image, which installs the package without extras.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tomllib
from pathlib import Path

from clients.net import GameClient

ROOT = Path(__file__).resolve().parents[2]
#: Runs the ``kings-corner`` command with textual (and anything under it) unimportable.
WITHOUT_TEXTUAL = (
    "import sys; sys.modules['textual'] = None; "
    "from kings_corner.__main__ import main; sys.exit(main(sys.argv[1:]))"
)


def test_textual_is_an_extra_not_a_dependency_of_the_server() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert not any(d.startswith("textual") for d in project["dependencies"])
    assert any(d.startswith("textual") for d in project["optional-dependencies"]["terminal"])


async def test_the_server_plays_a_match_with_textual_missing() -> None:
    env = {**os.environ, "KC_PORT": "0", "KC_BOT_DELAY": "0", "KC_BOT_WORKERS": "0"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", WITHOUT_TEXTUAL, "serve", env=env, stdout=asyncio.subprocess.PIPE
    )
    try:
        assert proc.stdout is not None
        line = (await asyncio.wait_for(proc.stdout.readline(), 20)).decode()
        port = int(line.rsplit(":", 1)[1].strip(" /\n"))
        ana = GameClient(f"ws://127.0.0.1:{port}/", "Ana")
        await ana.connect()
        await ana.create(seats=2, target=1, bots=[None, "heuristic"])
        await ana.start()
        # The bot may deal and move first: its workers start at its first decision, which on
        # a busy machine takes seconds.
        await ana.until(lambda c: c.my_turn, 60)
        answer = await ana.act("end")
        assert answer["type"] == "patch"
        await ana.close()
    finally:
        proc.kill()
        await proc.wait()


async def test_the_full_screen_client_says_what_to_install() -> None:
    # Full screen needs a terminal at both ends: a pseudo-terminal stands in for one.
    leader, follower = os.openpty()
    try:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            WITHOUT_TEXTUAL,
            "play",
            "--url",
            "ws://127.0.0.1:9/",
            stdin=follower,
            stdout=follower,
            stderr=asyncio.subprocess.PIPE,
        )
        _, err = await asyncio.wait_for(proc.communicate(), 30)
    finally:
        os.close(follower)
        os.close(leader)
    assert proc.returncode == 2, err
    assert b"kings-corner[terminal]" in err
