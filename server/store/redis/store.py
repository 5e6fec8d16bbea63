""":class:`RedisStore`: the parts of the Redis store composed into one Store."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from protocol.errors import StoreUnavailable

from ..base import (
    AnnouncementStore,
    IdentityStore,
    MatchmakingStore,
    PresenceStore,
    RecordStore,
    ReviewJobStore,
    RoomStore,
    SecretStore,
    StandingStore,
    Store,
)
from .identities import IdentityRecords
from .matchmaking import Matchmaking
from .presence import Presence
from .pubsub import Announcements
from .records import Records
from .review_jobs import ReviewJobs
from .rooms import EventLog
from .shared_secrets import SharedSecrets
from .standing import Standing


class RedisStore(
    EventLog,
    Announcements,
    Presence,
    Matchmaking,
    SharedSecrets,
    Records,
    IdentityRecords,
    Standing,
    ReviewJobs,
):
    """A :class:`~server.store.base.Store` shared by every process pointing at one Redis:
    each part is one role of the store (``EventLog`` the ``RoomStore``, ``Announcements``
    the ``AnnouncementStore``, and so on, in the order ``Store`` combines them).

    ``url`` says where Redis is: one server (redis-py's ``redis://host:6379/0``,
    ``rediss://`` for TLS, with an optional ``user:password@``), a Redis Cluster
    (``redis+cluster://host1:7000,host2:7001``) or a primary found through Sentinels
    (``redis+sentinel://s1:26379,s2:26379,s3:26379/mymaster``); see
    :func:`~server.store.redis.target.parse_redis_url`, which raises ``ValueError`` for a
    bad one. ``prefix`` starts every key and channel name, so several deployments (or test
    runs) can share one Redis. ``timeout`` bounds connecting, each command and the wait for
    one of the ``pool_size`` connections (on a single server); ``health_interval`` is how
    often the idle announcement connection is pinged (two silent intervals count as a lost
    connection); reconnection waits start small and double up to ``backoff_max`` seconds.

    On a Cluster, a command for a shard whose primary is down raises ``StoreUnavailable``
    until a replica is promoted; the client then learns the new layout by itself. Through
    Sentinels, every new connection asks them for the current primary, so after a fail-over
    the store finds the promoted replica by itself.

    Constructing the store does no I/O; the first command connects.
    """

    inline = False

    def __init__(
        self,
        url: str,
        prefix: str = "kc",
        *,
        timeout: float = 2.0,
        health_interval: float = 5.0,
        backoff_max: float = 2.0,
        pool_size: int = 200,
    ) -> None:
        super().__init__(url, prefix, timeout=timeout, pool_size=pool_size)
        self._init_presence()
        self._init_announcements(health_interval=health_interval, backoff_max=backoff_max)

    @classmethod
    async def connect(cls, url: str, prefix: str = "kc", **options: Any) -> RedisStore:
        """Build a store, check Redis answers (else ``StoreUnavailable``) and start listening."""
        store = cls(url, prefix, **options)
        if not await store.ping():
            await store.close()
            raise StoreUnavailable()
        store._start_reader()
        return store

    async def close(self) -> None:
        """Stop listening and close every connection; the store cannot be used afterwards."""
        await self._stop_listening()
        await self._close_clients()


if TYPE_CHECKING:
    # Never run: type-checking it proves the Redis store is every role (each line names the
    # role it breaks), and so a whole Store.
    _rooms: RoomStore = RedisStore("redis://")
    _announcements: AnnouncementStore = RedisStore("redis://")
    _presence: PresenceStore = RedisStore("redis://")
    _matchmaking: MatchmakingStore = RedisStore("redis://")
    _secrets: SecretStore = RedisStore("redis://")
    _records: RecordStore = RedisStore("redis://")
    _identities: IdentityStore = RedisStore("redis://")
    _standing: StandingStore = RedisStore("redis://")
    _whole: Store = RedisStore("redis://")
    _review_jobs: ReviewJobStore = RedisStore("redis://")
