"""A hint says why, in documented codes: every reason ``explain`` gives is in the table of
docs/protocol.md with exactly its parameters, and the server's hint carries one."""

from __future__ import annotations

import random
import re
from pathlib import Path

from protocol.bots.explain import CODES, explain
from protocol.engine import Options, legal_actions, new_match, seat_view
from tests.hardening.helpers import clients_of, fast_settings, next_mover, serving

DOCS = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def documented() -> dict[str, set[str]]:
    """code -> params, from the table under "Hints and their reasons"."""
    text = DOCS.read_text()
    section = text[text.index("### Hints and their reasons") :]
    section = section[: section.index("\n## ")]
    rows: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 3 and (found := re.fullmatch(r"`(\w+)`", cells[0])):
            rows[found.group(1)] = set(re.findall(r"`(\w+)`", cells[1]))
    return rows


def test_the_table_lists_every_code() -> None:
    assert set(documented()) == set(CODES)


def test_every_reason_given_is_documented_with_its_params() -> None:
    table = documented()
    seen: set[str] = set()
    rng = random.Random(5)
    for game in range(30):
        match = new_match(Options(seats=rng.choice([2, 3, 4]), target=500), seed=game)
        for _ in range(400):
            pos = match.position
            if match.phase == "finished":
                break
            if pos.result is not None:
                match = match.next_hand()
                continue
            actions = legal_actions(pos)
            view = seat_view(match, pos.turn)
            for action in rng.sample(actions, min(3, len(actions))):
                code, params = explain(view, action)
                assert code in table, code
                assert set(params) == table[code], (code, params)
                seen.add(code)
            match = match.apply(rng.choice(actions), pos.turn)
    assert len(seen) >= 6, seen  # random play meets most tips


async def test_the_servers_hint_carries_its_reason() -> None:
    table = documented()
    async with serving(fast_settings()) as game, clients_of(game) as pool:
        ana = await pool.new("Ana")
        code = await ana.create(seats=2)
        ben = await pool.new("Ben")
        await ben.join(code)
        await ben.ready()
        await ana.start()
        mover = await next_mover([ana, ben])
        assert mover is not None
        hint = await mover.request({"type": "hint"}, "hint")
        reason = hint["reason"]
        assert reason["code"] in table
        assert set(reason["params"]) == table[reason["code"]]
        action = hint["action"]
        if action["type"] == "play" and "card" in reason["params"]:
            assert reason["params"]["card"] == action["card"]
