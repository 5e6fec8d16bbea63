"""Prometheus metrics of one server process (``GET /metrics``).

Each :class:`Metrics` has its own registry, so several servers in one process (tests) never
share counters. Label values are bounded sets (roles, phases, error codes, store
operations): never room codes or names.

Counters and histograms are plain numbers (:class:`PlainCounter`, :class:`PlainHistogram`)
turned into Prometheus samples when scraped: ``prometheus_client``'s own take a lock per
change, and a move changes four of them (about 5% of a move's CPU, docs/performance.md).
Only the event loop's thread changes them.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.registry import Collector

from .store.base import (
    AnnouncementStore,
    Handler,
    IdentityStore,
    MatchmakingStore,
    PresenceStore,
    RecordStore,
    RoomStore,
    SecretStore,
    StandingStore,
    Store,
)

P = ParamSpec("P")
R = TypeVar("R")

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class _CounterChild:
    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0.0

    def inc(self, amount: float = 1.0) -> None:
        self.value += amount


class _HistogramChild:
    __slots__ = ("bounds", "counts", "sum")

    def __init__(self, bounds: tuple[float, ...]) -> None:
        self.bounds = bounds
        #: Observations per bucket (not cumulative), the last one above every bound.
        self.counts = [0] * (len(bounds) + 1)
        self.sum = 0.0

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(self.bounds, value)] += 1
        self.sum += value


class _Family:
    """A metric's name, help, label names and its children by label values."""

    def __init__(self, name: str, documentation: str, labelnames: Sequence[str]) -> None:
        self.name = name
        self.documentation = documentation
        self.labelnames = tuple(labelnames)
        self.children: dict[tuple[str, ...], Any] = {}


class PlainCounter(_Family):
    """A counter (``name_total``), with or without labels."""

    def labels(self, *values: str) -> _CounterChild:
        child = self.children.get(values)
        if child is None:
            child = self.children[values] = _CounterChild()
        return child

    def inc(self, amount: float = 1.0) -> None:
        self.labels().inc(amount)

    def family(self) -> CounterMetricFamily:
        out = CounterMetricFamily(self.name, self.documentation, labels=self.labelnames)
        if not self.labelnames and not self.children:
            out.add_metric([], 0.0)
        for values, child in self.children.items():
            out.add_metric(list(values), child.value)
        return out


class PlainHistogram(_Family):
    """A histogram with fixed bucket bounds, with or without labels."""

    def __init__(
        self,
        name: str,
        documentation: str,
        labelnames: Sequence[str] = (),
        buckets: Sequence[float] = LATENCY_BUCKETS,
    ) -> None:
        super().__init__(name, documentation, labelnames)
        self.bounds = tuple(sorted(float(b) for b in buckets))

    def labels(self, *values: str) -> _HistogramChild:
        child = self.children.get(values)
        if child is None:
            child = self.children[values] = _HistogramChild(self.bounds)
        return child

    def observe(self, value: float) -> None:
        self.labels().observe(value)

    def family(self) -> HistogramMetricFamily:
        out = HistogramMetricFamily(self.name, self.documentation, labels=self.labelnames)
        children = self.children or (
            {(): _HistogramChild(self.bounds)} if not self.labelnames else {}
        )
        for values, child in children.items():
            buckets: list[tuple[str, float]] = []
            total = 0
            for bound, n in zip((*self.bounds, float("inf")), child.counts, strict=True):
                total += n
                buckets.append(("+Inf" if bound == float("inf") else repr(bound), total))
            out.add_metric(list(values), buckets, child.sum)
        return out


class _Plain(Collector):
    """The plain counters and histograms, as Prometheus samples at scrape time."""

    def __init__(self, families: list[_Family]) -> None:
        self.families = families

    def collect(self) -> Iterator[CounterMetricFamily | HistogramMetricFamily]:
        for family in self.families:
            assert isinstance(family, PlainCounter | PlainHistogram)
            yield family.family()


class Metrics:
    """Every metric of the server, registered on a private registry."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.actions = PlainCounter(
            "kc_actions", "Game actions received, by outcome and error code", ["outcome", "code"]
        )
        self.act_latency = PlainHistogram(
            "kc_act_to_patch_seconds", "From receiving an action to queueing the resulting patch"
        )
        self.bot_decision = PlainHistogram(
            "kc_bot_decision_seconds", "Time a bot took to choose an action, by level", ["level"]
        )
        self.store_latency = PlainHistogram(
            "kc_store_operation_seconds", "Store operation latency, by operation", ["operation"]
        )
        self.store_errors = PlainCounter(
            "kc_store_errors", "Store operations that failed, by operation", ["operation"]
        )
        self.queue_wait = PlainHistogram(
            "kc_matchmaking_wait_seconds",
            "Time from quick play to a seat at a table",
            buckets=(0.1, 0.5, 1, 2, 5, 10, 20, 30, 60, 120),
        )
        #: Frames and their bytes handed to clients' connections (exported by the live
        #: collector).
        self.frames_out = 0
        self.bytes_out = 0
        self.dropped = PlainCounter(
            "kc_dropped_slow_clients", "Connections closed for falling behind", []
        )
        self.messages = PlainCounter("kc_messages", "Client messages received, by type", ["type"])
        self.failed_joins = PlainCounter(
            "kc_failed_joins", "Joins refused as room_not_found or bad_token, by code", ["code"]
        )
        self.join_limited = PlainCounter(
            "kc_join_limited",
            "Connections closed for too many failed joins, by limit (connection or address)",
            ["limit"],
        )
        self.url_rooms = PlainCounter(
            "kc_url_rooms",
            "WebSocket connections by what their URL said about the room: none, a room code "
            "(the load balancer routed them by it), or invalid",
            ["kind"],
        )
        self.registry.register(
            _Plain(
                [
                    self.actions,
                    self.act_latency,
                    self.bot_decision,
                    self.store_latency,
                    self.store_errors,
                    self.queue_wait,
                    self.dropped,
                    self.messages,
                    self.failed_joins,
                    self.join_limited,
                    self.url_rooms,
                ]
            )
        )

    def sent(self, frame: bytes) -> None:
        """Count one frame handed to a connection."""
        self.frames_out += 1
        self.bytes_out += len(frame)

    def count(self, counter: PlainCounter, *labels: str) -> None:
        """Add one to ``counter`` under ``labels``."""
        counter.labels(*labels).inc()

    def watch(
        self,
        roles: Callable[[], Iterable[str]],
        phases: Callable[[], Iterable[str]],
        waiting: Callable[[], Mapping[int, int]],
        store_up: Callable[[], bool],
    ) -> None:
        """Add the gauges read at scrape time: the role of every open connection, the phase
        of every loaded room, quick-play tickets waiting by table size, the store's health."""
        self.registry.register(_LiveGauges(self, roles, phases, waiting, store_up))

    def render(self) -> bytes:
        return generate_latest(self.registry)

    def observe_store(self, operation: str, seconds: float) -> None:
        self.store_latency.labels(operation).observe(seconds)

    def time_store(self, operation: str) -> _StoreTimer:
        return _StoreTimer(self, operation)


class _StoreTimer:
    def __init__(self, metrics: Metrics, operation: str) -> None:
        self.metrics, self.operation = metrics, operation

    def __enter__(self) -> None:
        self.start = time.perf_counter()

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        metrics = self.metrics
        metrics.observe_store(self.operation, time.perf_counter() - self.start)
        if kind is not None:
            metrics.count(metrics.store_errors, self.operation)


class _LiveGauges(Collector):
    """Connections by role, rooms by phase and queue lengths, counted when scraped."""

    def __init__(
        self,
        metrics: Metrics,
        roles: Callable[[], Iterable[str]],
        phases: Callable[[], Iterable[str]],
        waiting: Callable[[], Mapping[int, int]],
        store_up: Callable[[], bool],
    ) -> None:
        self.metrics = metrics
        self.roles, self.phases, self.waiting, self.store_up = roles, phases, waiting, store_up

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        roles = GaugeMetricFamily("kc_connections", "Open connections by role", labels=["role"])
        counts: dict[str, int] = {"player": 0, "spectator": 0, "none": 0}
        for role in self.roles():
            counts[role] = counts.get(role, 0) + 1
        for role, n in counts.items():
            roles.add_metric([role], n)
        yield roles
        phases = GaugeMetricFamily(
            "kc_rooms", "Rooms loaded in this process by phase", labels=["phase"]
        )
        by_phase: dict[str, int] = {"lobby": 0, "playing": 0, "hand_over": 0, "finished": 0}
        for phase in self.phases():
            by_phase[phase] += 1
        for phase, n in by_phase.items():
            phases.add_metric([phase], n)
        yield phases
        waiting = GaugeMetricFamily(
            "kc_matchmaking_waiting", "Quick-play tickets waiting in this process", labels=["seats"]
        )
        for seats, n in self.waiting().items():
            waiting.add_metric([str(seats)], n)
        yield waiting
        up = GaugeMetricFamily("kc_store_up", "1 when the store answered the last check")
        up.add_metric([], 1 if self.store_up() else 0)
        yield up
        metrics = self.metrics
        yield CounterMetricFamily(
            "kc_sent_bytes", "Bytes of frames queued to clients", value=metrics.bytes_out
        )
        yield CounterMetricFamily(
            "kc_sent_frames", "Frames queued to clients", value=metrics.frames_out
        )


def _timed(
    method: Callable[Concatenate[Any, P], Awaitable[R]],
) -> Callable[Concatenate[MeteredStore, P], Coroutine[Any, Any, R]]:
    """A :class:`MeteredStore` method doing what the role's ``method`` does on the wrapped
    store, timed under the method's name. It takes the role method's signature, so the
    wrapper's methods are checked against the roles as any store's are."""
    name = method.__name__

    async def timed(self: MeteredStore, /, *args: P.args, **kwargs: P.kwargs) -> R:
        with self._metrics.time_store(name):
            result: R = await getattr(self._store, name)(*args, **kwargs)
            return result

    timed.__name__, timed.__qualname__ = name, f"MeteredStore.{name}"
    return timed


class MeteredStore:
    """A :class:`~server.store.base.Store` that does what the wrapped store does, timing
    every operation (``kc_store_operation_seconds``, labelled by the operation's name) and
    counting the failed ones (``kc_store_errors``). ``set_handler`` and ``inline`` pass
    through untimed.

    Each operation is written once, as ``_timed`` of the role's own declaration, in the
    order :class:`~server.store.base.Store` combines the roles.
    """

    def __init__(self, store: Store, metrics: Metrics) -> None:
        self._store = store
        self._metrics = metrics
        self.inline = store.inline

    @property
    def gaps(self) -> int:
        return self._store.gaps

    # RoomStore
    create_room = _timed(RoomStore.create_room)
    append = _timed(RoomStore.append)
    read = _timed(RoomStore.read)
    delete_room = _timed(RoomStore.delete_room)
    was_closed = _timed(RoomStore.was_closed)
    add_chat = _timed(RoomStore.add_chat)
    chat_lines = _timed(RoomStore.chat_lines)
    room_codes = _timed(RoomStore.room_codes)
    set_listing = _timed(RoomStore.set_listing)
    listings = _timed(RoomStore.listings)

    # AnnouncementStore
    def set_handler(self, handler: Handler) -> None:
        """Install the wrapped store's handler (not an operation: nothing to time)."""
        self._store.set_handler(handler)

    subscribe = _timed(AnnouncementStore.subscribe)
    unsubscribe = _timed(AnnouncementStore.unsubscribe)
    publish = _timed(AnnouncementStore.publish)

    # PresenceStore
    heartbeat = _timed(PresenceStore.heartbeat)
    presence = _timed(PresenceStore.presence)
    lead = _timed(PresenceStore.lead)
    resign = _timed(PresenceStore.resign)

    # MatchmakingStore
    queue_join = _timed(MatchmakingStore.queue_join)
    queue_leave = _timed(MatchmakingStore.queue_leave)
    queue_take = _timed(MatchmakingStore.queue_take)
    queue_length = _timed(MatchmakingStore.queue_length)

    # SecretStore
    secret = _timed(SecretStore.secret)

    # RecordStore
    save_match = _timed(RecordStore.save_match)
    get_match = _timed(RecordStore.get_match)
    save_review = _timed(RecordStore.save_review)
    get_review = _timed(RecordStore.get_review)
    save_review_hand = _timed(RecordStore.save_review_hand)
    get_review_hands = _timed(RecordStore.get_review_hands)
    player_matches = _timed(RecordStore.player_matches)
    claim_daily = _timed(RecordStore.claim_daily)
    record_daily = _timed(RecordStore.record_daily)
    daily_board = _timed(RecordStore.daily_board)
    record_result = _timed(RecordStore.record_result)
    alltime_board = _timed(RecordStore.alltime_board)

    # IdentityStore
    identity = _timed(IdentityStore.identity)
    set_name = _timed(IdentityStore.set_name)
    name_and_tag = _timed(IdentityStore.name_and_tag)
    names = _timed(IdentityStore.names)
    tags = _timed(IdentityStore.tags)
    set_recovery = _timed(IdentityStore.set_recovery)
    recover = _timed(IdentityStore.recover)

    # StandingStore
    ratings = _timed(StandingStore.ratings)
    update_ratings = _timed(StandingStore.update_ratings)
    rating_board = _timed(StandingStore.rating_board)

    # the store's own life
    ping = _timed(Store.ping)
    close = _timed(Store.close)


if TYPE_CHECKING:
    from .store.memory import MemoryStore

    # Never run: type-checking it proves the wrapper is a whole Store.
    _store: Store = MeteredStore(MemoryStore(), Metrics())
