"""Announcements over Redis pub/sub: subscriptions and the background listener.

One Redis and Sentinel: classic pub/sub on one dedicated connection read by a background
task. When the connection is lost the task reconnects with exponential backoff and
subscribes every recorded channel again by itself. A Cluster: sharded pub/sub
(``SPUBLISH``/``SSUBSCRIBE``), so an announcement stays on the shard of its channel's slot
instead of being relayed to every node; one connection per shard, see :mod:`.sharded`.
Either way messages published while a connection was away are lost, as with any pub/sub,
so a subscriber that cares catches up by reading the room.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random

import orjson
import redis.exceptions as rexc
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import AbstractConnection

from protocol.errors import StoreUnavailable

from ..base import Handler, Message
from .core import UNREACHABLE, RedisCore, dump, reachable
from .sharded import ShardedListener

# The name of the module this code came from, so log lines and log filters stay the same.
log = logging.getLogger("server.store.redis_store")


class Announcements(RedisCore):
    """Publish to store channels; deliver the subscribed ones' messages to the handler."""

    _health_interval: float
    _backoff_max: float
    # On a Cluster, the sharded subscriptions; the classic connection below is then unused.
    _shards: ShardedListener | None
    # The channels we want, the live connection (None while down), and per connection the
    # SUBSCRIBE commands sent and confirmed per channel, so subscribe() returns only once
    # Redis confirmed its own command.
    _handler: Handler | None
    _channels: set[str]
    _link: AbstractConnection | None
    _write_lock: asyncio.Lock
    _sent: dict[str, int]
    _confirmed: dict[str, int]
    _waiters: dict[str, list[tuple[int, asyncio.Future[None]]]]
    _reader: asyncio.Task[None] | None
    _first_attempt: asyncio.Event
    _deliveries: set[asyncio.Future[None]]
    _closed: bool
    # Connections opened and lost (AnnouncementStore.gaps), on one Redis or Sentinel.
    _gaps: int

    def _init_announcements(self, *, health_interval: float, backoff_max: float) -> None:
        self._health_interval = health_interval
        self._backoff_max = backoff_max
        self._shards = None
        if isinstance(self._redis, RedisCluster):
            self._shards = ShardedListener(
                self._redis,
                self._deliver,
                timeout=self._timeout,
                health_interval=health_interval,
                backoff_max=backoff_max,
                name=self.prefix,
            )
        self._handler = None
        self._channels = set()
        self._link = None
        self._write_lock = asyncio.Lock()
        self._sent = {}
        self._confirmed = {}
        self._waiters = {}
        self._reader = None
        self._first_attempt = asyncio.Event()
        self._deliveries = set()
        self._closed = False
        self._gaps = 0

    @property
    def gaps(self) -> int:
        """See :meth:`AnnouncementStore.gaps`: announcement connections opened and lost
        (on a Cluster, the shards' own count)."""
        return self._shards.gaps if self._shards is not None else self._gaps

    def set_handler(self, handler: Handler) -> None:
        self._handler = handler

    async def subscribe(self, channel: str) -> None:
        """Subscribe to ``channel``; return once Redis confirmed it.

        The channel is recorded first: it stays subscribed across reconnections until
        :meth:`unsubscribe`. If Redis is unreachable this raises ``StoreUnavailable`` but
        the channel is still recorded and gets subscribed as soon as Redis is back.
        """
        self._channels.add(channel)
        name = self._channel(channel)
        if self._shards is not None:
            await self._shards.subscribe(name)
            return
        await self._await_first_attempt()
        async with self._write_lock:
            link = self._link
            if link is None:
                raise StoreUnavailable()
            number = self._sent[name] = self._sent.get(name, 0) + 1
            confirmed = asyncio.get_running_loop().create_future()
            self._waiters.setdefault(name, []).append((number, confirmed))
            with reachable():
                await link.send_command("SUBSCRIBE", name)
        try:
            await asyncio.wait_for(asyncio.shield(confirmed), self._timeout)
        except TimeoutError as exc:
            raise StoreUnavailable() from exc

    async def unsubscribe(self, channel: str) -> None:
        """Stop delivering ``channel``; never fails (a lost connection unsubscribes anyway)."""
        self._channels.discard(channel)
        if self._shards is not None:
            await self._shards.unsubscribe(self._channel(channel))
            return
        async with self._write_lock:
            link = self._link
            if link is not None:
                with contextlib.suppress(*UNREACHABLE):
                    await link.send_command("UNSUBSCRIBE", self._channel(channel))

    async def publish(self, channel: str, message: Message) -> None:
        with reachable():
            if self._shards is not None:
                await self._redis.spublish(self._channel(channel), dump(message))
            else:
                await self._redis.publish(self._channel(channel), dump(message))

    @property
    def listening(self) -> bool:
        """True while the announcement connection is up (False during reconnection); on a
        Cluster, while every subscribed channel's shard connection is."""
        if self._shards is not None:
            return self._shards.listening
        return self._link is not None

    @property
    def listening_on(self) -> str | None:
        """``host:port`` (or socket path) of the server announcements come from; None if down.

        Through Sentinels, the primary of the moment it connected; on a Cluster, every node
        a shard connection is open to, sorted and joined by commas.
        """
        if self._shards is not None:
            return self._shards.listening_on
        link = self._link
        if link is None:
            return None
        host, port = getattr(link, "host", None), getattr(link, "port", None)
        return f"{host}:{port}" if host else str(getattr(link, "path", "?"))

    # --- the announcement reader ---------------------------------------------------------

    def _start_reader(self) -> None:
        if self._shards is not None:
            if not self._closed:
                self._shards.start()
            return
        if self._reader is None and not self._closed:
            self._reader = asyncio.get_running_loop().create_task(
                self._read_forever(), name=f"redis-store-reader:{self.prefix}"
            )

    async def _stop_listening(self) -> None:
        """Stop the reader for good and drop the announcement connection."""
        self._closed = True
        self._handler = None
        if self._shards is not None:
            await self._shards.close()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
            self._reader = None
        await self._drop_link(None)

    async def _await_first_attempt(self) -> None:
        self._start_reader()
        if not self._first_attempt.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._first_attempt.wait(), self._timeout * 2)

    async def _read_forever(self) -> None:
        delay = 0.05
        down_since_logged = False
        while not self._closed:
            try:
                link = await self._open_link()
            except Exception as exc:
                self._first_attempt.set()
                if not down_since_logged:
                    log.warning("store: cannot reach Redis for announcements (%s)", exc)
                    down_since_logged = True
                await asyncio.sleep(delay * random.uniform(0.5, 1.0))
                delay = min(delay * 2, self._backoff_max)
                continue
            if down_since_logged:
                log.warning("store: announcement connection restored (%s)", self.listening_on)
                down_since_logged = False
            delay = 0.05
            self._first_attempt.set()
            try:
                await self._pump(link)
            except Exception as exc:
                log.warning("store: announcement connection lost (%s)", exc)
                down_since_logged = True
            finally:
                await self._drop_link(link)

    def _new_link(self) -> AbstractConnection:
        """A connection of its own, outside every pool: it lives in subscribed mode.

        Single Redis: to the server. Sentinel: to the primary the Sentinels name at the
        moment it connects. (A Cluster subscribes through :mod:`.sharded` instead.)
        """
        assert self._pool is not None
        link: AbstractConnection = self._pool.make_connection()  # type: ignore[no-untyped-call]
        return link

    async def _open_link(self) -> AbstractConnection:
        link = self._new_link()
        try:
            await link.connect()  # type: ignore[no-untyped-call]
            async with self._write_lock:
                names = sorted(self._channel(c) for c in self._channels)
                if names:
                    await link.send_command("SUBSCRIBE", *names)
                self._sent = dict.fromkeys(names, 1)
                self._confirmed = {}
                self._link = link
                self._gaps += 1  # what was published while no connection listened is lost
        except BaseException:
            await link.disconnect()
            raise
        return link

    async def _drop_link(self, link: AbstractConnection | None) -> None:
        """Forget the live connection (if it is ``link``) and fail subscribers waiting on it."""
        if link is None:
            link = self._link
        if link is self._link:
            self._link = None
            self._gaps += 1
            waiters, self._waiters = self._waiters, {}
            for pending in waiters.values():
                for _, confirmed in pending:
                    if not confirmed.done():
                        confirmed.set_exception(StoreUnavailable())
                        # Nobody may be waiting any more (timed out); mark it retrieved.
                        confirmed.exception()
        if link is not None:
            with contextlib.suppress(Exception):
                await link.disconnect(nowait=True)

    async def _pump(self, link: AbstractConnection) -> None:
        """Read replies until the connection fails; ping it when idle to notice silent loss."""
        pinged = False
        while True:
            reply = await link.read_response(
                timeout=self._health_interval, disconnect_on_error=False
            )
            if reply is None:
                if pinged:
                    raise rexc.TimeoutError("no answer to a health-check ping")
                async with self._write_lock:
                    await link.send_command("PING")
                pinged = True
                continue
            pinged = False
            if isinstance(reply, list) and len(reply) >= 3:
                kind = bytes(reply[0])
                if kind == b"message":
                    self._deliver(bytes(reply[1]).decode(), bytes(reply[2]))
                elif kind == b"subscribe":
                    self._confirm(bytes(reply[1]).decode())

    def _confirm(self, name: str) -> None:
        count = self._confirmed[name] = self._confirmed.get(name, 0) + 1
        pending = self._waiters.get(name, [])
        for number, confirmed in pending:
            if number <= count and not confirmed.done():
                confirmed.set_result(None)
        kept = [(n, f) for n, f in pending if n > count]
        if kept:
            self._waiters[name] = kept
        else:
            self._waiters.pop(name, None)

    def _deliver(self, name: str, data: bytes) -> None:
        head = self.prefix + ":{"
        if not (name.startswith(head) and name.endswith("}")):
            return
        channel = name[len(head) : -1]
        handler = self._handler
        if handler is None or channel not in self._channels:
            return
        try:
            message = orjson.loads(data)
        except orjson.JSONDecodeError:
            log.error("store: undecodable message on %s dropped", channel)
            return
        task = asyncio.ensure_future(handler(channel, message))
        self._deliveries.add(task)
        task.add_done_callback(self._delivered)

    def _delivered(self, task: asyncio.Future[None]) -> None:
        self._deliveries.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("store handler failed", exc_info=task.exception())
