"""What only the Redis store promises: several processes, one hash slot per room, outages."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis
from redis.crc import key_slot

from protocol.errors import Conflict, StoreUnavailable
from server.store.redis_store import RedisStore
from tests.redis_helpers import UNIT, PrivateRedis, eventually, free_port

from .conftest import redis_store
from .test_contract import Inbox, ev

StoreFactory = Callable[[], RedisStore]


@pytest.fixture
async def processes(redis_url: str, redis_prefix: str) -> AsyncIterator[StoreFactory]:
    """Make stores sharing one Redis and prefix, as separate server processes would."""
    made: list[RedisStore] = []

    def make() -> RedisStore:
        made.append(redis_store(redis_url, redis_prefix))
        return made[-1]

    yield make
    for store in made:
        await store.close()


async def keys_of(url: str, prefix: str) -> list[bytes]:
    client = aioredis.Redis.from_url(url)
    try:
        return [key async for key in client.scan_iter(match=f"{prefix}:*")]
    finally:
        await client.aclose()


# --- layout --------------------------------------------------------------------------------


async def test_every_key_of_a_room_lies_in_one_hash_slot(
    processes: StoreFactory, redis_url: str, redis_prefix: str
) -> None:
    store = processes()
    await store.create_room("ABCD", ev(0))
    await store.append("ABCD", 1, [ev(1)])
    await store.lead("ABCD", "a", 600 * UNIT)
    await store.heartbeat("p1", {"c1": {"room": "ABCD"}}, 600 * UNIT)
    await store.create_room("WXYZ", ev(0))
    keys = await keys_of(redis_url, redis_prefix)
    room_keys = [k for k in keys if b"{room:ABCD}" in k]
    assert len(room_keys) == 4
    assert len({key_slot(k) for k in room_keys}) == 1
    assert key_slot(room_keys[0]) == key_slot(b"{room:ABCD}")


async def test_hands_judged_ahead_expire_and_share_their_match_s_hash_slot(
    processes: StoreFactory, redis_url: str, redis_prefix: str
) -> None:
    """A match left unfinished leaves its judged hands for a day at most."""
    store = processes()
    await store.save_match("ROOM03-1", {"log": []}, [])
    await store.save_review_hand("ROOM03-1", 0, {"0": []})
    keys = [k for k in await keys_of(redis_url, redis_prefix) if b"{match:ROOM03-1}" in k]
    assert len(keys) == 2 and len({key_slot(k) for k in keys}) == 1
    client = aioredis.Redis.from_url(redis_url)
    try:
        ttl = await client.ttl(next(k for k in keys if k.endswith(b":review-hands")))
    finally:
        await client.aclose()
    assert 0 < ttl <= 86_400


async def test_every_key_of_a_queue_lies_in_one_hash_slot(
    processes: StoreFactory, redis_url: str, redis_prefix: str
) -> None:
    store = processes()
    await store.queue_join(4, {"id": "t1", "at": 1})
    keys = await keys_of(redis_url, redis_prefix)
    assert len(keys) == 3
    assert {key_slot(k) for k in keys} == {key_slot(b"{queue:4}")}


async def test_a_room_channel_lies_in_the_hash_slot_of_its_room(
    processes: StoreFactory, redis_url: str, redis_prefix: str
) -> None:
    store = processes()
    store.set_handler(Inbox())
    await store.subscribe("room:ABCD")
    client = aioredis.Redis.from_url(redis_url)
    try:
        channels = await client.pubsub_channels(f"{redis_prefix}:*")
    finally:
        await client.aclose()
    name = f"{redis_prefix}:{{room:ABCD}}".encode()
    assert channels == [name]
    assert key_slot(name) == key_slot(f"{redis_prefix}:{{room:ABCD}}:events".encode())


async def test_scripts_run_on_a_server_that_forgot_them(private_redis: PrivateRedis) -> None:
    store = redis_store(private_redis.url, "kc-test")
    await store.create_room("ROOM", ev(0))
    await store.heartbeat("p1", {"c1": {"id": "c1", "room": "ROOM"}}, 600 * UNIT)
    client = aioredis.Redis.from_url(private_redis.url)
    try:
        # As after a restart (scripts are not persisted), or on a promoted replica.
        await client.script_flush()
        assert await store.append("ROOM", 1, [ev(1)]) == 2
        await client.script_flush()
        await store.heartbeat("p1", {"c1": {"id": "c1", "room": "ROOM"}}, 600 * UNIT)
        assert await store.presence("ROOM") == [{"id": "c1", "room": "ROOM"}]
        assert await store.lead("ROOM", "a", 600 * UNIT)
    finally:
        await client.aclose()
        await store.close()


async def test_room_codes_ignore_other_prefixes(
    processes: StoreFactory, redis_url: str, redis_prefix: str
) -> None:
    ours = processes()
    theirs = redis_store(redis_url, redis_prefix + "-other")
    try:
        await ours.create_room("MINE", ev(0))
        await theirs.create_room("THEIRS", ev(0))
        assert await ours.room_codes() == ["MINE"]
        assert await theirs.room_codes() == ["THEIRS"]
    finally:
        await theirs.delete_room("THEIRS")
        await theirs.close()


# --- several processes ------------------------------------------------------------------------


async def test_appends_from_several_processes_at_one_version_let_exactly_one_win(
    processes: StoreFactory,
) -> None:
    stores = [processes() for _ in range(5)]
    await stores[0].create_room("ROOM", ev(0))
    results = await asyncio.gather(
        *(s.append("ROOM", 1, [ev(n)]) for n, s in enumerate(stores * 4)),
        return_exceptions=True,
    )
    assert results.count(2) == 1
    assert sum(isinstance(r, Conflict) for r in results) == len(results) - 1
    assert len(await stores[3].read("ROOM")) == 2


async def test_a_message_published_by_one_process_reaches_every_subscribed_process(
    processes: StoreFactory,
) -> None:
    publisher, first, second, deaf = processes(), processes(), processes(), processes()
    inboxes = [Inbox(), Inbox(), Inbox()]
    for store, inbox in zip((first, second, deaf), inboxes, strict=True):
        store.set_handler(inbox)
    await first.subscribe("room:ABCD")
    await second.subscribe("room:ABCD")
    await deaf.subscribe("room:OTHER")
    await publisher.publish("room:ABCD", {"version": 7})
    assert await inboxes[0].next() == ("room:ABCD", {"version": 7})
    assert await inboxes[1].next() == ("room:ABCD", {"version": 7})
    await publisher.publish("room:OTHER", {"version": 1})
    assert await inboxes[2].next() == ("room:OTHER", {"version": 1})


async def test_stores_with_other_prefixes_do_not_hear_each_other(
    processes: StoreFactory, redis_url: str, redis_prefix: str
) -> None:
    ours = processes()
    theirs = redis_store(redis_url, redis_prefix + "-other")
    try:
        inbox = Inbox()
        ours.set_handler(inbox)
        await ours.subscribe("room:ABCD")
        await theirs.publish("room:ABCD", {"from": "theirs"})
        await ours.publish("room:ABCD", {"from": "ours"})
        assert await inbox.next() == ("room:ABCD", {"from": "ours"})
    finally:
        await theirs.close()


async def test_a_lease_is_exclusive_across_processes_and_passes_on_when_it_lapses(
    processes: StoreFactory,
) -> None:
    a, b = processes(), processes()
    # Held long enough that a busy machine cannot let it lapse before b asks...
    assert await a.lead("ROOM", "process-a", 600 * UNIT)
    assert not await b.lead("ROOM", "process-b", 3 * UNIT)
    # ...then renewed short, and not renewed again: it lapses and b takes it.
    assert await a.lead("ROOM", "process-a", 3 * UNIT)
    await asyncio.sleep(5 * UNIT)
    assert await b.lead("ROOM", "process-b", 600 * UNIT)
    assert not await a.lead("ROOM", "process-a", 600 * UNIT)


async def test_presence_of_a_crashed_process_expires_while_the_living_renew(
    processes: StoreFactory,
) -> None:
    crashed, alive, observer = processes(), processes(), processes()
    await crashed.heartbeat("p-crashed", {"c1": {"id": "c1", "room": "ABCD"}}, 4 * UNIT)
    await alive.heartbeat("p-alive", {"c2": {"id": "c2", "room": "ABCD"}}, 4 * UNIT)
    assert len(await observer.presence("ABCD")) == 2
    await crashed.close()
    for _ in range(4):
        await asyncio.sleep(2 * UNIT)
        await alive.heartbeat("p-alive", {"c2": {"id": "c2", "room": "ABCD"}}, 4 * UNIT)
    assert await observer.presence("ABCD") == [{"id": "c2", "room": "ABCD"}]


async def test_undecodable_announcements_are_dropped_and_later_ones_delivered(
    processes: StoreFactory, redis_url: str, redis_prefix: str
) -> None:
    store = processes()
    inbox = Inbox()
    store.set_handler(inbox)
    await store.subscribe("a")
    client = aioredis.Redis.from_url(redis_url)
    try:
        await client.publish(f"{redis_prefix}:{{a}}", b"{not json")
    finally:
        await client.aclose()
    await store.publish("a", {"n": 1})
    assert await inbox.next() == ("a", {"n": 1})


# --- an unreachable Redis -----------------------------------------------------------------------


def every_operation(store: RedisStore) -> list[Callable[[], Awaitable[Any]]]:
    return [
        lambda: store.create_room("ROOM", ev(0)),
        lambda: store.append("ROOM", 1, [ev(1)]),
        lambda: store.read("ROOM"),
        lambda: store.delete_room("ROOM"),
        store.room_codes,
        lambda: store.subscribe("room:ROOM"),
        lambda: store.publish("room:ROOM", {"n": 1}),
        lambda: store.set_listing("ROOM", {"code": "ROOM"}),
        store.listings,
        lambda: store.heartbeat("p", {"c": {"room": "ROOM"}}, 1.0),
        lambda: store.presence("ROOM"),
        lambda: store.queue_join(2, {"id": "t", "at": 0}),
        lambda: store.queue_leave(2, "t"),
        lambda: store.queue_take(2, 1, 2),
        lambda: store.queue_length(2),
        lambda: store.lead("ROOM", "a", 1.0),
        lambda: store.resign("ROOM", "a"),
    ]


async def test_without_redis_every_operation_raises_store_unavailable() -> None:
    store = redis_store(f"redis://127.0.0.1:{free_port()}/0", "kc-test-nowhere")
    try:
        assert await store.ping() is False
        for operation in every_operation(store):
            with pytest.raises(StoreUnavailable):
                await operation()
        await store.unsubscribe("room:ROOM")
    finally:
        await store.close()


async def test_without_redis_an_append_says_it_was_never_sent() -> None:
    """Nothing listens: the append is refused before any byte went out, so the room need
    not wait to learn whether it was stored (``never_sent``, still ``store_unavailable``)."""
    store = redis_store(f"redis://127.0.0.1:{free_port()}/0", "kc-test-nowhere")
    try:
        with pytest.raises(StoreUnavailable) as raised:
            await store.append("ROOM", 1, [ev(1)])
        assert raised.value.never_sent and raised.value.code == "store_unavailable"
    finally:
        await store.close()


async def test_an_append_whose_answer_is_lost_may_have_been_stored(
    private_redis: PrivateRedis,
) -> None:
    """Redis is killed while the append runs: the command was sent, so the failure is not
    ``never_sent`` (the room must look before answering)."""
    store = redis_store(private_redis.url, "kc-test")
    try:
        assert await store.create_room("ROOM", ev(0))
        # A script that outlives the kill: its busy loop holds Redis until it dies, so the
        # append is sent and waits for its answer.
        other = aioredis.from_url(private_redis.url)
        busy = "local t = redis.call('TIME') while true do end"
        slow = asyncio.ensure_future(other.eval(busy, 0))
        await asyncio.sleep(0.2)
        appending = asyncio.create_task(store.append("ROOM", 1, [ev(1)]))
        await asyncio.sleep(0.2)
        private_redis.kill()
        with pytest.raises(StoreUnavailable) as raised:
            await appending
        assert not raised.value.never_sent
        await asyncio.gather(slow, return_exceptions=True)
        await other.aclose()
    finally:
        await store.close()


async def test_connect_refuses_when_redis_is_unreachable() -> None:
    with pytest.raises(StoreUnavailable):
        await RedisStore.connect(f"redis://127.0.0.1:{free_port()}/0", timeout=10 * UNIT)


async def test_connect_returns_a_listening_store(redis_url: str, redis_prefix: str) -> None:
    store = await RedisStore.connect(redis_url, redis_prefix)
    try:
        await eventually(lambda: _true(store.listening))
        assert await store.ping()
    finally:
        await store.close()


async def _true(value: bool) -> bool:
    return value


async def test_the_store_recovers_by_itself_after_redis_is_killed_and_restarted(
    private_redis: PrivateRedis,
) -> None:
    store = redis_store(private_redis.url, "kc-test")
    publisher = redis_store(private_redis.url, "kc-test")
    try:
        inbox = Inbox()
        store.set_handler(inbox)
        await store.subscribe("before")
        await publisher.publish("before", {"n": 0})
        assert await inbox.next() == ("before", {"n": 0})
        await store.create_room("ROOM", ev(0))

        private_redis.kill()

        assert await store.ping() is False
        await eventually(lambda: _true(not store.listening))
        with pytest.raises(StoreUnavailable):
            await store.append("ROOM", 1, [ev(1)])
        with pytest.raises(StoreUnavailable):
            await store.publish("before", {"n": 1})
        # Subscribing during the outage fails now but is remembered.
        with pytest.raises(StoreUnavailable):
            await store.subscribe("during")

        await asyncio.to_thread(private_redis.start)

        await eventually(store.ping)
        await eventually(lambda: _true(store.listening))
        # Nothing below calls subscribe again: the store resubscribed by itself.
        for channel in ("before", "during"):
            await _deliver_eventually(publisher, inbox, channel)
        # The restarted Redis had no persistence, so the room is gone; the store works.
        assert await store.room_codes() == []
        assert await store.create_room("ROOM", ev(0))
        assert await store.append("ROOM", 1, [ev(1)]) == 2
    finally:
        await store.close()
        await publisher.close()


async def test_a_dropped_announcement_connection_is_replaced_while_redis_stays_up(
    private_redis: PrivateRedis,
) -> None:
    store = redis_store(private_redis.url, "kc-test")
    try:
        inbox = Inbox()
        store.set_handler(inbox)
        await store.subscribe("a")
        admin = aioredis.Redis.from_url(private_redis.url)
        try:
            assert await admin.client_kill_filter(_type="pubsub") == 1
        finally:
            await admin.aclose()
        await _deliver_eventually(store, inbox, "a")
    finally:
        await store.close()


async def test_a_stalled_announcement_connection_is_noticed_by_its_health_check(
    private_redis: PrivateRedis, caplog: pytest.LogCaptureFixture
) -> None:
    store = RedisStore(
        private_redis.url, "kc-test", timeout=20 * UNIT, health_interval=UNIT, backoff_max=UNIT
    )
    try:
        inbox = Inbox()
        store.set_handler(inbox)
        await store.subscribe("a")
        admin = aioredis.Redis.from_url(private_redis.url)
        try:
            # Redis accepts bytes but answers nothing for a while: a silent connection.
            await admin.client_pause(round(6 * UNIT * 1000), all=True)
        finally:
            await admin.aclose()
        await eventually(lambda: _true("health-check ping" in caplog.text))
        await _deliver_eventually(store, inbox, "a")
    finally:
        await store.close()


async def _deliver_eventually(publisher: RedisStore, inbox: Inbox, channel: str) -> None:
    """Publish on ``channel`` until the subscriber hears it (resubscription is asynchronous).

    Late copies of earlier probes may still arrive; only a probe of ``channel`` counts.
    """

    async def heard() -> bool:
        await publisher.publish(channel, {"probe": channel})
        try:
            while True:
                got = await inbox.next(within=2 * UNIT)
                if got == (channel, {"probe": channel}):
                    return True
        except TimeoutError:
            return False

    await eventually(heard)


async def test_rooms_survive_a_kill_of_redis_with_an_append_only_file(
    tmp_path: Path,
) -> None:
    server = PrivateRedis(tmp_path, appendonly=True)
    server.start()
    store = redis_store(server.url, "kc-test")
    try:
        await store.create_room("ROOM", ev(0))
        await store.append("ROOM", 1, [ev(1), ev(2)])
        server.kill()
        await asyncio.to_thread(server.start)
        await eventually(store.ping)
        assert await store.read("ROOM") == [ev(0), ev(1), ev(2)]
        assert await store.append("ROOM", 3, [ev(3)]) == 4
    finally:
        await store.close()
        server.stop()
