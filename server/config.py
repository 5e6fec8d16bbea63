"""Server settings: the only place that reads the command line and the environment."""

from __future__ import annotations

import argparse
import ipaddress
import os
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True, slots=True)
class Settings:
    """Every tunable of the server, with the defaults a public deployment wants.

    Each field can be set by ``--flag`` (dashes) or by the environment variable
    ``KC_<FIELD>`` (upper case); ``REDIS_URL`` is also read for ``redis_url``.
    """

    host: str = "127.0.0.1"
    port: int = 8000
    #: No URL: the embedded in-memory store. ``redis://`` (one Redis), ``redis+cluster://``
    #: (a Cluster's seed nodes) or ``redis+sentinel://`` (Sentinels and master name).
    redis_url: str | None = None
    #: Seconds a bot waits before each action, so people can follow (0 in tests).
    bot_delay: float = 0.7
    #: Seconds a disconnected player keeps the seat before a bot plays it.
    grace: float = 30.0
    #: Seconds between the end of a hand and the next deal (unless someone asks sooner).
    hand_pause: float = 8.0
    #: Seconds a room with nobody connected lives on before it is deleted.
    room_ttl: float = 1800.0
    #: Turn timers run out in a row before a connected player is marked away.
    idle_turns: int = 2
    #: Seconds a quick-play ticket waits for people before bots fill the table.
    queue_wait: float = 15.0
    #: Largest accepted client frame, in bytes (bigger frames close with 1009).
    max_message: int = 16384
    #: Outgoing frames buffered per connection before a slow client is dropped.
    send_queue: int = 512
    #: Token bucket per connection: sustained messages per second and burst size.
    rate: float = 20.0
    burst: int = 40
    #: Spectators per room.
    max_spectators: int = 100
    #: Comma-separated allowed Origin values for browsers ("" allows any origin).
    origins: str = ""
    #: Keepalive ping interval and timeout, in seconds.
    ping_interval: float = 20.0
    ping_timeout: float = 20.0
    #: Seconds to wait for a peer's closing handshake before dropping the TCP connection.
    close_timeout: float = 2.0
    #: Rooms one connection may create.
    rooms_per_connection: int = 20
    #: Level of the three bots of the daily deal, and the match's target.
    daily_level: str = "hard"
    daily_target: int = 25
    #: Worker processes bots think in, at a lower CPU priority, started at the first bot
    #: decision (0: threads of the server process, which stall its event loop meanwhile).
    bot_workers: int = 1
    #: Whether those workers also join Linux's ``SCHED_IDLE`` class (they then run only on
    #: CPU time nothing else wants; off: they are only niced). Off suits a host whose cores
    #: other work keeps busy, where idle-class bots of unwatched rooms may wait minutes.
    bot_idle_class: bool = True
    #: Worker processes at the server's own priority for the bot turns a person waits for
    #: (and hints), each decision within the bot's think budget; 0: those go to the idle
    #: workers too. One was not enough for ten rooms of people against expert bots (their
    #: decisions queued behind each other); four made the longest waits beside two busy
    #: processes worse than two did (docs/performance.md).
    urgent_workers: int = 2
    #: Whether this process reviews the matches people play (the coach): each hand as it
    #: ends, in review workers of its own (docs/coach.md). Off: no review CPU here, and a
    #: review asked for is answered 503 ``reviews_off``.
    reviews: bool = True
    #: The review tier (``kings-corner worker``, docs/coach.md): with a Redis store, game
    #: servers compute no reviews but add them as jobs to a stream that workers take them
    #: from. Jobs one worker computes at once, each in a process of its own.
    review_consumers: int = 1
    #: Seconds a job may stay taken by a worker without a sign of life before another
    #: worker takes it over (a worker renews its jobs every third of it while computing).
    review_lease: float = 30.0
    #: Review jobs the stream keeps at most, about (older ones are trimmed; a match's
    #: review lost that way is added again when somebody asks for it).
    review_backlog: int = 10000
    #: Hints one seat may ask for in one turn (the same position's hint is answered again free).
    hints_per_turn: int = 3
    #: Failed joins (``room_not_found``, ``bad_token``, ``bad_recovery_code``) one connection
    #: may make per window of seconds; its next join or recover is refused and the
    #: connection closed (1008).
    join_failures: int = 10
    join_failure_window: float = 60.0
    #: Failed joins per client address: a token bucket of this burst, refilled per second.
    #: Once it is empty, joins and recovers from the address wait and are looked up one at
    #: a time as it refills (a right code waits seconds; guesses go at this rate at most).
    join_address_burst: int = 30
    join_address_rate: float = 0.2
    #: Joins and recovers of one address that may wait for its empty bucket at once; one
    #: more is refused with ``rate_limited`` and ``retry_after`` (the connection stays open).
    join_address_queue: int = 4
    #: Client addresses the failed-join table remembers at most.
    join_address_table: int = 50000
    #: Comma-separated addresses or networks of reverse proxies whose ``X-Forwarded-For`` is
    #: believed; empty believes nobody (the TCP peer is the client).
    trusted_proxies: str = ""
    #: Chat lines per second, and burst, that one room accepts in this process.
    room_chat_rate: float = 5.0
    room_chat_burst: int = 10
    #: Seconds a shutdown waits for connections to close before dropping those left.
    shutdown_timeout: float = 5.0
    #: Pending TCP connections the listening socket queues (a reconnect storm after a
    #: restart opens thousands at once; the kernel may cap it, see net.core.somaxconn).
    backlog: int = 2048
    #: permessage-deflate compression (off: it costs CPU and memory per connection; see
    #: docs/performance.md for the trade).
    compression: bool = False
    #: The compressor's window (2**bits bytes, 9-15) and zlib memory level (1-9) of each
    #: connection: what one connection keeps between frames. Clients compress without
    #: keeping a context (their frames are small), so the server keeps no decompressor.
    compression_window_bits: int = 13
    compression_mem_level: int = 4
    #: zlib's compression level (1-9): how hard each frame is searched for repeats (CPU per
    #: frame, not memory). 9 against zlib's default 6: 39 bytes a move on the wire instead
    #: of 42, for CPU the load driver could not tell apart (docs/performance.md).
    compression_level: int = 9
    #: Seconds without an outgoing frame after which a connection's compressor is dropped
    #: (the next frame starts a new one): idle connections keep no zlib memory.
    compression_idle: float = 5.0
    #: Run on uvloop's event loop (libuv, in C) when it is installed; off: asyncio's own.
    uvloop: bool = True
    #: Key and channel prefix in Redis (several deployments can share one Redis).
    redis_prefix: str = "kc"
    #: Seconds of a lease on driving a room's bots and timers (several processes).
    lease: float = 5.0
    #: Seconds between maintenance rounds: presence heartbeats, catching up with the store,
    #: restarting bot turns a dead process was driving.
    tick: float = 1.0
    #: Bearer token of the admin endpoints and CLI; empty disables them.
    admin_token: str = ""
    #: Log level and format ("json" lines, or "text").
    log_level: str = "INFO"
    log_format: str = "json"
    #: Name of this process among several; random when not set.
    process_id: str = field(default_factory=lambda: secrets.token_hex(4))

    @property
    def origin_list(self) -> list[str | None] | None:
        """Allowed Origins; None (no header) stays allowed: only browsers send Origin, and
        the allowlist exists to stop other sites' pages, not our terminal client or bots."""
        items: list[str | None] = [o.strip() for o in self.origins.split(",") if o.strip()]
        return [*items, None] if items else None


def _convert(kind: Any, text: str) -> Any:
    if kind in (int, "int"):
        return int(text)
    if kind in (float, "float"):
        return float(text)
    if kind in (bool, "bool"):
        return text.strip().lower() in ("1", "true", "yes", "on")
    return text


def load(
    argv: Sequence[str] = (), env: Mapping[str, str] | None = None, prog: str = "kings-corner serve"
) -> Settings:
    """Settings from flags, then ``KC_*`` environment variables, then the defaults."""
    env = os.environ if env is None else env
    parser = argparse.ArgumentParser(prog=prog)
    for f in fields(Settings):
        parser.add_argument("--" + f.name.replace("_", "-"), dest=f.name, default=None)
    args = parser.parse_args(list(argv))
    values: dict[str, Any] = {}
    for f in fields(Settings):
        raw = getattr(args, f.name)
        if raw is None:
            raw = env.get("KC_" + f.name.upper())
        if raw is None and f.name == "redis_url":
            raw = env.get("REDIS_URL")
        if raw is not None and raw != "":
            kind = f.type.replace(" | None", "") if isinstance(f.type, str) else f.type
            values[f.name] = _convert(kind, raw)
    settings = Settings(**values)
    try:
        parse_networks(settings.trusted_proxies)
    except ValueError as exc:
        parser.error(f"--trusted-proxies: {exc}")
    return settings


def parse_networks(text: str) -> tuple[Network, ...]:
    """Comma-separated addresses or networks (``10.0.0.5``, ``172.16.0.0/12``, ``::1``).

    Raises ValueError naming the first entry that is neither.
    """
    networks: list[Network] = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(f"{item!r} is not an IP address or network") from None
    return tuple(networks)
