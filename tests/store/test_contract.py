"""The Store contract: every backend passes exactly these tests (see ``conftest.store``).

One class per role of :mod:`server.store.base`, each test typed by the role it holds the
store to; the roles of records, secrets, identities and standing are in ``test_history``
and ``test_standing``, and ``TestAcrossRoles`` keeps the promises one role makes about
another.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from protocol.errors import Conflict, RoomNotFound
from server.store import (
    AnnouncementStore,
    MatchmakingStore,
    Message,
    PresenceStore,
    RoomStore,
    Store,
)
from tests.redis_helpers import UNIT


def ev(n: int, **extra: Any) -> dict[str, Any]:
    return {"type": "test", "n": n, **extra}


class Inbox:
    """A handler that keeps every (channel, message) it receives."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[tuple[str, Message]] = asyncio.Queue()

    async def __call__(self, channel: str, message: Message) -> None:
        await self.queue.put((channel, message))

    async def next(self, within: float = 20 * UNIT) -> tuple[str, Message]:
        return await asyncio.wait_for(self.queue.get(), within)


def by_id(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(items, key=lambda item: str(item["id"]))


def ticket(n: int) -> dict[str, Any]:
    return {"id": f"t{n}", "at": 1000 + n, "name": f"player {n}"}


class TestRoomStore:
    """RoomStore: rooms as event logs (version and conflict checks), and the listing."""

    async def test_created_room_reads_back_its_first_event(self, store: RoomStore) -> None:
        first = ev(0, text="Kings in the Corner ♠", cards=["KH", "10D"], none=None, ok=True)
        assert await store.create_room("ROOM", first) is True
        assert await store.read("ROOM") == [first]

    async def test_create_room_refuses_a_taken_code_and_keeps_the_first_log(
        self, store: RoomStore
    ) -> None:
        assert await store.create_room("ROOM", ev(0))
        assert await store.create_room("ROOM", ev(99)) is False
        assert await store.read("ROOM") == [ev(0)]

    async def test_append_at_current_version_returns_the_new_version(
        self, store: RoomStore
    ) -> None:
        await store.create_room("ROOM", ev(0))
        assert await store.append("ROOM", 1, [ev(1), ev(2)]) == 3
        assert await store.append("ROOM", 3, [ev(3)]) == 4
        assert await store.read("ROOM") == [ev(0), ev(1), ev(2), ev(3)]

    async def test_append_of_no_events_returns_the_current_version(self, store: RoomStore) -> None:
        await store.create_room("ROOM", ev(0))
        assert await store.append("ROOM", 1, []) == 1
        assert await store.read("ROOM") == [ev(0)]

    async def test_append_at_a_stale_version_raises_conflict_and_changes_nothing(
        self,
        store: RoomStore,
    ) -> None:
        await store.create_room("ROOM", ev(0))
        await store.append("ROOM", 1, [ev(1)])
        for stale in (0, 1, 3):
            with pytest.raises(Conflict):
                await store.append("ROOM", stale, [ev(50)])
        assert await store.read("ROOM") == [ev(0), ev(1)]

    async def test_missing_room_raises_room_not_found(self, store: RoomStore) -> None:
        with pytest.raises(RoomNotFound):
            await store.append("NONE", 0, [ev(0)])
        with pytest.raises(RoomNotFound):
            await store.append("NONE", 1, [ev(0)])
        with pytest.raises(RoomNotFound):
            await store.read("NONE")
        assert await store.room_codes() == []

    async def test_read_after_a_version_returns_only_later_events(self, store: RoomStore) -> None:
        await store.create_room("ROOM", ev(0))
        await store.append("ROOM", 1, [ev(1), ev(2), ev(3)])
        assert await store.read("ROOM", 2) == [ev(2), ev(3)]
        assert await store.read("ROOM", 4) == []
        assert await store.read("ROOM", 10) == []

    async def test_large_append_keeps_every_event_in_order(self, store: RoomStore) -> None:
        await store.create_room("ROOM", ev(0))
        events = [ev(i) for i in range(1, 2501)]
        assert await store.append("ROOM", 1, events) == 2501
        assert await store.read("ROOM") == [ev(0), *events]

    async def test_concurrent_appends_at_one_version_let_exactly_one_win(
        self, store: RoomStore
    ) -> None:
        await store.create_room("ROOM", ev(0))
        writers = 20
        results = await asyncio.gather(
            *(store.append("ROOM", 1, [ev(w, part=1), ev(w, part=2)]) for w in range(writers)),
            return_exceptions=True,
        )
        wins = [r for r in results if r == 3]
        conflicts = [r for r in results if isinstance(r, Conflict)]
        assert len(wins) == 1
        assert len(conflicts) == writers - 1
        log = await store.read("ROOM")
        assert len(log) == 3
        winner = log[1]["n"]
        assert log[1:] == [ev(winner, part=1), ev(winner, part=2)]

    async def test_writers_retrying_on_conflict_lose_and_duplicate_nothing(
        self, store: RoomStore
    ) -> None:
        await store.create_room("ROOM", ev(0))
        writers, each = 8, 10

        async def write(w: int) -> int:
            conflicts = 0
            for i in range(each):
                while True:
                    version = len(await store.read("ROOM"))
                    try:
                        await store.append("ROOM", version, [ev(w, i=i)])
                        break
                    except Conflict:
                        conflicts += 1
                        await asyncio.sleep(0)
            return conflicts

        await asyncio.gather(*(write(w) for w in range(writers)))
        log = (await store.read("ROOM"))[1:]
        assert len(log) == writers * each
        assert sorted((e["n"], e["i"]) for e in log) == [
            (w, i) for w in range(writers) for i in range(each)
        ]
        for w in range(writers):
            assert [e["i"] for e in log if e["n"] == w] == list(range(each))

    async def test_room_codes_lists_every_stored_room(self, store: RoomStore) -> None:
        for code in ("ABCD", "WXYZ", "Q2R7"):
            await store.create_room(code, ev(0))
        assert sorted(await store.room_codes()) == ["ABCD", "Q2R7", "WXYZ"]

    async def test_a_room_closed_by_an_administrator_is_remembered_as_closed(
        self, store: RoomStore
    ) -> None:
        await store.create_room("SHUT", ev(0))
        await store.delete_room("SHUT", closed=True)
        with pytest.raises(RoomNotFound):
            await store.read("SHUT")
        assert await store.was_closed("SHUT")
        assert not await store.was_closed("OTHER")
        assert await store.room_codes() == []

    async def test_listing_lists_updates_and_unlists_rooms(self, store: RoomStore) -> None:
        assert await store.listings() == []
        await store.set_listing("ABCD", {"code": "ABCD", "seats": 4, "taken": 1})
        await store.set_listing("WXYZ", {"code": "WXYZ", "seats": 2, "taken": 0})
        await store.set_listing("ABCD", {"code": "ABCD", "seats": 4, "taken": 2})
        listed = sorted(await store.listings(), key=lambda s: str(s["code"]))
        assert listed == [
            {"code": "ABCD", "seats": 4, "taken": 2},
            {"code": "WXYZ", "seats": 2, "taken": 0},
        ]
        await store.set_listing("ABCD", None)
        await store.set_listing("NEVER", None)
        assert await store.listings() == [{"code": "WXYZ", "seats": 2, "taken": 0}]


class TestAnnouncementStore:
    """AnnouncementStore: channels, subscriptions and delivery to the one handler."""

    async def test_published_message_reaches_the_handler_of_a_subscribed_channel(
        self,
        store: AnnouncementStore,
    ) -> None:
        inbox = Inbox()
        store.set_handler(inbox)
        await store.subscribe("room:ABCD")
        message = {"type": "changed", "version": 3, "by": "ö"}
        await store.publish("room:ABCD", message)
        assert await inbox.next() == ("room:ABCD", message)

    async def test_messages_of_one_channel_arrive_in_publish_order(
        self, store: AnnouncementStore
    ) -> None:
        inbox = Inbox()
        store.set_handler(inbox)
        await store.subscribe("room:ABCD")
        for n in range(50):
            await store.publish("room:ABCD", {"n": n})
        assert [(await inbox.next())[1]["n"] for _ in range(50)] == list(range(50))

    async def test_only_subscribed_channels_are_delivered(self, store: AnnouncementStore) -> None:
        inbox = Inbox()
        store.set_handler(inbox)
        await store.subscribe("a")
        await store.subscribe("b")
        await store.unsubscribe("b")
        await store.unsubscribe("never-subscribed")
        await store.publish("b", {"n": 1})
        await store.publish("c", {"n": 2})
        await store.publish("a", {"n": 3})
        # Announcements from one publisher arrive in order: had "b" or "c" been delivered,
        # they would have come before "a".
        assert await inbox.next() == ("a", {"n": 3})
        await asyncio.sleep(2 * UNIT)
        assert inbox.queue.empty()

    async def test_resubscribing_delivers_again(self, store: AnnouncementStore) -> None:
        inbox = Inbox()
        store.set_handler(inbox)
        await store.subscribe("a")
        await store.unsubscribe("a")
        await store.subscribe("a")
        await store.publish("a", {"n": 1})
        assert await inbox.next() == ("a", {"n": 1})

    async def test_publish_without_subscribers_succeeds(self, store: AnnouncementStore) -> None:
        await store.publish("nobody-listens", {"n": 1})

    async def test_a_failing_handler_does_not_stop_later_deliveries(
        self, store: AnnouncementStore
    ) -> None:
        inbox = Inbox()

        async def handler(channel: str, message: Message) -> None:
            if message.get("fail"):
                raise RuntimeError("handler bug (expected in this test)")
            await inbox(channel, message)

        store.set_handler(handler)
        await store.subscribe("a")
        await store.publish("a", {"fail": True})
        await store.publish("a", {"n": 2})
        assert await inbox.next() == ("a", {"n": 2})


class TestPresenceStore:
    """PresenceStore: heartbeats with their TTL, and the lease on driving a room."""

    async def test_presence_lists_members_of_every_live_process_in_that_room(
        self, store: PresenceStore
    ) -> None:
        ttl = 600 * UNIT
        await store.heartbeat(
            "p1",
            {
                "c1": {"id": "c1", "room": "ABCD", "name": "Ann"},
                "c2": {"id": "c2", "room": "WXYZ", "name": "Bob"},
                "c3": {"id": "c3", "name": "lobby only"},
            },
            ttl,
        )
        await store.heartbeat("p2", {"c4": {"id": "c4", "room": "ABCD", "name": "Cy"}}, ttl)
        assert by_id(await store.presence("ABCD")) == [
            {"id": "c1", "room": "ABCD", "name": "Ann"},
            {"id": "c4", "room": "ABCD", "name": "Cy"},
        ]
        assert await store.presence("WXYZ") == [{"id": "c2", "room": "WXYZ", "name": "Bob"}]
        assert await store.presence("EMPTY") == []

    async def test_a_heartbeat_replaces_what_the_process_reported_before(
        self, store: PresenceStore
    ) -> None:
        ttl = 600 * UNIT
        await store.heartbeat("p1", {"c1": {"id": "c1", "room": "ABCD"}}, ttl)
        await store.heartbeat("p2", {"c2": {"id": "c2", "room": "ABCD"}}, ttl)
        await store.heartbeat("p1", {"c1": {"id": "c1", "room": "WXYZ"}}, ttl)
        assert await store.presence("ABCD") == [{"id": "c2", "room": "ABCD"}]
        assert await store.presence("WXYZ") == [{"id": "c1", "room": "WXYZ"}]
        await store.heartbeat("p1", {}, ttl)
        assert await store.presence("WXYZ") == []

    async def test_a_process_that_stops_beating_vanishes_after_its_ttl(
        self, store: PresenceStore
    ) -> None:
        await store.heartbeat("dying", {"c1": {"id": "c1", "room": "ABCD"}}, 3 * UNIT)
        await store.heartbeat("alive", {"c2": {"id": "c2", "room": "ABCD"}}, 600 * UNIT)
        assert len(await store.presence("ABCD")) == 2
        await asyncio.sleep(5 * UNIT)
        assert await store.presence("ABCD") == [{"id": "c2", "room": "ABCD"}]

    async def test_a_lease_has_one_holder_until_it_resigns(self, store: PresenceStore) -> None:
        ttl = 600 * UNIT
        assert await store.lead("ROOM", "a", ttl) is True
        assert await store.lead("ROOM", "b", ttl) is False
        assert await store.lead("ROOM", "a", ttl) is True
        await store.resign("ROOM", "b")
        assert await store.lead("ROOM", "b", ttl) is False
        await store.resign("ROOM", "a")
        assert await store.lead("ROOM", "b", ttl) is True
        assert await store.lead("ROOM", "a", ttl) is False
        assert await store.lead("OTHER", "a", ttl) is True

    async def test_concurrent_lead_attempts_have_exactly_one_winner(
        self, store: PresenceStore
    ) -> None:
        owners = [f"process-{n}" for n in range(12)]
        results = await asyncio.gather(*(store.lead("ROOM", o, 600 * UNIT) for o in owners))
        assert results.count(True) == 1
        winner = owners[results.index(True)]
        assert [await store.lead("ROOM", o, 600 * UNIT) for o in owners] == [
            o == winner for o in owners
        ]

    async def test_an_unrenewed_lease_expires_and_another_owner_takes_it(
        self, store: PresenceStore
    ) -> None:
        assert await store.lead("ROOM", "a", 3 * UNIT)
        assert not await store.lead("ROOM", "b", 3 * UNIT)
        await asyncio.sleep(5 * UNIT)
        assert await store.lead("ROOM", "b", 600 * UNIT)
        assert not await store.lead("ROOM", "a", 600 * UNIT)

    async def test_renewing_a_lease_extends_it(self, store: PresenceStore) -> None:
        assert await store.lead("ROOM", "a", 4 * UNIT)
        for _ in range(4):
            await asyncio.sleep(2 * UNIT)
            assert await store.lead("ROOM", "a", 4 * UNIT)
            assert not await store.lead("ROOM", "b", 4 * UNIT)


class TestMatchmakingStore:
    """MatchmakingStore: the quick-play queues, one per table size."""

    async def test_queue_take_returns_the_oldest_tickets_once_enough_wait(
        self, store: MatchmakingStore
    ) -> None:
        for n in (3, 1, 2):
            await store.queue_join(4, ticket(n))
        assert await store.queue_length(4) == 3
        assert await store.queue_take(4, 4, 4) == []
        assert await store.queue_length(4) == 3
        assert await store.queue_take(4, 2, 2) == [ticket(3), ticket(1)]
        assert await store.queue_length(4) == 1
        assert await store.queue_take(4, 2, 2) == []
        assert await store.queue_take(4, 1, 4) == [ticket(2)]
        assert await store.queue_length(4) == 0
        assert await store.queue_take(4, 0, 4) == []

    async def test_queue_join_ignores_a_ticket_already_waiting(
        self, store: MatchmakingStore
    ) -> None:
        await store.queue_join(2, ticket(1))
        await store.queue_join(2, ticket(2))
        await store.queue_join(2, {**ticket(1), "name": "again"})
        assert await store.queue_length(2) == 2
        assert await store.queue_take(2, 1, 5) == [ticket(1), ticket(2)]

    async def test_queue_leave_removes_only_that_ticket(self, store: MatchmakingStore) -> None:
        for n in range(4):
            await store.queue_join(3, ticket(n))
        assert await store.queue_leave(3, "t1") is True
        assert await store.queue_leave(3, "t1") is False
        assert await store.queue_leave(3, "unknown") is False
        assert await store.queue_take(3, 3, 3) == [ticket(0), ticket(2), ticket(3)]
        # A ticket that left may join again, at the back.
        await store.queue_join(3, ticket(1))
        assert await store.queue_take(3, 1, 1) == [ticket(1)]

    async def test_queues_for_different_table_sizes_are_separate(
        self, store: MatchmakingStore
    ) -> None:
        await store.queue_join(2, ticket(1))
        await store.queue_join(4, ticket(2))
        assert await store.queue_length(2) == 1
        assert await store.queue_length(3) == 0
        assert await store.queue_take(4, 1, 4) == [ticket(2)]
        assert await store.queue_take(2, 1, 4) == [ticket(1)]

    async def test_concurrent_queue_takes_never_hand_out_a_ticket_twice(
        self, store: MatchmakingStore
    ) -> None:
        for n in range(9):
            await store.queue_join(4, ticket(n))
        batches = await asyncio.gather(*(store.queue_take(4, 2, 2) for _ in range(10)))
        taken = [t for batch in batches for t in batch]
        assert sorted(len(b) for b in batches if b) == [2, 2, 2, 2]
        assert by_id(taken) == by_id([ticket(n) for n in range(8)])
        assert await store.queue_take(4, 1, 4) == [ticket(8)]


class TestAcrossRoles:
    """Where roles meet: a deleted room loses its lease, an append announces its change."""

    async def test_delete_room_forgets_its_log_listing_and_lease(self, store: Store) -> None:
        await store.create_room("GONE", ev(0))
        await store.create_room("KEPT", ev(0))
        await store.set_listing("GONE", {"code": "GONE"})
        await store.set_listing("KEPT", {"code": "KEPT"})
        assert await store.lead("GONE", "a", 600 * UNIT)
        await store.delete_room("GONE")
        with pytest.raises(RoomNotFound):
            await store.read("GONE")
        assert await store.room_codes() == ["KEPT"]
        assert await store.listings() == [{"code": "KEPT"}]
        assert await store.lead("GONE", "b", 600 * UNIT)
        assert not await store.was_closed("GONE")  # deleted, not closed by an administrator
        await store.delete_room("NEVER-EXISTED")
        # The code is free again.
        assert await store.create_room("GONE", ev(7))
        assert await store.read("GONE") == [ev(7)]

    async def test_an_append_announces_on_its_room_channel_only_when_it_lands(
        self, store: Store
    ) -> None:
        inbox = Inbox()
        store.set_handler(inbox)
        await store.subscribe("room:ROOM")
        await store.create_room("ROOM", ev(0))
        assert await store.append("ROOM", 1, [ev(1), ev(2)], {"kind": "changed", "v": 3}) == 3
        assert await inbox.next() == ("room:ROOM", {"kind": "changed", "v": 3})
        with pytest.raises(Conflict):
            await store.append("ROOM", 1, [ev(9)], {"kind": "changed", "v": 2})
        with pytest.raises(RoomNotFound):
            await store.append("GONE", 1, [ev(9)], {"kind": "changed", "v": 2})
        assert await store.append("ROOM", 3, [ev(3)]) == 4  # no announcement asked for
        await store.publish("room:ROOM", {"kind": "marker"})
        # Nothing came between: the refused appends and the silent one published nothing.
        assert await inbox.next() == ("room:ROOM", {"kind": "marker"})
        assert await store.read("ROOM", 1) == [ev(1), ev(2), ev(3)]


class TestStoreLife:
    """The store's own life (``Store``): it answers ``ping`` when reachable."""

    async def test_a_working_store_answers_ping(self, store: Store) -> None:
        assert await store.ping() is True
