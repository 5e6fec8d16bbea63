"""Prometheus metrics of one server process (``GET /metrics``).

Each :class:`Metrics` has its own registry, so several servers in one process (tests) never
share counters. Label values are bounded sets (roles, phases, error codes, store
operations): never room codes or names.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class Metrics:
    """Every metric of the server, registered on a private registry."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.actions = Counter(
            "kc_actions",
            "Game actions received, by outcome and error code",
            ["outcome", "code"],
            registry=r,
        )
        self.act_latency = Histogram(
            "kc_act_to_patch_seconds",
            "From receiving an action to queueing the resulting patch",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.bot_decision = Histogram(
            "kc_bot_decision_seconds",
            "Time a bot took to choose an action, by level",
            ["level"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.store_latency = Histogram(
            "kc_store_operation_seconds",
            "Store operation latency, by operation",
            ["operation"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.store_errors = Counter(
            "kc_store_errors",
            "Store operations that failed, by operation",
            ["operation"],
            registry=r,
        )
        self.queue_wait = Histogram(
            "kc_matchmaking_wait_seconds",
            "Time from quick play to a seat at a table",
            buckets=(0.1, 0.5, 1, 2, 5, 10, 20, 30, 60, 120),
            registry=r,
        )
        #: Frames and their bytes handed to clients' connections; plain integers, because
        #: they change once per frame per connection (exported by the live collector).
        self.frames_out = 0
        self.bytes_out = 0
        self.dropped = Counter(
            "kc_dropped_slow_clients", "Connections closed for falling behind", registry=r
        )
        self.messages = Counter(
            "kc_messages", "Client messages received, by type", ["type"], registry=r
        )
        self.failed_joins = Counter(
            "kc_failed_joins",
            "Joins refused as room_not_found or bad_token, by code",
            ["code"],
            registry=r,
        )
        self.join_limited = Counter(
            "kc_join_limited",
            "Connections closed for too many failed joins, by limit (connection or address)",
            ["limit"],
            registry=r,
        )
        self._children: dict[tuple[int, tuple[str, ...]], Any] = {}

    def sent(self, frame: bytes) -> None:
        """Count one frame handed to a connection."""
        self.frames_out += 1
        self.bytes_out += len(frame)

    def count(self, counter: Counter, *labels: str) -> None:
        """Add one to ``counter`` under ``labels``."""
        self._child(counter, labels).inc()

    def _child(self, metric: Counter | Histogram, labels: tuple[str, ...]) -> Any:
        """The labelled child of ``metric``, made once (``labels()`` costs a lock each call)."""
        key = (id(metric), labels)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*labels)
        return child

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
        self._child(self.store_latency, (operation,)).observe(seconds)

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


class MeteredStore:
    """A store wrapper that times every operation and counts failures."""

    def __init__(self, store: Any, metrics: Metrics) -> None:
        self._store = store
        self._metrics = metrics

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._store, name)
        if name.startswith("_") or not callable(target) or name == "set_handler":
            return target

        async def timed(*args: Any, **kwargs: Any) -> Any:
            with self._metrics.time_store(name):
                return await target(*args, **kwargs)

        setattr(self, name, timed)  # found directly from now on, without __getattr__
        return timed
