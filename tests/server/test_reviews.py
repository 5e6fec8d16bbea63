"""The coach's review over HTTP: started when a match with people finishes, computed in the
bot workers, kept with the record and the same as the engine's own (both stores).

On Redis the game server computes no review: a review worker does (the review tier,
tests/server/test_review_tier.py with worker processes); here one runs in the test's own
process (:func:`tier`). What is about the server's own review workers runs on the memory
store alone."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from protocol.bots.review import review, summarize
from protocol.engine import DECK, NEXT_HAND
from server import reviews as reviews_module
from server.app import GameServer
from server.review_worker import ReviewWorker
from server.store.redis_store import RedisStore

from .conftest import ClientFactory
from .test_daily import get
from .test_match_flow import play_until_finished

#: The tests about the server's own review workers: with the memory store only (on Redis a
#: game server has none, test_review_tier.py).
in_process = pytest.mark.parametrize("server", ["memory"], indirect=True)


@pytest.fixture
async def tier(server: GameServer) -> AsyncIterator[None]:
    """A review worker in this process (its jobs computed in a thread) while the server is
    on Redis; nothing with the memory store."""
    store = server.reviews.jobs
    if not isinstance(store, RedisStore):
        yield
        return
    stop = asyncio.Event()
    with ThreadPoolExecutor(1) as executor:
        worker = ReviewWorker(server.settings, store, executor)
        running = asyncio.ensure_future(worker.run(stop))
        try:
            yield
        finally:
            stop.set()
            await running


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


async def _finish_a_match(client: ClientFactory) -> str:
    """Ana and Ben (seats 0 and 1) and a random bot play a short match to its end: its id."""
    a = await client("Ana")
    # One shuffled deal every run: the people's random play then always has turns to judge
    # (a deal drawn at random was, now and then, over before anyone blundered).
    deck = random.Random(11).sample(list(DECK), len(DECK))
    code = await a.create(seats=3, target=8, bots=[None, None, "random"], decks=[deck], dealer=2)
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
    return str(match_id)


async def test_a_finished_match_is_reviewed_for_its_people_and_kept(
    server: GameServer, client: ClientFactory, tier: None
) -> None:
    match_id = await _finish_a_match(client)

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


@in_process
async def test_each_hand_is_sent_to_the_coach_as_it_ends(
    server: GameServer, client: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the match goes on, each ended hand goes to the review workers with the record
    so far; the review at the end is still the engine's review of the whole record."""
    pool = server.bots.pool
    calls: list[tuple[int, int]] = []
    judge = pool.review_hand

    async def spy(
        record: dict[str, Any], hand: int, seats: list[int], *, asked: bool = False
    ) -> dict[int, list[dict[str, Any]]]:
        calls.append((hand, len(record["log"])))
        return await judge(record, hand, seats, asked=asked)

    monkeypatch.setattr(pool, "review_hand", spy)
    for _ in range(5):  # a match of one hand (a king or three in a hand) shows nothing here
        match_id = await _finish_a_match(client)
        got = await _review(server, match_id)
        status, record = await asyncio.to_thread(get, server, f"/api/matches/{match_id}")
        assert status == 200
        hands = 1 + record["log"].count(NEXT_HAND)
        if hands > 1:
            break
    assert hands > 1, "five matches of one hand each"
    for hand in range(hands - 1):
        # Judged from the record as it stood when the hand ended: the next hand unplayed.
        ends = [n for n, entry in enumerate(record["log"]) if entry == NEXT_HAND][hand]
        assert (hand, ends) in calls, (hand, calls)
    assert json.dumps(got, sort_keys=True) == json.dumps(review(record, [0, 1]), sort_keys=True)


async def test_a_review_of_a_match_nobody_kept_is_not_found(server: GameServer) -> None:
    status, payload = await asyncio.to_thread(get, server, "/api/matches/NOPE-1/review")
    assert status == 404 and payload["error"] == "no such match"


@in_process
async def test_asking_for_many_reviews_at_once_starts_a_bounded_number(
    server: GameServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[str] = []
    gate = asyncio.Event()

    async def slow(record: dict[str, Any], *_: object) -> None:
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


@in_process
async def test_a_review_asked_for_is_ready_though_its_idle_worker_gets_no_cpu(
    server: GameServer, client: ClientFactory
) -> None:
    # The worker for reviews nobody waits for is frozen: what an idle-class process gets
    # beside busy ones. Asked for, the review (and the hand it was on) soon moves to the other.
    pool = server.bots.pool._review
    assert pool is not None
    await pool.ready()
    frozen = list(pool.executor._processes)  # type: ignore[union-attr]
    assert frozen
    for pid in frozen:
        os.kill(pid, signal.SIGSTOP)
    try:
        match_id = await _finish_a_match(client)
        got = await _review(server, match_id)
    finally:
        for pid in frozen:
            os.kill(pid, signal.SIGCONT)
    status, record = await asyncio.to_thread(get, server, f"/api/matches/{match_id}")
    assert status == 200
    assert json.dumps(got, sort_keys=True) == json.dumps(review(record, [0, 1]), sort_keys=True)


class _Pool:
    """The bot pool's review seam: a worker for reviews nobody waits for that never answers
    (no CPU to spare), and one for reviews somebody waits for that answers at once."""

    reviews_asked_apart = True

    def __init__(self, idle_answers: bool = False) -> None:
        self.calls: list[tuple[str, int | str, bool]] = []
        self.idle_answers = idle_answers

    async def review_hand(
        self, record: dict[str, Any], hand: int, seats: list[int], *, asked: bool = False
    ) -> dict[int, list[dict[str, Any]]]:
        self.calls.append((record["id"], hand, asked))
        if not asked and not self.idle_answers:
            await asyncio.Event().wait()
        return {seat: [] for seat in seats}

    async def review_summary(
        self, record: dict[str, Any], turns: dict[int, list[dict[str, Any]]], *, asked: bool = False
    ) -> dict[str, Any]:
        self.calls.append((record["id"], "summary", asked))
        return summarize(record, turns)


async def test_a_review_somebody_asks_for_goes_ahead_of_those_nobody_did(
    server: GameServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reviews_module, "PROMOTE_AFTER", 0.05)
    pool = _Pool()
    reviews = reviews_module.Reviews(server.store, pool, server.tasks)  # type: ignore[arg-type]
    person = {"name": "Ana", "kind": "human", "level": None}
    options = {"seats": 2}
    first = {"id": "Q-1", "seats": [person, None], "log": [NEXT_HAND], "options": options}
    second = {"id": "Q-2", "seats": [person, None], "log": [], "options": options}
    reviews.start(first)
    for _ in range(500):  # it looks for hands judged ahead in the store first
        if pool.calls:
            break
        await asyncio.sleep(0.01)
    # Started once the first holds the one idle slot: on a busy machine the second's store
    # lookup could otherwise come back first and take it.
    reviews.start(second)
    await asyncio.sleep(0.05)
    # One review at a time nobody waits for: the first, stuck on its first hand.
    assert pool.calls == [("Q-1", 0, False)]
    assert await reviews.get(second) is None  # pending: now somebody waits for it
    for _ in range(50):
        if await server.store.get_review("Q-2") is not None:
            break
        await asyncio.sleep(0.01)
    assert await server.store.get_review("Q-2") is not None  # not behind the first
    assert await reviews.get(first) is None
    for _ in range(50):
        if await server.store.get_review("Q-1") is not None:
            break
        await asyncio.sleep(0.01)
    done = await server.store.get_review("Q-1")
    assert done is not None and done["seats"][0]["turns"] == 0
    # The hand it was on went to the other worker too; the rest went there only.
    assert pool.calls == [
        ("Q-1", 0, False),
        ("Q-2", 0, True),
        ("Q-2", "summary", True),
        ("Q-1", 0, True),
        ("Q-1", 1, True),
        ("Q-1", "summary", True),
    ]


async def test_a_review_asked_for_stays_idle_class_where_a_cpu_has_time_to_spare(
    server: GameServer,
) -> None:
    pool = _Pool(idle_answers=True)
    reviews = reviews_module.Reviews(server.store, pool, server.tasks)  # type: ignore[arg-type]
    person = {"name": "Ana", "kind": "human", "level": None}
    record = {"id": "Q-3", "seats": [person, None], "log": [NEXT_HAND], "options": {"seats": 2}}
    assert await reviews.get(record) is None  # asked for at once, as the clients do
    for _ in range(100):
        if await server.store.get_review("Q-3") is not None:
            break
        await asyncio.sleep(0.01)
    assert await server.store.get_review("Q-3") is not None
    # Nothing computed twice.
    assert pool.calls == [("Q-3", 0, False), ("Q-3", 1, False), ("Q-3", "summary", False)]


async def test_each_hand_is_reviewed_as_it_ends_and_the_match_only_adds_the_last(
    server: GameServer,
) -> None:
    """A hand is judged while the next is played, and kept in the store; at the end of the
    match only the hand not judged yet is, then the turns shown are made ready."""
    pool = _Pool(idle_answers=True)
    reviews = reviews_module.Reviews(server.store, pool, server.tasks)  # type: ignore[arg-type]
    person = {"name": "Ana", "kind": "human", "level": None}
    so_far = {"id": "Q-4", "seats": [person, None], "log": ["end"], "options": {"seats": 2}}
    reviews.hand_ended(so_far)
    for _ in range(100):
        if await server.store.get_review_hands("Q-4"):
            break
        await asyncio.sleep(0.01)
    assert list(await server.store.get_review_hands("Q-4")) == [0]
    finished = {**so_far, "log": ["end", NEXT_HAND, "end"]}
    assert await reviews.get(finished) is None
    for _ in range(100):
        if await server.store.get_review("Q-4") is not None:
            break
        await asyncio.sleep(0.01)
    assert await server.store.get_review("Q-4") is not None
    assert pool.calls == [("Q-4", 0, False), ("Q-4", 1, False), ("Q-4", "summary", False)]
    assert await server.store.get_review_hands("Q-4") == {}  # dropped once the review is kept


async def test_no_hand_is_reviewed_ahead_for_a_table_of_bots(server: GameServer) -> None:
    pool = _Pool(idle_answers=True)
    reviews = reviews_module.Reviews(server.store, pool, server.tasks)  # type: ignore[arg-type]
    bot = {"name": "Bot", "kind": "bot", "level": "easy"}
    reviews.hand_ended({"id": "Q-5", "seats": [bot, bot], "log": [], "options": {"seats": 2}})
    await asyncio.sleep(0.05)
    assert pool.calls == []


@pytest.mark.settings(reviews=False)
async def test_a_server_with_reviews_off_reviews_nothing_and_says_so(
    server: GameServer, client: ClientFactory
) -> None:
    match_id = await _finish_a_match(client)
    status, payload = await asyncio.to_thread(get, server, f"/api/matches/{match_id}/review")
    assert status == 503 and payload == {"error": "reviews_off"}
    assert await server.store.get_review_hands(match_id) == {}
    assert await server.store.get_review(match_id) is None


@in_process
async def test_a_hand_kept_ahead_from_another_log_is_reviewed_again(server: GameServer) -> None:
    """A store that came back without its last writes, and the match went on differently:
    the hand judged ahead was made from a log the finished record does not hold, so the
    match's review judges that hand again rather than show turns nobody played."""
    pool = _Pool(idle_answers=True)
    reviews = reviews_module.Reviews(server.store, pool, server.tasks)  # type: ignore[arg-type]
    person = {"name": "Ana", "kind": "human", "level": None}
    so_far = {"id": "Q-6", "seats": [person, None], "log": ["end"], "options": {"seats": 2}}
    reviews.hand_ended(so_far)
    for _ in range(100):
        if await server.store.get_review_hands("Q-6"):
            break
        await asyncio.sleep(0.01)
    assert list(await server.store.get_review_hands("Q-6")) == [0]
    finished = {**so_far, "log": ["draw", "end", NEXT_HAND, "end"]}
    assert await reviews.get(finished) is None
    for _ in range(100):
        if await server.store.get_review("Q-6") is not None:
            break
        await asyncio.sleep(0.01)
    assert pool.calls == [
        ("Q-6", 0, False),
        ("Q-6", 0, False),
        ("Q-6", 1, False),
        ("Q-6", "summary", False),
    ]
