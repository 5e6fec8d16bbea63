"""The load generator's worker process: scripted players over real WebSocket connections.

One worker drives a share of the rooms. Each room has 4 seats and 1 spectator, each its own
connection (raw ``websockets`` + ``orjson``). Every connection keeps its document in step
with a minimal RFC 6902 applier; a seat whose turn it is picks a random action from its
document's ``legal`` list and sends it, then waits for the patch answering its ``seq``
(one action in flight per room: a closed loop, as fast as the game allows, or paced by a
think time drawn uniformly from 0.5 to 1.5 times ``think`` seconds). The host deals the
next hand as soon as a hand ends and sets up a new match when one finishes.

It talks to the orchestrator (:mod:`benchmarks.load`) with lines: it prints ``{"ready"}``
once its rooms play, starts counting at ``go`` on stdin, stops at ``stop``, then asks
every connection for a fresh snapshot (their sizes, and a check that the patched documents
equal the server's) and prints its result as one JSON line.

Run by the orchestrator as ``python -m benchmarks._loadgen CONFIG_JSON``.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import sys
import time
from collections import Counter
from typing import Any

import orjson
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

PILES = frozenset({"N", "E", "S", "W", "NE", "SE", "SW", "NW"})
SEATS = 4
Doc = dict[str, Any]
#: Refusals of ``start`` worth retrying: players not ready yet, a store timing out.
RETRY_START = frozenset({"not_ready", "store_unavailable"})


def wire_action(text: str) -> dict[str, str]:
    """The wire form of an action in text notation: ``7H>N``, ``N>E`` or ``end``."""
    if text == "end":
        return {"type": "end_turn"}
    left, _, right = text.partition(">")
    if left in PILES:
        return {"type": "move", "from": left, "to": right}
    return {"type": "play", "card": left, "pile": right}


def _unescape(part: str) -> str:
    return part.replace("~1", "/").replace("~0", "~") if "~" in part else part


def apply_ops(doc: Any, ops: list[dict[str, Any]]) -> Any:
    """Apply RFC 6902 ``add``/``remove``/``replace`` operations in place; return the doc."""
    for op in ops:
        path = op["path"]
        kind = op["op"]
        if not path:
            if kind == "remove":
                raise ValueError("cannot remove the whole document")
            doc = op["value"]
            continue
        parts = path.split("/")
        target = doc
        for part in parts[1:-1]:
            target = target[int(part)] if isinstance(target, list) else target[_unescape(part)]
        last = parts[-1]
        if isinstance(target, list):
            index = len(target) if last == "-" else int(last)
            if kind == "add":
                target.insert(index, op["value"])
            elif kind == "replace":
                target[index] = op["value"]
            elif kind == "remove":
                del target[index]
            else:
                raise ValueError(f"unsupported op {kind!r}")
        else:
            key = _unescape(last)
            if kind in ("add", "replace"):
                target[key] = op["value"]
            elif kind == "remove":
                del target[key]
            else:
                raise ValueError(f"unsupported op {kind!r}")
    return doc


class Stats:
    """What one worker counts while ``measuring``."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget everything counted so far."""
        self.measuring = False
        self.started = 0.0
        self.window = 0.0
        self.cpu_start = 0.0
        self.cpu = 0.0
        self.moves = 0
        self.latencies: list[float] = []
        self.fanout: list[float] = []
        self.patch_sizes: dict[str, Counter[int]] = {"seat": Counter(), "spectator": Counter()}
        self.snapshot_sizes: dict[str, Counter[int]] = {"seat": Counter(), "spectator": Counter()}
        self.frames = 0
        self.bytes = 0
        self.errors: Counter[str] = Counter()
        self.refused = 0
        self.gaps = 0
        self.hands = 0
        self.matches = 0
        self.docs_checked = 0
        self.docs_mismatched = 0
        #: Bytes of a sample of patches by part: the ops, the log lines, the rest.
        self.patch_parts: dict[str, Counter[int]] = {
            "ops": Counter(),
            "log": Counter(),
            "envelope": Counter(),
        }
        self.sampled = 0

    def start(self) -> None:
        self.reset()
        self.measuring = True
        self.started = time.perf_counter()
        self.cpu_start = time.process_time()

    def stop(self) -> None:
        if self.measuring:
            self.measuring = False
            self.window = time.perf_counter() - self.started
            self.cpu = time.process_time() - self.cpu_start

    def result(self, rooms: int, failed: int, setup: float) -> dict[str, Any]:
        def hist(counter: Counter[int]) -> dict[str, int]:
            return {str(k): v for k, v in counter.items()}

        return {
            "rooms": rooms,
            "rooms_failed": failed,
            "setup_s": round(setup, 3),
            "window_s": self.window,
            "cpu_s": self.cpu,
            "moves": self.moves,
            "lat_us": [round(x * 1e6) for x in self.latencies],
            "fanout_us": [round(x * 1e6) for x in self.fanout],
            "patch_sizes": {k: hist(v) for k, v in self.patch_sizes.items()},
            "snapshot_sizes": {k: hist(v) for k, v in self.snapshot_sizes.items()},
            "frames": self.frames,
            "bytes": self.bytes,
            "errors": dict(self.errors),
            "refused": self.refused,
            "gaps": self.gaps,
            "hands": self.hands,
            "matches": self.matches,
            "docs_checked": self.docs_checked,
            "docs_mismatched": self.docs_mismatched,
            "patch_parts": {k: hist(v) for k, v in self.patch_parts.items()},
        }


STATS = Stats()


class Conn:
    """One client connection: a seat (0-3) or the spectator (None) of a room."""

    def __init__(self, room: Room, seat: int | None, url: str) -> None:
        self.room = room
        self.seat = seat
        self.kind = "spectator" if seat is None else "seat"
        self.url = url
        self.ws: ClientConnection | None = None
        self.doc: Doc | None = None
        self.version = 0
        self.pending: int | None = None
        self.sent_at = 0.0
        self.want_snapshot = False
        self._seq = itertools.count(1)
        self._waiters: dict[str, list[asyncio.Future[dict[str, Any]]]] = {}
        self._reader: asyncio.Task[None] | None = None

    async def open(self, timeout: float) -> None:
        """Connect, say hello and wait for the welcome."""
        self.ws = await connect(
            self.url,
            max_size=2**20,
            compression=None,
            ping_interval=None,
            open_timeout=timeout,
            close_timeout=1,
        )
        self._reader = asyncio.create_task(self._read())
        welcome = self.expect("welcome")
        await self.send({"type": "hello", "version": 1, "name": f"P{self.seat}"})
        await asyncio.wait_for(welcome, timeout)

    def expect(self, kind: str) -> asyncio.Future[dict[str, Any]]:
        """A future for the next frame of type ``kind`` (register before sending)."""
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiters.setdefault(kind, []).append(future)
        return future

    def forget(self, future: asyncio.Future[dict[str, Any]]) -> None:
        """Stop waiting with ``future``."""
        for futures in self._waiters.values():
            if future in futures:
                futures.remove(future)
        future.cancel()

    async def send(self, message: dict[str, Any]) -> None:
        assert self.ws is not None
        await self.ws.send(orjson.dumps(message), text=True)

    async def leave_for(self, reason: str) -> None:
        """Close with 1000 and ``reason`` (``moved``: the seat went to another connection)."""
        if self._reader is not None:
            self._reader.cancel()
        if self.ws is not None:
            await self.ws.close(1000, reason)

    def abort(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
        if self.ws is not None:
            self.ws.transport.abort()

    async def _read(self) -> None:
        assert self.ws is not None
        try:
            while True:
                data = await self.ws.recv(decode=False)
                await self._take(data)
        except Exception as exc:
            if not isinstance(exc, ConnectionClosed):
                sys.stderr.write(f"reader of room {self.room.index} seat {self.seat}: {exc!r}\n")
            for futures in self._waiters.values():
                for future in futures:
                    if not future.done():
                        future.set_exception(ConnectionError("connection closed"))
            self._waiters.clear()

    async def _take(self, data: bytes) -> None:
        frame = orjson.loads(data)
        kind = frame["type"]
        stats = STATS
        if stats.measuring:
            stats.frames += 1
            stats.bytes += len(data)
        if kind == "patch":
            if self.doc is None or frame["from"] != self.version:
                if frame["to"] > self.version:
                    stats.gaps += 1
                    self.pending = None
                    await self.send({"type": "resync"})
                return
            self.doc = apply_ops(self.doc, frame["ops"])
            self.version = frame["to"]
            now = time.perf_counter()
            if stats.measuring:
                stats.patch_sizes[self.kind][len(data)] += 1
                stats.sampled += 1
                if stats.sampled % 16 == 0:
                    ops = len(orjson.dumps(frame["ops"]))
                    log = len(orjson.dumps(frame.get("log") or []))  # left out when empty
                    stats.patch_parts["ops"][ops] += 1
                    stats.patch_parts["log"][log] += 1
                    stats.patch_parts["envelope"][len(data) - ops - log] += 1
            if self.seat is None:
                sent = self.room.sent_at.pop(frame["from"], None)
                if sent is not None and stats.measuring:
                    stats.fanout.append(now - sent)
            elif self.pending is not None and frame.get("seq") == self.pending:
                self.pending = None
                if stats.measuring:
                    stats.moves += 1
                    stats.latencies.append(now - self.sent_at)
            await self.maybe_act()
            return
        if kind == "snapshot":
            if self.want_snapshot:
                self.want_snapshot = False
                stats.snapshot_sizes[self.kind][len(data)] += 1
                if self.doc is not None and frame["version"] == self.version:
                    stats.docs_checked += 1
                    stats.docs_mismatched += frame["doc"] != self.doc
            self.doc = frame["doc"]
            self.version = frame["version"]
            self.pending = None
        elif kind == "error":
            stats.errors[frame["code"]] += 1
            if self.pending is not None and frame.get("seq") == self.pending:
                stats.refused += 1
                self.pending = None
        elif kind == "left":
            self.doc = None
        futures = self._waiters.get(kind)
        if futures:
            future = futures.pop(0)
            if not future.done():
                future.set_result(frame)
        if kind in ("snapshot", "error"):
            await self.maybe_act()

    async def maybe_act(self, now: bool = False) -> None:
        """Send an action if it is this seat's turn and nothing is in flight.

        With a think time the action is scheduled instead, unless ``now``.
        """
        room = self.room
        if self.seat is None or self.pending is not None or room.stopping or self.doc is None:
            return
        phase = self.doc["room"]["phase"]
        if phase == "playing":
            game = self.doc["game"]
            if game is None or game["turn"] != self.seat or not game.get("legal"):
                return
            if room.think > 0 and not now:
                self.pending = 0  # scheduled, not yet sent
                # Jittered, so rooms set up together do not act in lockstep.
                delay = room.think * room.rng.uniform(0.5, 1.5)
                asyncio.get_running_loop().call_later(delay, self._act_later)
                return
            await self._act(game["legal"])
        elif phase == "hand_over" and self.seat == 0 and room.dealt != self.version:
            room.dealt = self.version
            STATS.hands += STATS.measuring
            await self.send({"type": "next_hand"})
        elif phase == "finished" and self.seat == 0 and not room.restarting:
            room.restarting = True
            STATS.matches += STATS.measuring
            room.background(room.restart())

    def _act_later(self) -> None:
        if self.pending == 0:
            self.pending = None
            self.room.background(self.maybe_act(now=True))

    async def _act(self, legal: list[str]) -> None:
        seq = next(self._seq)
        message = {"type": "act", "seq": seq, "action": wire_action(self.room.rng.choice(legal))}
        self.pending = seq
        self.sent_at = now = time.perf_counter()
        self.room.sent_at[self.version] = now
        await self.send(message)


class Room:
    """One room of the load: 4 seat connections and 1 spectator connection."""

    def __init__(
        self,
        index: int,
        urls: list[str],
        spread: bool,
        think: float,
        seed: int,
        routed: str = "",
    ) -> None:
        self.index = index
        #: Through a load balancer that routes by room (``urls``: one address, its
        #: ``?room=`` hashed): "" not at all (every connection opened at once, none naming
        #: its room), "guests" (the host creates over a connection naming no room, as the
        #: clients do; the others open theirs with the code once it is known), "all" (and
        #: the host moves to a connection naming the room after the create, as the
        #: clients do: docs/protocol.md, "Transport").
        self.routed = routed
        self.rng = random.Random(seed * 1_000_003 + index)
        self.think = think
        n = len(urls)
        home = index % n
        self.conns = [
            Conn(self, seat, urls[(home + (i if spread else 0)) % n])
            for i, seat in enumerate([0, 1, 2, 3, None])
        ]
        self.code: str | None = None
        self.stopping = False
        self.restarting = False
        self.dealt = -1
        self.sent_at: dict[int, float] = {}
        self.codes: list[str] = []
        self._tasks: set[asyncio.Task[Any]] = set()

    def background(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def open(self, timeout: float) -> None:
        """Connect everybody and set the room up, without starting the match yet."""
        if self.routed:
            await self.conns[0].open(timeout)  # the others once the room has a code
        else:
            await asyncio.gather(*(c.open(timeout) for c in self.conns))
        await self.setup(timeout, start=False)

    async def _route(self, code: str, token: str, timeout: float) -> None:
        """Open the guests' connections naming the room; with ``routed == "all"`` the host
        moves to a connection naming it too (a second connection of its seat, joined with
        its token, then the first closed with 1000 ``moved``)."""
        for conn in self.conns[1:]:
            if conn.ws is None:
                conn.url = _naming(conn.url, code)
        await asyncio.gather(*(c.open(timeout) for c in self.conns[1:] if c.ws is None))
        if self.routed != "all":
            return
        old = self.conns[0]
        new = Conn(self, 0, _naming(old.url, code))
        await new.open(timeout)
        waits = [new.expect("joined"), new.expect("snapshot")]
        await new.send({"type": "join", "room": code, "token": token})
        await asyncio.wait_for(asyncio.gather(*waits), timeout)
        self.conns[0] = new
        await old.leave_for("moved")  # as the clients do: the seat is not taken for gone

    async def setup(self, timeout: float, start: bool = True) -> None:
        """Create the room (host in seat 0), seat the others, add the spectator, start."""
        host = self.conns[0]
        joined, snapshot = host.expect("joined"), host.expect("snapshot")
        await host.send({"type": "create", "options": {"seats": SEATS, "target": 500}})
        answer = await asyncio.wait_for(joined, timeout)
        code = answer["room"]
        await asyncio.wait_for(snapshot, timeout)
        self.code = code
        self.codes.append(code)
        if self.routed:
            await self._route(code, answer["token"], timeout)
        waits = []
        for conn in self.conns[1:]:
            waits += [conn.expect("joined"), conn.expect("snapshot")]
            message: dict[str, Any] = {"type": "join", "room": code}
            message.update({"spectate": True} if conn.seat is None else {"seat": conn.seat})
            await conn.send(message)
        await asyncio.wait_for(asyncio.gather(*waits), timeout)
        for conn in self.conns[1:4]:
            # Servers that ask players to be ready before the start; others refuse it.
            await conn.send({"type": "ready", "ready": True})
        self.sent_at.clear()
        self.dealt = -1
        if start:
            await self.start(timeout)

    async def start(self, timeout: float) -> None:
        """Start the match, retrying while players are not ready or the store times out."""
        host = self.conns[0]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            error = host.expect("error")
            await host.send({"type": "start", "fill": None})
            while not error.done() and loop.time() < deadline:
                if host.doc is not None and host.doc["room"]["phase"] != "lobby":
                    host.forget(error)
                    return
                await asyncio.sleep(0.01)
            if not error.done():
                raise TimeoutError("the match did not start")
            refusal = error.result()
            if refusal["code"] not in RETRY_START or loop.time() > deadline:
                raise ConnectionError(f"start refused: {refusal['code']}")
            await asyncio.sleep(0.02)

    async def restart(self) -> None:
        """The match is over: everybody leaves, then a new match in a new room."""
        try:
            lefts = [c.expect("left") for c in self.conns]
            for conn in self.conns:
                await conn.send({"type": "leave"})
            await asyncio.wait_for(asyncio.gather(*lefts), 30)
            await self.setup(30)
        finally:
            self.restarting = False

    def idle(self) -> bool:
        return all(c.pending is None for c in self.conns) and not self.restarting


async def _lines() -> Any:
    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            return
        yield line.strip()


def _say(record: dict[str, Any]) -> None:
    sys.stdout.write(orjson.dumps(record).decode() + "\n")
    sys.stdout.flush()


async def run(config: dict[str, Any]) -> None:
    """Set up the rooms, report ready, measure between ``go`` and ``stop``, report."""
    urls: list[str] = config["urls"]
    timeout = float(config.get("timeout", 120))
    gate = asyncio.Semaphore(int(config.get("concurrency", 50)))
    first = int(config.get("first_room", 0))
    rooms = [
        Room(
            first + i,
            urls,
            config.get("placement") == "spread",
            float(config.get("think", 0.0)),
            int(config.get("seed", 1)),
            str(config.get("routed", "")),
        )
        for i in range(int(config["rooms"]))
    ]

    async def open_room(room: Room) -> bool:
        async with gate:
            try:
                await room.open(timeout)
                return True
            except Exception as exc:
                sys.stderr.write(f"room {room.index} failed to open: {exc!r}\n")
                return False

    async def start_room(room: Room) -> bool:
        async with gate:
            try:
                await room.start(timeout)
                return True
            except Exception as exc:
                sys.stderr.write(f"room {room.index} failed to start: {exc!r}\n")
                return False

    # Every room is set up before any plays, so that set-up does not compete with play.
    began = time.perf_counter()
    opened = await asyncio.gather(*(open_room(r) for r in rooms))
    ready = [room for room, ok in zip(rooms, opened, strict=True) if ok]
    started = await asyncio.gather(*(start_room(r) for r in ready))
    setup = time.perf_counter() - began
    failed = len(rooms) - started.count(True)
    _say({"ready": True, "rooms": len(rooms), "failed": failed, "setup_s": round(setup, 3)})
    async for line in _lines():
        if line == "go":
            STATS.start()
        elif line == "stop":
            STATS.stop()
            break
    for room in rooms:
        room.stopping = True
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and not all(r.idle() for r in rooms):
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.2)
    snapshots = []
    for room in rooms:
        for conn in room.conns:
            if conn.ws is not None and conn.doc is not None:
                conn.want_snapshot = True
                snapshots.append(conn.expect("snapshot"))
                with contextlib.suppress(ConnectionClosed):
                    await conn.send({"type": "resync"})
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*snapshots, return_exceptions=True), 30)
    result = STATS.result(len(rooms), failed, setup)
    result["codes"] = [code for room in rooms for code in room.codes]
    _say({"result": result})
    for room in rooms:
        for conn in room.conns:
            conn.abort()


def main() -> int:
    """Entry point: the configuration is one JSON argument."""
    config = orjson.loads(sys.argv[1])
    asyncio.run(run(config))
    return 0


def _naming(url: str, code: str) -> str:
    """``url`` naming room ``code`` (``?room=CODE``), in place of any room it named."""
    return f"{url.partition('?')[0]}?room={code}"


if __name__ == "__main__":
    sys.exit(main())
