"""The coach's review over HTTP: started when a match with people finishes, computed in the
bot workers, kept with the record and the same as the engine's own (both stores)."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest

from protocol.bots.review import review
from server import reviews as reviews_module
from server.app import GameServer

from .conftest import ClientFactory
from .test_daily import get
from .test_match_flow import play_until_finished


async def _review(server: GameServer, match_id: str) -> dict[str, Any]:
    """The review once ready (asked until it is: the first answers may say pending).

    Patient: the review runs in a niced worker, which a loaded machine (the suite's own
    workers) serves last; how fast it is, is the review benchmark's business."""
    for _ in range(1800):
        status, payload = await asyncio.to_thread(get, server, f"/api/matches/{match_id}/review")
        if status == 200:
            return payload
        assert status == 202 and payload["status"] == "pending", (status, payload)
        await asyncio.sleep(0.1)
    raise AssertionError("the review never came")


async def test_a_finished_match_is_reviewed_for_its_people_and_kept(
    server: GameServer, client: ClientFactory
) -> None:
    a = await client("Ana")
    code = await a.create(seats=3, target=8, bots=[None, None, "random"])
    b = await client("Ben")
    await b.join(code)
    await b.ready()
    await a.start()
    await play_until_finished([a, b], random.Random(3))
    await a.until(lambda c: c.game is not None and c.game["phase"] == "finished")
    match_id = None
    for _ in range(200):  # history is written just after the last move
        reply = await a.request({"type": "my_matches"}, "matches")
        if reply["matches"]:
            match_id = reply["matches"][0]["id"]  # type: ignore[index]
            break
        await asyncio.sleep(0.05)
    assert match_id is not None

    got = await _review(server, match_id)

    status, record = await asyncio.to_thread(get, server, f"/api/matches/{match_id}")
    assert status == 200
    # The engine's review of the kept record, with the same seats: the server serves it.
    assert json.dumps(got, sort_keys=True) == json.dumps(review(record, [0, 1]), sort_keys=True)
    people, bot = got["seats"][:2], got["seats"][2]
    assert bot is None
    for seat, judged in enumerate(people):
        assert judged["seat"] == seat and judged["turns"] > 0
        assert len(judged["costliest"]) <= 3
    # Random play blunders: somebody has a costly turn to read.
    assert any(judged["costliest"] for judged in people)
    again = await _review(server, match_id)
    assert again == got
    assert await server.store.get_review(match_id) == got


async def test_a_review_of_a_match_nobody_kept_is_not_found(server: GameServer) -> None:
    status, payload = await asyncio.to_thread(get, server, "/api/matches/NOPE-1/review")
    assert status == 404 and payload["error"] == "no such match"


async def test_asking_for_many_reviews_at_once_starts_a_bounded_number(
    server: GameServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[str] = []
    gate = asyncio.Event()

    async def slow(record: dict[str, Any]) -> None:
        started.append(record["id"])
        await gate.wait()

    reviews = server.reviews
    monkeypatch.setattr(reviews, "_review", slow)
    person = {"name": "Ana", "kind": "human", "level": None}
    for n in range(reviews_module.MAX_STARTED + 20):
        record = {"id": f"OLD-{n}", "seats": [person, None], "log": [], "options": {}}
        assert await reviews.get(record) is None  # pending
    await asyncio.sleep(0)
    assert len(started) == reviews_module.MAX_STARTED
    gate.set()
