"""The compose deployment's review tier: its ``worker`` service computes the coach's reviews
of the matches the servers finish (the servers, on Redis, compute none).

Runs with ``KC_TOPOLOGY_TESTS=1`` (see conftest.py), like the other deployment tests.
"""

from __future__ import annotations

import asyncio
import json
import random
import time

import pytest

from clients.net import GameClient
from protocol.bots.review import review
from server.config import Settings
from server.store.redis_store import RedisStore
from tests.server.test_match_flow import play_until_finished

from .topology import Deployment, http_get

pytestmark = pytest.mark.topology


async def _get(deployment: Deployment, path: str) -> tuple[int, dict[str, object]]:
    status, body = await http_get("127.0.0.1", deployment.nginx.port, path)
    return status, json.loads(body)


async def test_the_worker_service_reviews_the_matches_the_servers_finish(
    deployment: Deployment,
) -> None:
    url = deployment.nginx.url
    ana, ben = GameClient(url, "Ana"), GameClient(url, "Ben")
    try:
        await ana.connect()
        await ben.connect()
        code = await ana.create(seats=3, target=8, bots=[None, None, "random"])
        await ben.join(code)
        await ben.ready()
        await ana.start()
        await play_until_finished([ana, ben], random.Random(5))
        await ana.until(lambda c: c.game is not None and c.game["phase"] == "finished")
        match_id = None
        for _ in range(200):
            reply = await ana.request({"type": "my_matches"}, "matches")
            if reply["matches"]:
                match_id = str(reply["matches"][0]["id"])  # type: ignore[index]
                break
            await asyncio.sleep(0.05)
        assert match_id is not None
    finally:
        await ana.close()
        await ben.close()
    deadline = time.monotonic() + 120
    while True:
        status, got = await _get(deployment, f"/api/matches/{match_id}/review")
        if status == 200:
            break
        assert status == 202, (status, got)
        assert time.monotonic() < deadline, "the review never came"
        await asyncio.sleep(0.2)
    status, record = await _get(deployment, f"/api/matches/{match_id}")
    assert status == 200
    assert json.dumps(got, sort_keys=True) == json.dumps(review(record, [0, 1]), sort_keys=True)
    assert "review job done" in deployment.worker.log.read_text()
    prefix = deployment.servers[0].env.get("KC_REDIS_PREFIX", Settings().redis_prefix)
    store = RedisStore(deployment.redis.url, prefix)
    try:
        for _ in range(100):  # every job done and deleted: the stream is empty
            if not await store.review_jobs_waiting():
                break
            await asyncio.sleep(0.1)
        assert await store.review_jobs_waiting() == 0
    finally:
        await store.close()
