"""The store's roles: what each declares, which part of the Redis store serves it, and the
metering wrapper's operations (the type checker holds each store to the roles' signatures;
these tests hold the names together)."""

from __future__ import annotations

import inspect

from server.metrics import MeteredStore, Metrics
from server.store import (
    AnnouncementStore,
    IdentityStore,
    MatchmakingStore,
    MemoryStore,
    PresenceStore,
    RecordStore,
    RoomStore,
    SecretStore,
    StandingStore,
    Store,
)
from server.store.base import ROLES
from server.store.redis.identities import IdentityRecords
from server.store.redis.matchmaking import Matchmaking
from server.store.redis.presence import Presence
from server.store.redis.pubsub import Announcements
from server.store.redis.records import Records
from server.store.redis.rooms import EventLog
from server.store.redis.shared_secrets import SharedSecrets
from server.store.redis.standing import Standing
from server.store.redis_store import RedisStore

#: The part of the Redis store that serves each role.
REDIS_PARTS: dict[type, type] = {
    RoomStore: EventLog,
    AnnouncementStore: Announcements,
    PresenceStore: Presence,
    MatchmakingStore: Matchmaking,
    SecretStore: SharedSecrets,
    RecordStore: Records,
    IdentityStore: IdentityRecords,
    StandingStore: Standing,
}
#: What Store declares besides its roles: the store's own life.
OWN = {"inline", "ping", "close"}


def operations(cls: type) -> set[str]:
    """The public methods ``cls`` defines itself, not those it inherits (properties and
    private helpers aside): for a role, the operations it declares."""
    return {
        name
        for name, value in vars(cls).items()
        if not name.startswith("_") and inspect.isfunction(value)
    }


def every_operation() -> set[str]:
    return set().union(*(operations(role) for role in ROLES))


def test_the_roles_share_no_operation_and_with_the_life_make_up_the_store() -> None:
    per_role = [operations(role) for role in ROLES]
    assert all(per_role)
    assert sum(len(names) for names in per_role) == len(every_operation())
    assert operations(Store) | set(Store.__annotations__) == OWN
    assert tuple(base for base in Store.__bases__ if base in ROLES) == ROLES


def test_each_part_of_the_redis_store_serves_exactly_one_role() -> None:
    assert list(REDIS_PARTS) == list(ROLES)
    for role, part in REDIS_PARTS.items():
        assert operations(part) == operations(role), (role.__name__, part.__name__)
        assert part in RedisStore.__mro__


def test_both_stores_define_every_operation_with_the_roles_parameters() -> None:
    for store in (MemoryStore, RedisStore):
        for role in ROLES:
            for name in operations(role):
                wanted = inspect.signature(getattr(role, name)).parameters
                got = inspect.signature(getattr(store, name)).parameters
                assert list(got) == list(wanted), (store.__name__, name)


async def test_the_metered_store_times_every_operation_under_its_own_name() -> None:
    metrics = Metrics()
    metered = MeteredStore(MemoryStore(), metrics)
    assert metered.inline is True
    timed = every_operation() - {"set_handler"} | {"ping", "close"}
    for name in timed:
        assert vars(MeteredStore)[name].__name__ == name
    assert operations(MeteredStore) == timed | {"set_handler"}
    assert await metered.create_room("ROOM", {"e": "created"})
    assert await metered.read("ROOM") == [{"e": "created"}]
    assert await metered.secret("daily") == await metered.secret("daily")
    assert await metered.ping()
    observed = {values[0] for values in metrics.store_latency.children}
    assert observed == {"create_room", "read", "secret", "ping"}
    assert not metrics.store_errors.children
