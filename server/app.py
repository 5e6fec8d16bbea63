"""The wiring of one server process: build its parts, start serving, shut down.

Layers, each importing only those below it (``tests/server/test_layers.py`` checks):

- entry: :mod:`server.__main__` (the server's command line; ``kings-corner`` is above it);
- wiring: this module;
- the front: :mod:`server.sockets` with :mod:`server.commands` and
  :mod:`server.account_commands` (WebSocket messages) and
  :mod:`server.routes` (HTTP: health, metrics, :mod:`server.api`, :mod:`server.admin`,
  the web client);
- services: :mod:`server.lobby` (the registry of rooms, joining, quick play),
  :mod:`server.live_room` (one loaded room), :mod:`server.records` (history, leaderboards,
  daily deal), :mod:`server.bots`, :mod:`server.maintenance`;
- room logic: :mod:`server.room` (a room as a fold over its events), :mod:`server.fanout`;
- foundations: :mod:`server.store`, :mod:`server.connection`, :mod:`server.config`,
  :mod:`server.guard`, :mod:`server.metrics`, :mod:`server.tasks`, :mod:`server.bot_pool`,
  :mod:`server.logs` — and the rules engine in :mod:`protocol`.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal

from websockets.asyncio.server import Server, serve
from websockets.protocol import State

from protocol.errors import StoreUnavailable
from protocol.frames import frame
from protocol.messages import Closing

from . import admin
from .account_commands import SERVER_NAME
from .bots import BotRunner
from .command_context import Services
from .compression import IdleFreeDeflateFactory
from .config import Settings
from .guard import JoinGuard
from .identity import Identities
from .live_room import RoomConnection
from .lobby import Lobby
from .maintenance import Maintenance
from .metrics import MeteredStore, Metrics
from .records import Records
from .reviews import Reviews
from .routes import Routes
from .sockets import Sockets
from .store.base import Message, ReviewJobStore, Store
from .tasks import Tasks
from .websocket import GameSocket

log = logging.getLogger(__name__)
#: How many times ``max_message`` a frame may be before the connection is closed (1009).
HARD_CAP = 4
#: Seconds connection handlers get for their cleanup once shutdown closed every connection.
_CLEANUP_WAIT = 1.0


class GameServer:
    """Everything one server process holds. Build with :func:`start_server`."""

    def __init__(self, settings: Settings, store: Store) -> None:
        self.settings = settings
        self.metrics = Metrics()
        # Every store operation is timed; the wrapper is a Store itself.
        self.store: Store = MeteredStore(store, self.metrics)
        self.tasks = Tasks()
        self.connections: set[RoomConnection] = set()
        self.bots = BotRunner(
            settings.bot_workers,
            self.metrics,
            self.tasks,
            urgent_workers=settings.urgent_workers,
            idle_class=settings.bot_idle_class,
        )
        self.records = Records(settings, self.store)
        # A store that takes review jobs (Redis) sends them to the review tier
        # (``kings-corner worker``): this process computes no review then.
        self.reviews = Reviews(
            self.store,
            self.bots.pool,
            self.tasks,
            enabled=self.settings.reviews,
            jobs=store if isinstance(store, ReviewJobStore) else None,
            backlog=settings.review_backlog,
        )
        self.lobby = Lobby(
            settings, self.store, self.bots, self.records, self.reviews, self.tasks, self.metrics
        )
        self.guard = JoinGuard(settings, self.metrics)
        self.maintenance = Maintenance(settings, self.store, self.lobby, self.connections)
        self.identities = Identities(self.store)
        services = Services(
            settings,
            self.store,
            self.metrics,
            self.guard,
            self.lobby,
            self.records,
            self.bots,
            self.identities,
        )
        self.sockets = Sockets(services, self.connections)
        self.routes = Routes(
            settings,
            self.store,
            self.metrics,
            self.records,
            self.maintenance,
            self.tasks,
            self.reviews,
        )
        self.ws_server: Server | None = None
        self._maintenance: asyncio.Task[None] | None = None
        store.set_handler(self._on_store_message)
        self.metrics.watch(
            roles=lambda: (c.role for c in self.connections),
            phases=lambda: (live.room.phase for live in self.lobby.rooms.values()),
            waiting=self.lobby.waiting_by_size,
            store_up=lambda: self.maintenance.store_up,
        )

    @property
    def closing(self) -> bool:
        """True once shutdown began: nothing new is scheduled after that."""
        return self.tasks.closing

    @property
    def store_up(self) -> bool:
        return self.maintenance.store_up

    async def handle(self, ws: GameSocket) -> None:
        """Serve one WebSocket connection until it closes (see :class:`Sockets`)."""
        await self.sockets.handle(ws)

    async def _on_store_message(self, channel: str, message: Message) -> None:
        """Route what the store announces: a room's news, a quick-play match, an admin order."""
        if channel.startswith("room:"):
            await self.lobby.announced(channel[5:], message)
        elif channel.startswith("proc:") and message.get("kind") == "matched":
            await self.lobby.matched(message)
        elif channel == "admin":
            await admin.on_message(self.lobby, self.connections, message)

    async def shutdown(self) -> None:
        """Stop accepting, tell every client, and close (the store keeps the rooms).

        Every connection closes at the same time, all within ``shutdown_timeout`` seconds:
        the TCP connections of peers that have not completed the closing handshake by then
        are dropped. Connection handlers then get a moment to finish their cleanup.
        """
        if self.tasks.closing:
            return
        self.tasks.closing = True
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settings.shutdown_timeout
        if self._maintenance is not None:
            self._maintenance.cancel()
        if self.ws_server is not None:
            # Stop listening before anyone is told: websockets closes its listener in a task
            # of its own, and a client told "closing" may reconnect at once.
            self.ws_server.server.close()
            self.ws_server.close(close_connections=False)
        closing = frame(Closing, reason="The server is restarting; reconnect shortly.")
        conns = list(self.connections)
        for conn in conns:
            if conn.open:
                conn.send(closing)
        closes = [asyncio.ensure_future(_close_for_shutdown(conn)) for conn in conns]
        if closes:
            await asyncio.wait(closes, timeout=max(0.0, deadline - loop.time()))
        for task in closes:
            task.cancel()
        dropped = 0
        for conn in conns:
            if conn.ws.state is not State.CLOSED:
                conn.ws.transport.abort()
                dropped += 1
        if dropped:
            log.warning("shutdown: dropped %d connections that did not close in time", dropped)
        if self.ws_server is not None:
            # Every handler finishes its cleanup (after an abort that is at once); a
            # handshake still in progress is not waited for past the deadline.
            wait = max(deadline - loop.time(), _CLEANUP_WAIT)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self.ws_server.wait_closed()), wait)
        for live in list(self.lobby.rooms.values()):
            live.close()
        await self.tasks.finish(max(deadline - loop.time(), _CLEANUP_WAIT))  # records
        self.tasks.cancel_all()
        self.bots.shutdown()
        await self.store.close()


async def _close_for_shutdown(conn: RoomConnection) -> None:
    """Send what is queued for ``conn`` (the ``closing`` notice), then close it (1001)."""
    await conn.flush(1.0)
    await conn.ws.close(1001, "server shutting down")


async def make_store(settings: Settings) -> Store:
    """The store the settings ask for: Redis when a URL is given, memory otherwise."""
    if settings.redis_url:
        import importlib

        redis_store = importlib.import_module("server.store.redis_store")
        try:
            store: Store = redis_store.RedisStore(settings.redis_url, settings.redis_prefix)
        except ValueError as exc:
            raise SystemExit(f"kings-corner: bad --redis-url: {exc}") from None
        return store
    from .store.memory import MemoryStore

    return MemoryStore()


async def start_server(settings: Settings, store: Store | None = None) -> GameServer:
    """Start serving; ``settings.port`` 0 picks a free port (read it from ``server.port``)."""
    if store is None:
        store = await make_store(settings)
    game = GameServer(settings, store)
    try:
        await store.subscribe(f"proc:{settings.process_id}")
        await store.subscribe("admin")
    except StoreUnavailable:
        log.warning("store unreachable at start; serving anyway and retrying")
    game._maintenance = asyncio.create_task(game.maintenance.run())
    game.ws_server = await serve(
        game.handle,  # type: ignore[arg-type]  # each connection is a GameSocket
        settings.host,
        settings.port,
        process_request=game.routes.process_request,
        create_connection=GameSocket,
        origins=settings.origin_list,  # type: ignore[arg-type]
        compression=None,
        extensions=deflate_extensions(settings),
        # Frames larger than max_message are answered (bad_message, too_large); only past
        # this hard cap does websockets stop reading and close with 1009.
        max_size=settings.max_message * HARD_CAP,
        ping_interval=settings.ping_interval,
        ping_timeout=settings.ping_timeout,
        close_timeout=settings.close_timeout,
        server_header=SERVER_NAME,
        backlog=settings.backlog,
    )
    return game


def deflate_extensions(settings: Settings) -> list[IdleFreeDeflateFactory] | None:
    """permessage-deflate as ``settings`` ask, or None (compression off).

    While frames go out, the server keeps one compressor per connection, of the configured
    window and memory level, so each patch compresses against the frames before it, and
    drops it after ``compression_idle`` quiet seconds; clients are asked to compress each
    frame on its own (``client_no_context_takeover``), so the server keeps no decompressor
    between their frames.
    """
    if not settings.compression:
        return None
    bits = settings.compression_window_bits
    return [
        IdleFreeDeflateFactory(
            settings.compression_idle,
            server_max_window_bits=bits,
            client_max_window_bits=bits,
            client_no_context_takeover=True,
            compress_settings={
                "memLevel": settings.compression_mem_level,
                "level": settings.compression_level,
            },
        )
    ]


def port_of(game: GameServer) -> int:
    assert game.ws_server is not None
    sock = next(iter(game.ws_server.sockets))
    port: int = sock.getsockname()[1]
    return port


#: Allocations between two collections of the youngest generation (Python's default: 700).
GC_YOUNG = 50_000


def tune_gc() -> None:
    """Collect less often: nearly everything a move allocates (views, patches, frames)
    is freed by reference counting within the move, so frequent collections find little,
    yet each older collection walks every room's documents. At 1,000 rooms the default
    thresholds cost about a fifth of the server's CPU (docs/performance.md). What is
    alive at start-up is frozen out of collections for good."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG, middle, old)


async def run(settings: Settings) -> None:
    """Serve until SIGINT or SIGTERM, then shut down gracefully."""
    game = await start_server(settings)
    tune_gc()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    log.info("serving on http://%s:%d/", settings.host, port_of(game))
    print(f"kings-corner serving on http://{settings.host}:{port_of(game)}/", flush=True)
    await stop.wait()
    await game.shutdown()
