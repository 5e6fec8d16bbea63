"""docs/client-library.md's bots, the Python one ("A bot in 30 lines") and the JavaScript
one (under "The JavaScript library"), are run as they are written, against a real server:
each fits in 30 lines and plays a match to its end, in a room of every variant (the room
options given on the command line, as the docs show)."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "client-library.md"
ROOT = DOC.parents[1]


def block(heading: str, language: str) -> str:
    """The first ``language`` code block under ``heading`` in the docs."""
    section = DOC.read_text().split(f"## {heading}", 1)[1]
    found = re.search(rf"```{language}\n(.*?)```", section, re.S)
    assert found is not None, f"no {language} block under {heading!r}"
    return found.group(1)


def the_bot() -> str:
    return block("A bot in 30 lines", "python")


def the_js_bot() -> str:
    return block("The JavaScript library", "js")


def node() -> list[str]:
    """A Node.js with a WebSocket: the machine's (20 needs a flag), else Playwright's own."""
    found = shutil.which("node")
    if found is None:
        from playwright._impl._driver import compute_driver_executable

        found = str(compute_driver_executable()[0])
    probe = [found, "-e", "process.exit(typeof WebSocket === 'function' ? 0 : 1)"]
    has_websocket = subprocess.run(probe, check=False).returncode == 0
    return [found] if has_websocket else [found, "--experimental-websocket"]


#: Every variant of the rules (RULES.md), one option each away from the defaults.
VARIANTS: list[dict[str, object]] = [
    {},
    {"draw": "start"},
    {"draw": "until_playable"},
    {"kings_first": True},
    {"opening_refill": True},
    {"scoring": "corners"},
]


def variant_id(variant: dict[str, object]) -> str:
    return ",".join(f"{k}={v}" for k, v in variant.items()) or "defaults"


async def plays_a_match(
    *command: str, cwd: Path, variant: dict[str, object], env: dict[str, str] | None = None
) -> None:
    """Run a bot in a room of ``variant``; it must end the match it created (target 5, or
    the one hand of ``scoring: corners``) without a refusal."""
    process = await asyncio.create_subprocess_exec(
        *command,
        cwd=cwd,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), 300)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise
    assert process.returncode == 0, err.decode()[-2000:]
    text = out.decode()
    assert "refused" not in text, text
    found = re.search(r"match over after (\d+) hands: totals \[(\d+), (\d+), (\d+)\]", text)
    assert found is not None, text
    if variant.get("scoring") == "corners":
        assert found.group(1) == "1"  # the match is one hand
    else:
        assert max(int(total) for total in found.groups()[1:]) >= 5  # the target was reached


def test_both_bots_fit_in_thirty_lines() -> None:
    for bot in (the_bot(), the_js_bot()):
        assert len(bot.splitlines()) <= 30, bot


@pytest.mark.parametrize("variant", VARIANTS, ids=variant_id)
async def test_the_bot_of_the_docs_plays_a_match_to_its_end(
    url: str, tmp_path: Path, variant: dict[str, object]
) -> None:
    script = tmp_path / "bot.py"
    script.write_text(the_bot())
    env = {"PYTHONPATH": str(ROOT), "PATH": ""}
    options = [json.dumps(variant)] if variant else []
    await plays_a_match(
        sys.executable, str(script), url, *options, cwd=ROOT, variant=variant, env=env
    )


@pytest.mark.parametrize("variant", VARIANTS, ids=variant_id)
async def test_the_js_bot_of_the_docs_plays_a_match_to_its_end(
    url: str, tmp_path: Path, variant: dict[str, object]
) -> None:
    (tmp_path / "bot.mjs").write_text(the_js_bot())
    (tmp_path / "clients").symlink_to(ROOT / "clients")  # "./clients/web/client.js"
    options = [json.dumps(variant)] if variant else []
    await plays_a_match(*node(), "bot.mjs", url, *options, cwd=tmp_path, variant=variant)
