"""The review tier: a game server on Redis queues reviews, ``kings-corner worker`` processes
compute them (a real Redis, real worker processes, started here and ended by their pid).

- a finished match's review, computed by a worker process, is the engine's own review, and
  the game server spent no review CPU on it (its bot pool's review methods, our own seam,
  are never called);
- a worker killed (SIGKILL) while it holds a job leaves the job to another worker, which
  takes it over once the lease has run out: the review arrives, nothing is left behind;
- the stream's own rules (taken over only after the lease, held while computed, deleted
  once done, bounded, one job per match asked for) on the store's part alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from protocol.bots.review import review
from protocol.engine import NEXT_HAND
from server.app import GameServer, start_server
from server.store.redis.review_jobs import GROUP
from server.store.redis_store import RedisStore
from tests.redis_helpers import UNIT, delete_prefix, redis_prefix, redis_url

from .conftest import ClientFactory, make_settings
from .test_daily import get
from .test_reviews import _finish_a_match, _review

__all__ = ["redis_prefix", "redis_url"]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
async def server(redis_url: str, redis_prefix: str) -> AsyncIterator[GameServer]:
    """A game server on the shared Redis, under this test's prefix (no worker of its own)."""
    game = await start_server(make_settings(redis_url=redis_url, redis_prefix=redis_prefix))
    try:
        yield game
    finally:
        await game.shutdown()


class Worker:
    """``kings-corner worker`` in a subprocess, in a session of its own; ended by its pid
    (and whatever is left of its session, by that session's id)."""

    def __init__(self, url: str, prefix: str, log: Path, **settings: str) -> None:
        self.name = f"w{uuid.uuid4().hex[:6]}"
        self.log = log
        self.env = {
            **os.environ,
            "REDIS_URL": url,
            "KC_REDIS_PREFIX": prefix,
            "KC_PROCESS_ID": self.name,
            "KC_LOG_FORMAT": "text",
            **settings,
        }
        self.proc: subprocess.Popen[bytes] | None = None

    async def start(self) -> Worker:
        with self.log.open("ab") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "kings_corner", "worker"],
                env=self.env,
                cwd=ROOT,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=err,
                start_new_session=True,
            )
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(self.proc.stdout.readline), 60)
        assert line.startswith(b"kings-corner worker:"), (line, self.log.read_text())
        return self

    def kill(self) -> None:
        """SIGKILL the worker (its own pid only)."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it lingers; then anything left of its session."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


@pytest.fixture
def workers() -> Iterator[list[Worker]]:
    """The worker processes a test starts, ended afterwards."""
    started: list[Worker] = []
    yield started
    for worker in started:
        worker.stop()


def jobs_of(server: GameServer) -> RedisStore:
    store = server.reviews.jobs
    assert isinstance(store, RedisStore), "a server on Redis queues its reviews"
    return store


async def drained(server: GameServer, within: float = 30.0) -> None:
    """Wait until the stream holds no job (every one done and deleted)."""
    deadline = time.monotonic() + within
    while await jobs_of(server).review_jobs_waiting():
        assert time.monotonic() < deadline, "review jobs are left in the stream"
        await asyncio.sleep(0.1)


async def test_a_worker_process_computes_the_review_and_the_game_server_none(
    server: GameServer,
    client: ClientFactory,
    workers: list[Worker],
    redis_url: str,
    redis_prefix: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pool = server.bots.pool
    computed: list[str] = []

    async def no_review_here(*args: Any, **kwargs: Any) -> Any:
        computed.append("review")
        raise AssertionError("a game server on Redis computes no review")

    monkeypatch.setattr(pool, "review_hand", no_review_here)
    monkeypatch.setattr(pool, "review_summary", no_review_here)
    store = jobs_of(server)
    added: list[tuple[str, int | None, str | None]] = []
    add = store.add_review_job

    async def spy(job: dict[str, Any], **kwargs: Any) -> bool:
        done = await add(job, **kwargs)
        if done:  # asked for again meanwhile: not added twice
            added.append((job["kind"], job.get("hand"), kwargs.get("once_for")))
        return done

    monkeypatch.setattr(store, "add_review_job", spy)
    workers.append(await Worker(redis_url, redis_prefix, tmp_path / "worker.log").start())

    match_id = await _finish_a_match(client)
    got = await _review(server, match_id)

    status, record = await asyncio.to_thread(get, server, f"/api/matches/{match_id}")
    assert status == 200
    assert json.dumps(got, sort_keys=True) == json.dumps(review(record, [0, 1]), sort_keys=True)
    assert computed == []
    # Each hand that ended went to the tier as it ended, then the match, once.
    hands = 1 + record["log"].count(NEXT_HAND)
    assert added == [*(("hand", n, None) for n in range(hands - 1)), ("match", None, match_id)]
    await drained(server)
    assert await server.store.get_review_hands(match_id) == {}  # dropped with the review kept


async def test_a_worker_killed_mid_review_leaves_its_job_to_another(
    server: GameServer,
    client: ClientFactory,
    workers: list[Worker],
    redis_url: str,
    redis_prefix: str,
    tmp_path: Path,
) -> None:
    # The first worker takes a job and sits on it (renewing its hold) until it is killed.
    slow = Worker(
        redis_url,
        redis_prefix,
        tmp_path / "slow.log",
        KC_REVIEW_LEASE="1",
        KC_TEST_REVIEW_HOLD="3600",
    )
    workers.append(await slow.start())
    jobs = f"{redis_prefix}:{{reviews}}:jobs"
    finishing = asyncio.ensure_future(_finish_a_match(client))
    link = aioredis.Redis.from_url(redis_url)
    try:
        held: list[dict[str, Any]] = []
        deadline = time.monotonic() + 60
        while not held:
            assert time.monotonic() < deadline, "the slow worker never took a job"
            with contextlib.suppress(Exception):  # no group yet
                held = await link.xpending_range(jobs, GROUP, "-", "+", 10)
            await asyncio.sleep(0.05)
        assert {entry["consumer"].decode() for entry in held} == {f"{slow.name}-0"}
        slow.kill()  # mid-review: its job stays pending, in its name
        taken = held[0]["message_id"]
        match_id = await finishing
        fresh = Worker(redis_url, redis_prefix, tmp_path / "fresh.log", KC_REVIEW_LEASE="1")
        workers.append(await fresh.start())
        got = await _review(server, match_id)
        status, record = await asyncio.to_thread(get, server, f"/api/matches/{match_id}")
        assert status == 200
        assert json.dumps(got, sort_keys=True) == json.dumps(review(record, [0, 1]), sort_keys=True)
        await drained(server)
        assert await link.xpending_range(jobs, GROUP, "-", "+", 10) == []
        log = fresh.log.read_text()
        assert f"review job {taken.decode()} taken over (delivery 2)" in log, log[-3000:]
    finally:
        finishing.cancel()
        await link.aclose()


# --- the stream alone ---------------------------------------------------------------------


@pytest.fixture
async def jobs(redis_url: str, redis_prefix: str) -> AsyncIterator[RedisStore]:
    store = RedisStore(redis_url, redis_prefix)
    await store.review_jobs_group()
    try:
        yield store
    finally:
        await store.close()
        await delete_prefix(redis_url, redis_prefix)


def _job(match: str, hand: int = 0) -> dict[str, Any]:
    return {"kind": "hand", "hand": hand, "record": {"id": match}}


async def test_a_job_is_taken_over_only_once_its_lease_ran_out_without_renewal(
    jobs: RedisStore,
) -> None:
    await jobs.add_review_job(_job("M-1"))
    [(ident, job, times)] = await jobs.read_review_jobs("a-0", 10, 10)
    assert job == _job("M-1") and times == 1
    assert await jobs.read_review_jobs("b-0", 10, 10) == []  # read once, by one consumer
    lease_ms = int(4 * UNIT * 1000)
    assert await jobs.claim_review_jobs("b-0", lease_ms, 10) == []  # a's lease runs
    await asyncio.sleep(3 * UNIT)
    await jobs.hold_review_job("a-0", ident)  # a renews it
    await asyncio.sleep(3 * UNIT)
    assert await jobs.claim_review_jobs("b-0", lease_ms, 10) == []
    await asyncio.sleep(5 * UNIT)  # a is silent past its lease: b takes the job over
    assert await jobs.claim_review_jobs("b-0", lease_ms, 10) == [(ident, job, 2)]
    await jobs.finish_review_job(ident)
    assert await jobs.review_jobs_waiting() == 0
    assert await jobs.claim_review_jobs("c-0", 0, 10) == []


async def test_a_match_review_asked_for_again_and_again_is_one_job(
    jobs: RedisStore, server: GameServer
) -> None:
    """A match kept before reviews were (or whose job was lost): asking for its review adds
    one job, however often and through whichever process it is asked."""
    person = {"name": "Ana", "kind": "human", "level": None}
    record = {"id": "OLD-1", "seats": [person, None], "log": [], "options": {"seats": 2}}
    assert jobs.prefix == server.settings.redis_prefix
    for _ in range(5):
        assert await server.reviews.get(record) is None  # pending
        await asyncio.sleep(0.02)
    other = RedisStore(server.settings.redis_url or "", server.settings.redis_prefix)
    try:
        assert not await other.add_review_job({"kind": "match"}, once_for="OLD-1")
    finally:
        await other.close()
    found = await jobs.read_review_jobs("a-0", 10, 10)
    assert [job for _, job, _ in found] == [{"kind": "match", "record": record}]


async def test_the_stream_is_bounded(jobs: RedisStore) -> None:
    for n in range(3000):
        await jobs.add_review_job(_job(f"M-{n}"), backlog=500)
    # MAXLEN ~ trims whole nodes of the stream: about the bound, never all of it.
    assert 500 <= await jobs.review_jobs_waiting() < 1000
