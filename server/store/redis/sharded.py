"""Announcements on a Redis Cluster: sharded pub/sub, one subscriber connection per shard.

Classic ``PUBLISH`` on a Cluster is relayed over the cluster bus to every node, so each node
carries every announcement. ``SPUBLISH`` stays on the shard owning the channel's slot (its
primary and that primary's replicas), and a subscriber must ``SSUBSCRIBE`` on that shard.
Every store channel ``kc:{NAME}`` is its own hash tag, so ``kc:{room:CODE}`` lies on the
shard of the room's keys and the append script may ``SPUBLISH`` to it.

:class:`ShardedListener` keeps one connection to each primary owning a subscribed channel,
each read by a task of its own, and a keeper task that puts every wanted channel on the
connection of its slot's current owner: after a lost connection, a ``MOVED`` reply, a
``sunsubscribe`` Redis sent by itself (the slot left that node) or a slot layout the
Cluster client learnt meanwhile, it reloads the layout and subscribes the channel again on
the new owner, retrying with exponential backoff while no node serves the slot.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Callable
from dataclasses import dataclass, field

import redis.exceptions as rexc
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.connection import AbstractConnection
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from protocol.errors import StoreUnavailable

log = logging.getLogger("server.store.redis_store")


@dataclass(eq=False)
class _Link:
    """One subscriber connection to one node (``host:port``), and what it was sent.

    ``sent`` and ``confirmed`` count SSUBSCRIBE commands and their replies per channel, so a
    subscriber waits for the reply to its own command (``waiters``: command number and
    future); ``unsubscribing`` counts SUNSUBSCRIBE replies still due, so a ``sunsubscribe``
    beyond them is one Redis sent by itself.
    """

    node: str
    connection: AbstractConnection
    write: asyncio.Lock = field(default_factory=asyncio.Lock)
    sent: dict[str, int] = field(default_factory=dict)
    confirmed: dict[str, int] = field(default_factory=dict)
    unsubscribing: dict[str, int] = field(default_factory=dict)
    waiters: dict[str, list[tuple[int, asyncio.Future[None]]]] = field(default_factory=dict)
    reader: asyncio.Task[None] | None = None


class ShardedListener:
    """Sharded subscriptions of one store on a Cluster; messages go to ``deliver``.

    ``deliver(channel, data)`` gets the Redis channel name and the raw message. ``timeout``
    bounds connecting and the wait for a subscription's confirmation; each idle connection
    is pinged every ``health_interval`` seconds (two silent intervals count as lost), and
    the keeper checks the slot layout as often; retries wait from 50 ms doubling up to
    ``backoff_max``.
    """

    def __init__(
        self,
        cluster: RedisCluster,
        deliver: Callable[[str, bytes], None],
        *,
        timeout: float,
        health_interval: float,
        backoff_max: float,
        name: str,
    ) -> None:
        self._cluster = cluster
        self._deliver = deliver
        self._timeout = timeout
        self._health_interval = health_interval
        self._backoff_max = backoff_max
        self._name = name
        self._wanted: set[str] = set()
        self._links: dict[str, _Link] = {}
        # The link each wanted channel was last SSUBSCRIBEd on; messages count only from it.
        self._home: dict[str, _Link] = {}
        # Held while placing channels on links, so the keeper and subscribers do not race.
        self._placing = asyncio.Lock()
        self._stale = False
        self._wake = asyncio.Event()
        self._keeper: asyncio.Task[None] | None = None
        self._closed = False
        #: Grows when a channel may have missed messages: its link lost, or the channel
        #: (re)subscribed on a link (AnnouncementStore.gaps).
        self.gaps = 0

    # --- what Announcements calls --------------------------------------------------------

    def start(self) -> None:
        """Start the keeper task (once)."""
        if self._keeper is None and not self._closed:
            self._keeper = asyncio.get_running_loop().create_task(
                self._keep(), name=f"redis-store-shards:{self._name}"
            )

    async def subscribe(self, name: str) -> None:
        """SSUBSCRIBE ``name`` on its shard; return once Redis confirmed it.

        The channel is recorded first and stays subscribed, across fail-overs, until
        :meth:`unsubscribe`; if its shard cannot be reached this raises
        ``StoreUnavailable`` and the keeper subscribes it as soon as it can.
        """
        self._wanted.add(name)
        if self._closed:
            raise StoreUnavailable()
        self.start()
        async with self._placing:
            try:
                link, number = await self._place(name)
            except Exception as exc:
                self._stale = True
                self._wake.set()
                raise StoreUnavailable() from exc
            confirmed = asyncio.get_running_loop().create_future()
            link.waiters.setdefault(name, []).append((number, confirmed))
            self._settle_waiters(link, name)
        try:
            await asyncio.wait_for(asyncio.shield(confirmed), self._timeout)
        except TimeoutError as exc:
            raise StoreUnavailable() from exc

    async def unsubscribe(self, name: str) -> None:
        """SUNSUBSCRIBE ``name``; never fails (a lost connection unsubscribes anyway)."""
        self._wanted.discard(name)
        async with self._placing:
            link = self._home.pop(name, None)
            if link is not None and self._links.get(link.node) is link:
                await self._send_unsubscribe(link, name)

    @property
    def listening(self) -> bool:
        """True while every subscribed channel is on a live connection to its shard."""
        if self._keeper is None or self._closed:
            return False
        return all(
            (link := self._home.get(n)) is not None and self._links.get(link.node) is link
            for n in self._wanted
        )

    @property
    def listening_on(self) -> str | None:
        """The ``host:port`` of every node a subscriber connection is open to, sorted and
        joined by commas; None when there is none."""
        return ",".join(sorted(self._links)) or None

    async def close(self) -> None:
        """Stop the keeper and every reader; close every connection."""
        self._closed = True
        if self._keeper is not None:
            self._keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._keeper
            self._keeper = None
        for link in list(self._links.values()):
            if link.reader is not None:
                link.reader.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await link.reader
            await self._drop(link)

    # --- placing channels on their shard ---------------------------------------------------

    async def _owner(self, name: str) -> ClusterNode:
        """The primary owning ``name``'s slot, reloading the layout first when stale."""
        if self._cluster.get_default_node() is None:
            await self._cluster.initialize()
            self._stale = False
        elif self._stale:
            await self._cluster.nodes_manager.initialize()
            self._stale = False
        node = self._cluster.get_node_from_key(name)
        if node is None:
            raise rexc.SlotNotCoveredError(f"no node serves {name!r}")
        return node

    async def _place(self, name: str) -> tuple[_Link, int]:
        """SSUBSCRIBE ``name`` on its owner's link (opened if needed); the command number.

        Runs under ``_placing``. The channel's former link, if another one and still open,
        gets a SUNSUBSCRIBE.
        """
        node = await self._owner(name)
        link = self._links.get(node.name)
        if link is None:
            link = await self._open(node)
        former = self._home.get(name)
        if former is not None and former is not link and self._links.get(former.node) is former:
            await self._send_unsubscribe(former, name)
        self._home[name] = link
        number = link.sent[name] = link.sent.get(name, 0) + 1
        async with link.write:
            await link.connection.send_command("SSUBSCRIBE", name)
        return link, number

    async def _send_unsubscribe(self, link: _Link, name: str) -> None:
        link.unsubscribing[name] = link.unsubscribing.get(name, 0) + 1
        with contextlib.suppress(Exception):
            async with link.write:
                await link.connection.send_command("SUNSUBSCRIBE", name)

    async def _open(self, node: ClusterNode) -> _Link:
        # A connection outside every pool: it lives in subscribed mode.
        options = {**node.connection_kwargs, "retry": Retry(NoBackoff(), 0)}
        connection: AbstractConnection = node.connection_class(**options)
        try:
            await connection.connect()  # type: ignore[no-untyped-call]
        except BaseException:
            await connection.disconnect()
            raise
        link = _Link(node.name, connection)
        self._links[node.name] = link
        link.reader = asyncio.get_running_loop().create_task(
            self._read(link), name=f"redis-store-shard:{self._name}:{node.name}"
        )
        return link

    async def _drop(self, link: _Link) -> None:
        """Forget ``link``: its channels need placing again, its subscribers fail."""
        if self._links.get(link.node) is link:
            del self._links[link.node]
        homed = [n for n, home in self._home.items() if home is link]
        for name in homed:
            del self._home[name]
        if homed:
            self.gaps += 1
        waiters, link.waiters = link.waiters, {}
        for pending in waiters.values():
            for _, confirmed in pending:
                if not confirmed.done():
                    confirmed.set_exception(StoreUnavailable())
                    # Nobody may be waiting any more (timed out); mark it retrieved.
                    confirmed.exception()
        if (homed or waiters) and not self._closed:
            self._stale = True
            self._wake.set()
        with contextlib.suppress(Exception):
            await link.connection.disconnect(nowait=True)

    def _misplaced(self) -> list[str]:
        """Wanted channels not on a live link to the owner the client's layout names."""
        out = []
        for name in sorted(self._wanted):
            link = self._home.get(name)
            if link is None or self._links.get(link.node) is not link:
                out.append(name)
                continue
            try:
                node = self._cluster.get_node_from_key(name)
            except rexc.SlotNotCoveredError:
                node = None
            if node is None or node.name != link.node:
                out.append(name)
        return out

    async def _settle(self) -> None:
        """Place every misplaced channel; raise the first failure after trying them all."""
        failure: Exception | None = None
        async with self._placing:
            misplaced = [name for name in self._misplaced() if name in self._wanted]
            if misplaced:
                self.gaps += 1  # away from their owner's link until now: messages were lost
            for name in misplaced:
                try:
                    await self._place(name)
                except Exception as exc:
                    self._stale = True
                    failure = failure or exc
            for link in list(self._links.values()):
                if link not in self._home.values() and not link.waiters:
                    if link.reader is not None:
                        link.reader.cancel()
                    await self._drop(link)
        if failure is not None:
            raise failure

    async def _keep(self) -> None:
        delay = 0.05
        failing = False
        while not self._closed:
            self._wake.clear()
            try:
                await self._settle()
            except Exception as exc:
                if not failing:
                    log.warning("store: cannot subscribe announcements on a shard (%s)", exc)
                    failing = True
                await asyncio.sleep(delay * random.uniform(0.5, 1.0))
                delay = min(delay * 2, self._backoff_max)
                continue
            if failing:
                log.warning("store: sharded announcements restored (%s)", self.listening_on)
                failing = False
            delay = 0.05
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self._health_interval)

    # --- reading a link -----------------------------------------------------------------

    async def _read(self, link: _Link) -> None:
        try:
            await self._pump(link)
        except Exception as exc:
            if not self._closed:
                log.warning("store: announcement connection to %s lost (%s)", link.node, exc)
        finally:
            link.reader = None
            await self._drop(link)

    async def _pump(self, link: _Link) -> None:
        """Read replies until the connection fails (an error reply such as ``MOVED`` fails
        it too); ping it when idle to notice silent loss."""
        pinged = False
        while True:
            reply = await link.connection.read_response(
                timeout=self._health_interval, disconnect_on_error=False
            )
            if reply is None:
                if pinged:
                    raise rexc.TimeoutError("no answer to a health-check ping")
                async with link.write:
                    await link.connection.send_command("PING")
                pinged = True
                continue
            pinged = False
            if not (isinstance(reply, list) and len(reply) >= 3):
                continue
            kind, name = bytes(reply[0]), bytes(reply[1]).decode()
            if kind == b"smessage":
                if self._home.get(name) is link:
                    self._deliver(name, bytes(reply[2]))
            elif kind == b"ssubscribe":
                link.confirmed[name] = link.confirmed.get(name, 0) + 1
                self._settle_waiters(link, name)
            elif kind == b"sunsubscribe":
                if link.unsubscribing.get(name, 0) > 0:
                    link.unsubscribing[name] -= 1
                elif self._home.get(name) is link:
                    # Redis dropped the subscription itself: the slot moved elsewhere.
                    del self._home[name]
                    self.gaps += 1
                    self._stale = True
                    self._wake.set()

    def _settle_waiters(self, link: _Link, name: str) -> None:
        count = link.confirmed.get(name, 0)
        pending = link.waiters.get(name, [])
        for number, confirmed in pending:
            if number <= count and not confirmed.done():
                confirmed.set_result(None)
        kept = [(n, f) for n, f in pending if n > count]
        if kept:
            link.waiters[name] = kept
        else:
            link.waiters.pop(name, None)
