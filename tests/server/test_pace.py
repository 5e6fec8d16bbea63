"""The bots' pace, a room option: ``normal`` waits the server's delays, ``fast`` a quarter of
them; the room's document shows it, a ``configure`` without it keeps it, and a room at the
normal pace stores its options as before the option existed."""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Awaitable
from typing import Any

import pytest

from clients.net import GameClient
from server import room_driver
from server.app import GameServer

from .conftest import ClientFactory, room_logs
from .test_match_flow import play_until_finished


def options(c: GameClient) -> dict[str, Any]:
    assert c.doc is not None
    found: dict[str, Any] = c.doc["room"]["options"]
    return found


async def test_the_pace_is_shown_kept_and_changed(
    server: GameServer, client: ClientFactory
) -> None:
    ana = await client("Ana")
    normal = await ana.create(seats=2, bots=[None, "random"])
    assert options(ana)["pace"] == "normal"
    await ana.send({"type": "leave"})
    await ana.wait_for(lambda f: f["type"] == "left")
    fast = await ana.create(seats=2, bots=[None, "random"], pace="fast")
    assert options(ana)["pace"] == "fast"

    # A configure that does not name the pace keeps it; one that does changes it.
    await ana.request({"type": "configure", "options": {"seats": 2, "target": 30}}, "patch")
    await ana.until(lambda c: options(c)["target"] == 30)
    assert options(ana)["pace"] == "fast"
    change = {"seats": 2, "target": 30, "pace": "normal"}
    await ana.request({"type": "configure", "options": change}, "patch")
    await ana.until(lambda c: options(c)["pace"] == "normal")

    # The options are stored as releases before the pace read them; a fast pace beside them
    # (those releases ignore an event's fields they do not know), the normal one not at all.
    logs: dict[str, list[dict[str, Any]]] = await room_logs(server)
    assert "pace" not in logs[normal][0] and "pace" not in logs[normal][0]["options"]
    assert logs[fast][0]["pace"] == "fast" and "pace" not in logs[fast][0]["options"]
    configured = [e for e in logs[fast] if e["e"] == "configure"]
    assert [e.get("pace") for e in configured] == ["fast", None]
    assert all("pace" not in e["options"] for e in configured)


@pytest.mark.settings(bot_delay=0.04)
async def test_fast_bots_wait_a_quarter_of_the_delay(
    server: GameServer, client: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    waits: list[float] = []
    sleep = asyncio.sleep

    def noted(delay: float, *args: Any) -> Awaitable[Any]:
        waits.append(delay)
        return sleep(delay, *args)

    monkeypatch.setattr(asyncio, "sleep", noted)  # the rooms' waits: what they are asked
    ana = await client("Ana")
    await ana.create(seats=2, target=1, bots=[None, "random"], pace="fast")
    await ana.start()
    await play_until_finished([ana], random.Random(3))
    quarter = [w for w in waits if math.isclose(w, 0.04 * room_driver.PACE["fast"])]
    assert quarter, waits  # the bot played, each time after a quarter of the delay
    assert not [w for w in waits if math.isclose(w, 0.04)], waits
