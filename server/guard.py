"""Slowing down the guessing of room codes: failed joins per connection and per address.

A ``join`` that names no room (``room_not_found``) or a wrong seat token (``bad_token``) is
a *failed join*. Each connection may fail ``join_failures`` joins per
``join_failure_window`` seconds, and each client address has a token bucket of
``join_address_burst`` failures refilled at ``join_address_rate`` per second. A join asked
for once either is used up is refused with ``rate_limited`` and the connection is closed
with 1008; nothing is looked up. People who mistype a code a few times never notice.

The client address is the TCP peer, or, when the peer is one of ``trusted_proxies``, the
last address in ``X-Forwarded-For`` that is not a trusted proxy. IPv6 clients are counted
by their /64 network, which one host usually holds whole. The table of addresses is
bounded: an entry whose bucket has filled up again is forgotten, and past
``join_address_table`` entries the least recently used one goes.
"""

from __future__ import annotations

import ipaddress
import time
from collections import OrderedDict, deque
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .config import Network, Settings, parse_networks

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

    from .connection import Connection
    from .metrics import Metrics

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

#: The join errors that count as failed joins (a guess that missed).
FAILURES = frozenset({"room_not_found", "bad_token"})


class TokenBucket:
    """``burst`` tokens, refilled at ``rate`` per second; :meth:`take` spends one."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: float, now: float | None = None) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.stamp = time.monotonic() if now is None else now

    def level(self, now: float) -> float:
        """The tokens the bucket holds at ``now`` (without spending any)."""
        return min(self.burst, self.tokens + (now - self.stamp) * self.rate)

    def take(self, now: float | None = None) -> bool:
        """Spend one token; False (and nothing spent) when fewer than one is left."""
        now = time.monotonic() if now is None else now
        self.tokens = self.level(now)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


def _parse_ip(text: str) -> Address | None:
    """An address as proxies write it: bare, ``v4:port``, ``[v6]`` or ``[v6]:port``."""
    text = text.strip()
    if text.startswith("["):
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _trusted(address: Address, proxies: Iterable[Network]) -> bool:
    return any(address in network for network in proxies)


def client_address(
    peer: str | None, forwarded: Iterable[str], proxies: tuple[Network, ...]
) -> Address | None:
    """The client's address: ``peer``, unless it is a trusted proxy; then the last
    address of the ``X-Forwarded-For`` values (``forwarded``, in header order) that is not
    a trusted proxy. Entries further left were written by the client and prove nothing.

    An entry that is not an address makes the hop that reported it the client.
    """
    address = _parse_ip(peer) if peer else None
    if address is None or not proxies or not _trusted(address, proxies):
        return address
    hops = [hop for value in forwarded for hop in value.split(",") if hop.strip()]
    for hop in reversed(hops):
        parsed = _parse_ip(hop)
        if parsed is None:
            return address
        address = parsed
        if not _trusted(address, proxies):
            return address
    return address


def address_key(address: Address | None) -> str:
    """The key a client is counted under: IPv4 addresses whole, IPv6 by /64."""
    if address is None:
        return "?"
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


class JoinGuard:
    """The failed-join limits of one server process (see the module docstring)."""

    def __init__(self, settings: Settings, metrics: Metrics) -> None:
        self.settings = settings
        self.metrics = metrics
        self.proxies = parse_networks(settings.trusted_proxies)
        #: Address key -> its bucket, least recently touched first.
        self.addresses: OrderedDict[str, TokenBucket] = OrderedDict()

    def address_of(self, ws: ServerConnection) -> str:
        """The key of the client behind ``ws`` (see :func:`client_address`)."""
        remote = ws.remote_address
        peer = str(remote[0]) if remote else None
        forwarded: list[str] = []
        if self.proxies and ws.request is not None:
            forwarded = ws.request.headers.get_all("X-Forwarded-For")
        return address_key(client_address(peer, forwarded, self.proxies))

    def refused(self, conn: Connection[Any]) -> str | None:
        """Which limit a new join of ``conn`` is over (``connection``/``address``), if any."""
        now = time.monotonic()
        failures = conn.join_failures
        if (
            failures is not None
            and len(failures) == failures.maxlen
            and now - failures[0] < self.settings.join_failure_window
        ):
            return "connection"
        bucket = self.addresses.get(conn.address)
        if bucket is not None and bucket.level(now) < 1:
            return "address"
        return None

    def failed(self, conn: Connection[Any], code: str) -> None:
        """Count one failed join of ``conn``."""
        now = time.monotonic()
        settings = self.settings
        self.metrics.count(self.metrics.failed_joins, code)
        if conn.join_failures is None:
            conn.join_failures = deque(maxlen=max(1, settings.join_failures))
        conn.join_failures.append(now)
        table = self.addresses
        bucket = table.pop(conn.address, None)
        if bucket is None:
            bucket = TokenBucket(settings.join_address_rate, settings.join_address_burst, now)
        bucket.take(now)
        table[conn.address] = bucket
        self._prune(now)

    def _prune(self, now: float) -> None:
        """Forget buckets that are full again (as good as new), then the oldest past the cap."""
        table = self.addresses
        while table:
            oldest = next(iter(table.values()))
            if oldest.level(now) < oldest.burst:
                break
            table.popitem(last=False)
        while len(table) > max(1, self.settings.join_address_table):
            table.popitem(last=False)
