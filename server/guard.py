"""Slowing down the guessing of room codes and recovery codes: failed joins per connection
and per client address.

A ``join`` that names no room (``room_not_found``) or a wrong seat token (``bad_token``),
and a ``recover`` with a code that belongs to nobody (``bad_recovery_code``), is a *failed
join*. Two limits apply to them:

- **Per connection**: a connection may fail ``join_failures`` joins per
  ``join_failure_window`` seconds. Its next join or recovery is refused with
  ``rate_limited`` and the connection is closed with 1008; nothing is looked up. That
  connection is one guesser.
- **Per client address**: a token bucket of ``join_address_burst`` tokens refilled at
  ``join_address_rate`` per second, shared by every connection from the address. Every
  lookup takes a token *before* it starts (so joins arriving at once cannot overshoot the
  budget) and a lookup that did not fail gives it back. While the bucket is empty, joins
  and recoveries are not refused but wait, first come first served, and are looked up one
  at a time as the bucket refills: a right code waits seconds, and guessing from one
  address goes no faster than ``join_address_rate``. At most ``join_address_queue``
  requests of one address wait for the refill; one more is refused with ``rate_limited``
  and a ``retry_after`` (seconds), and its connection stays open. While lookups are under
  way, requests wait for their outcome rather than being judged early (each right code
  gives its token back: many people behind one address reconnecting at once all get in);
  a failed lookup trims the line back to its limit.

People who mistype a code a few times never notice either limit.

The client address is the TCP peer, or, when the peer is one of ``trusted_proxies``, the
last address in ``X-Forwarded-For`` that is not a trusted proxy. IPv6 clients are counted
by their /64 network, which one host usually holds whole. The table of addresses is
bounded: an entry whose bucket has filled up again (and that nobody waits on) is forgotten,
and past ``join_address_table`` entries the least recently used one goes. Waiting costs a
future per waiting request and a timer per address with waiting requests, nothing else.
"""

from __future__ import annotations

import asyncio
import ipaddress
import math
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from websockets.exceptions import ConnectionClosed

from protocol.errors import ClientError, RateLimited

from .config import Network, Settings, parse_networks

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

    from .connection import Connection
    from .metrics import Metrics

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

#: The errors that count as failed joins (a guess that missed).
FAILURES = frozenset({"room_not_found", "bad_token", "bad_recovery_code"})


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

    def give(self, now: float | None = None) -> None:
        """Give one token back (never past ``burst``)."""
        now = time.monotonic() if now is None else now
        self.tokens = min(self.burst, self.level(now) + 1)
        self.stamp = now


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


class AddressBudget:
    """The failed-join budget of one client address: its bucket and who waits on it."""

    __slots__ = ("bucket", "key", "lookups", "timer", "waiting")

    def __init__(self, key: str, bucket: TokenBucket) -> None:
        self.key = key
        self.bucket = bucket
        #: Lookups under way, each holding a token it gives back unless it fails.
        self.lookups = 0
        #: Requests waiting for a token, first come first served: each one's future (True:
        #: a token is reserved for it; False: its connection went away; None: refused, the
        #: line was trimmed) and its connection.
        self.waiting: deque[tuple[asyncio.Future[bool | None], Connection[Any]]] = deque()
        #: The wake-up of the first waiting request, while one waits.
        self.timer: asyncio.TimerHandle | None = None

    def queued(self) -> int:
        """How many requests wait, once those that no longer do are dropped."""
        waiting = self.waiting
        for _ in range(len(waiting)):
            future, conn = waiting.popleft()
            if future.done():
                continue
            if not conn.open:
                future.set_result(False)
                continue
            waiting.append((future, conn))
        return len(waiting)

    def idle(self, now: float) -> bool:
        """Full again and nobody waiting: as good as a new entry."""
        return not self.waiting and self.bucket.level(now) >= self.bucket.burst

    def line_limit(self, now: float, queue: int) -> int:
        """How many requests may wait: ``queue`` for the refill, and one more for each
        token a lookup under way may give back (a right code does)."""
        return queue + math.floor(self.bucket.level(now) + self.lookups)

    def until_token(self, now: float) -> float:
        """Seconds until the bucket holds a whole token (infinite when it never refills)."""
        missing = 1 - self.bucket.level(now)
        if missing <= 0:
            return 0.0
        rate = self.bucket.rate
        return missing / rate if rate > 0 else math.inf


class JoinGuard:
    """The failed-join limits of one server process (see the module docstring).

    A command that looks up a room or a recovery code asks :meth:`closes` first (a
    connection over its own limit is refused and closed), then runs the lookup inside
    :meth:`lookup`.
    """

    def __init__(self, settings: Settings, metrics: Metrics) -> None:
        self.settings = settings
        self.metrics = metrics
        self.proxies = parse_networks(settings.trusted_proxies)
        #: Address key -> its budget, least recently touched first.
        self.addresses: OrderedDict[str, AddressBudget] = OrderedDict()

    def address_of(self, ws: ServerConnection) -> str:
        """The key of the client behind ``ws`` (see :func:`client_address`)."""
        remote = ws.remote_address
        peer = str(remote[0]) if remote else None
        forwarded: list[str] = []
        if self.proxies and ws.request is not None:
            forwarded = ws.request.headers.get_all("X-Forwarded-For")
        return address_key(client_address(peer, forwarded, self.proxies))

    def closes(self, conn: Connection[Any]) -> bool:
        """True when ``conn`` failed ``join_failures`` joins within the window: its next
        join or recovery is to be refused without a lookup and the connection closed."""
        failures = conn.join_failures
        return (
            failures is not None
            and len(failures) == failures.maxlen
            and time.monotonic() - failures[0] < self.settings.join_failure_window
        )

    @asynccontextmanager
    async def lookup(self, conn: Connection[Any]) -> AsyncIterator[None]:
        """Around one lookup of a room or recovery code for ``conn``.

        Takes a token of the address's budget before the block runs, waiting for one in
        line while the bucket is empty. The token is given back unless the block raises a
        failed join (a :class:`ClientError` whose code is in :data:`FAILURES`), which is
        counted for the connection and the metrics.

        Raises ``rate_limited`` (``reason: failed_joins``, ``retry_after`` in whole seconds)
        without running the block when ``join_address_queue`` requests of the address wait
        already, and ``ConnectionClosed`` when the connection went away while it waited.
        """
        budget = await self._turn(conn)
        failed: str | None = None
        try:
            yield
        except ClientError as exc:
            if exc.code in FAILURES:
                failed = exc.code
            raise
        finally:
            if failed is not None:
                budget.lookups -= 1  # its token stays spent
                self._failed(conn, failed)
                self._trim(budget)
            else:
                self._refund(budget)

    async def _turn(self, conn: Connection[Any]) -> AddressBudget:
        """Reserve a token of ``conn``'s address for one lookup (see :meth:`lookup`)."""
        now = time.monotonic()
        budget = self._budget(conn.address, now)
        queued = budget.queued()
        if not queued and budget.bucket.take(now):
            budget.lookups += 1
            return budget
        wait = budget.until_token(now)
        # While lookups are under way the line is not judged yet: each may give its token
        # back (many right codes at once: a school reconnecting after a restart). Those
        # who wait then are bounded by the address's connections, each asking one thing
        # at a time; a failed lookup trims the line to its limit (:meth:`_trim`).
        if not budget.lookups and (
            queued >= self.settings.join_address_queue or not math.isfinite(wait)
        ):
            raise self._refusal(wait)
        self.metrics.count(self.metrics.join_limited, "queued")
        future: asyncio.Future[bool | None] = asyncio.get_running_loop().create_future()
        budget.waiting.append((future, conn))
        self._wake_later(budget, now)
        # A connection that goes away leaves the line at once (and a shutdown waits for no
        # timer): one task per waiting request, bounded like the line.
        closed = asyncio.ensure_future(conn.ws.wait_closed())
        try:
            await asyncio.wait((future, closed), return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            if future.done() and not future.cancelled() and future.result():
                self._refund(budget)  # handed a token just as it was cancelled
            raise
        finally:
            closed.cancel()
            if not future.done():
                future.cancel()  # out of the line: the wake-up skips it
        answer = None if future.cancelled() else future.result()
        if answer is None and not future.cancelled() and conn.open:
            raise self._refusal(budget.until_token(time.monotonic()))
        if answer and conn.open:
            return budget
        if answer:
            self._refund(budget)
        raise ConnectionClosed(None, None)

    def _refusal(self, wait: float) -> RateLimited:
        """The answer to a request the line has no place for (``wait``: until a token)."""
        self.metrics.count(self.metrics.join_limited, "address")
        params: dict[str, int] = {}
        if math.isfinite(wait):
            params["retry_after"] = max(1, math.ceil(wait))
        return RateLimited(
            "Too many failed joins from this address; try again in a few seconds.",
            reason="failed_joins",
            **params,
        )

    def _trim(self, budget: AddressBudget) -> None:
        """A lookup failed (its token stays spent): the last ones waiting past the line's
        limit now are refused."""
        limit = budget.line_limit(time.monotonic(), self.settings.join_address_queue)
        if budget.bucket.rate <= 0:
            limit = math.floor(budget.bucket.level(time.monotonic()) + budget.lookups)
        budget.queued()
        while len(budget.waiting) > max(0, limit):
            future, _ = budget.waiting.pop()
            if not future.done():
                future.set_result(None)

    def _budget(self, key: str, now: float) -> AddressBudget:
        """The budget of address ``key`` (a full one if it has none), now the most recent."""
        table = self.addresses
        budget = table.pop(key, None)
        self._prune(now, room=1)
        if budget is None:
            settings = self.settings
            bucket = TokenBucket(settings.join_address_rate, settings.join_address_burst, now)
            budget = AddressBudget(key, bucket)
        table[key] = budget
        return budget

    def _wake_later(self, budget: AddressBudget, now: float) -> None:
        """Make sure a timer hands the next token to the first waiting request."""
        if budget.timer is not None or not budget.waiting:
            return
        delay = budget.until_token(now)
        if math.isfinite(delay):
            budget.timer = asyncio.get_running_loop().call_later(delay, self._wake, budget)

    def _wake(self, budget: AddressBudget) -> None:
        """Hand each whole token to the first waiting request, in order."""
        if budget.timer is not None:
            budget.timer.cancel()  # called early (a token came back): one timer at a time
            budget.timer = None
        now = time.monotonic()
        waiting = budget.waiting
        while waiting:
            future, conn = waiting[0]
            if future.done():
                waiting.popleft()
            elif not conn.open:
                waiting.popleft()
                future.set_result(False)
            elif budget.bucket.take(now):
                waiting.popleft()
                budget.lookups += 1
                future.set_result(True)
            else:
                break
        self._wake_later(budget, now)

    def _refund(self, budget: AddressBudget) -> None:
        """A lookup that did not fail gives its token back (to whoever waits first)."""
        now = time.monotonic()
        budget.lookups -= 1
        budget.bucket.give(now)
        if budget.waiting:
            self._wake(budget)
        if budget.idle(now) and self.addresses.get(budget.key) is budget:
            del self.addresses[budget.key]  # a right code leaves no trace

    def _failed(self, conn: Connection[Any], code: str) -> None:
        """Count one failed join of ``conn`` (its address's token stays spent)."""
        now = time.monotonic()
        self.metrics.count(self.metrics.failed_joins, code)
        if conn.join_failures is None:
            conn.join_failures = deque(maxlen=max(1, self.settings.join_failures))
        conn.join_failures.append(now)
        self._prune(now)

    def _prune(self, now: float, room: int = 0) -> None:
        """Forget budgets that are as good as new, least recently used first, then the
        oldest past the cap, keeping ``room`` places free (requests waiting on a forgotten
        budget are still served)."""
        table = self.addresses
        while table and next(iter(table.values())).idle(now):
            table.popitem(last=False)
        while table and len(table) + room > max(1, self.settings.join_address_table):
            table.popitem(last=False)
