"""Joining codes that name no room costs the server nothing it keeps.

Each ``join`` of an unknown code used to leave a lock behind in the lobby for good. The
soak test runs a real ``kings-corner serve`` process (the embedded store, limits lifted so
that only memory is measured), sends it 200,000 joins of distinct unknown codes pipelined
over a few connections, and compares its resident memory (``VmRSS``) with what it was
after a warm-up batch. A finer test measures what a second round of joins keeps in a
server in the test's process, to the byte (tracemalloc), with the joins sent from another.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import signal
import sys
import tempfile
import time
import tracemalloc
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import IO, Any

import pytest

from protocol.codec import decode_client
from server.app import GameServer, port_of
from server.room import CODE_ALPHABET

from .helpers import UNIT, clients_of, fast_settings, serving
from .rawws import CLOSE, PING, TEXT, RawClient

#: Requests on the wire per connection, at most: the answers never fill the server's
#: outgoing queue (512 frames), so nobody is dropped as a slow reader.
WINDOW = 400
BATCH = 200


def unknown_codes(start: int, count: int) -> list[str]:
    """``count`` distinct room codes (numbers written in the code alphabet, from
    ``start``); none is a room, because the server made none."""
    base = len(CODE_ALPHABET)
    codes = []
    for n in range(start, start + count):
        digits = []
        for _ in range(6):
            n, d = divmod(n, base)
            digits.append(CODE_ALPHABET[d])
        codes.append("".join(digits))
    return codes


def masked_text(payload: bytes) -> bytes:
    """One masked client text frame (the all-zero mask: legal, and no work to apply)."""
    assert len(payload) < 126
    return bytes((0x80 | TEXT, 0x80 | len(payload))) + b"\0\0\0\0" + payload


class Answers:
    """Counts the server frames arriving on one raw connection, without decoding JSON."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.count = 0
        self.not_found = 0
        self.other: list[bytes] = []

    def feed(self, data: bytes) -> None:
        buf = self.buffer
        buf += data
        at = 0
        while len(buf) - at >= 2:
            opcode, length = buf[at] & 0x0F, buf[at + 1] & 0x7F
            head = 2
            if length == 126:
                if len(buf) - at < 4:
                    break
                length, head = int.from_bytes(buf[at + 2 : at + 4], "big"), 4
            elif length == 127:
                if len(buf) - at < 10:
                    break
                length, head = int.from_bytes(buf[at + 2 : at + 10], "big"), 10
            if len(buf) - at < head + length:
                break
            payload = bytes(buf[at + head : at + head + length])
            at += head + length
            if opcode == TEXT:
                self.count += 1
                if b'"room_not_found"' in payload:
                    self.not_found += 1
                elif len(self.other) < 5:
                    self.other.append(payload)
            elif opcode == CLOSE:
                raise AssertionError(f"the server closed the connection: {payload!r}")
            elif opcode != PING:
                raise AssertionError(f"unexpected opcode {opcode}")
        del buf[:at]


async def greeted(port: int) -> RawClient:
    """A raw connection that said hello."""
    client = await RawClient.open(port)
    client.send_json({"type": "hello", "version": 1, "name": "Probe"})
    assert (await client.recv_json(50 * UNIT))["type"] == "welcome"
    return client


async def join_all(client: RawClient, codes: list[str]) -> Answers:
    """Join every code on ``client``, ``WINDOW`` requests in flight at most."""
    answers = Answers()
    sent = 0
    frames = [masked_text(b'{"type":"join","room":"%s"}' % c.encode()) for c in codes]
    while answers.count < len(frames):
        if sent < len(frames) and sent - answers.count <= WINDOW - BATCH:
            client.writer.write(b"".join(frames[sent : sent + BATCH]))
            sent = min(len(frames), sent + BATCH)
            await client.drain()
            continue
        data = await asyncio.wait_for(client.reader.read(2**16), 100 * UNIT)
        if not data:
            raise AssertionError(f"connection ended after {answers.count} answers")
        answers.feed(data)
    return answers


async def probe_one(port: int, codes: list[str]) -> Answers:
    """Join every code on one new connection, ``WINDOW`` requests in flight at most."""
    client = await greeted(port)
    try:
        return await join_all(client, codes)
    finally:
        client.abort()


async def probe(port: int, start: int, count: int, connections: int = 4) -> int:
    """Join ``count`` unknown codes over ``connections`` new connections; every one must
    be answered with ``room_not_found``. Returns how many were."""
    codes = unknown_codes(start, count)
    share = -(-count // connections)
    parts = [codes[i : i + share] for i in range(0, count, share)]
    return not_found(await asyncio.gather(*(probe_one(port, part) for part in parts)))


async def probe_on(clients: list[RawClient], start: int, count: int) -> int:
    """:func:`probe` over connections already open (``count`` shared among them)."""
    codes = unknown_codes(start, count)
    step = len(clients)
    return not_found(
        await asyncio.gather(*(join_all(c, codes[i::step]) for i, c in enumerate(clients)))
    )


def not_found(results: list[Answers]) -> int:
    """How many answers were ``room_not_found``; there must be no other answer."""
    for answers in results:
        assert not answers.other, answers.other
    return sum(a.not_found for a in results)


def rss_bytes(pid: int) -> int:
    """The resident memory of process ``pid`` (``VmRSS`` of /proc/PID/status)."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


@contextlib.asynccontextmanager
async def serve_process(**env: str) -> AsyncIterator[tuple[int, int]]:
    """``python -m server serve`` on a free port with ``KC_*`` settings; yields (pid,
    port). Stopped by its own process id.

    Its output goes to a file rather than a pipe: waiting for a process whose pipe a
    child of its own still holds would wait for that child too.
    """
    environment = {
        **{k: v for k, v in os.environ.items() if not k.startswith("KC_") and k != "REDIS_URL"},
        "KC_HOST": "127.0.0.1",
        "KC_PORT": "0",
        "KC_LOG_LEVEL": "WARNING",
        **env,
    }
    with tempfile.TemporaryFile() as output:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "server",
            "serve",
            env=environment,
            stdout=output,
            stderr=asyncio.subprocess.DEVNULL,
        )
        try:
            line = await first_line(output, proc)
            yield proc.pid, int(line.rsplit(":", 1)[1].strip(" /\n"))
        finally:
            if proc.returncode is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    await asyncio.wait_for(proc.wait(), 100 * UNIT)
                except TimeoutError:
                    proc.kill()
                    await proc.wait()


async def first_line(output: IO[bytes], proc: asyncio.subprocess.Process) -> str:
    """The server's first line of output ("serving on ..."), once it is written."""
    deadline = time.monotonic() + 300 * UNIT
    while time.monotonic() < deadline and proc.returncode is None:
        output.seek(0)
        text = output.read().decode()
        if text.endswith("\n"):
            assert "serving on" in text, text
            return text.splitlines()[0]
        await asyncio.sleep(UNIT / 2)
    raise AssertionError(f"the server did not start (exit code {proc.returncode})")


#: Only memory is measured: the rate and failed-join limits are out of the way. (A
#: connection keeps the times of its last ``join_failures`` failures: a thousand within a
#: millisecond is far beyond any server, and bounds what a connection holds.)
UNLIMITED = {
    "KC_RATE": "1000000000",
    "KC_BURST": "1000000000",
    "KC_JOIN_FAILURES": "1000",
    "KC_JOIN_FAILURE_WINDOW": "0.001",
    "KC_JOIN_ADDRESS_BURST": "1000000000",
    "KC_JOIN_ADDRESS_RATE": "1000000000",
    # The raw clients never answer pings.
    "KC_PING_INTERVAL": "3600",
    "KC_PING_TIMEOUT": "3600",
}


async def soak(joins: int, warm_up: int, bound: int) -> None:
    async with serve_process(**UNLIMITED) as (pid, port):
        assert await probe(port, 0, warm_up) == warm_up
        await asyncio.sleep(5 * UNIT)
        before = rss_bytes(pid)
        started = time.monotonic()
        assert await probe(port, warm_up, joins) == joins
        elapsed = time.monotonic() - started
        await asyncio.sleep(5 * UNIT)
        after = rss_bytes(pid)
    growth = after - before
    assert growth < bound, (
        f"RSS grew by {growth / 1024:.0f} KiB over {joins} unknown joins ({elapsed:.0f} s)"
    )


async def test_200000_unknown_joins_grow_the_server_by_under_2_mib() -> None:
    # About 200 bytes per code stayed behind before: 40 MB here. (Runs in about 40 s.)
    await soak(200_000, 20_000, 2 * 2**20)


#: :data:`UNLIMITED` as settings, for a server in the test's process.
UNLIMITED_SETTINGS: dict[str, Any] = {
    "rate": 1e9,
    "burst": 10**9,
    "join_failures": 1000,
    "join_failure_window": 0.001,
    "join_address_burst": 10**9,
    "join_address_rate": 1e9,
    "ping_interval": 3600.0,
    "ping_timeout": 3600.0,
}


@pytest.mark.parametrize(("kind", "settle"), [("memory", UNIT), ("redis", max(2.5, 25 * UNIT))])
async def test_a_second_round_of_unknown_joins_keeps_under_a_byte_per_join(
    kind: str, settle: float, redis_url: str, redis_prefix: str
) -> None:
    """What a join of an unknown code leaves behind, measured exactly rather than by the
    resident memory of a process: the Python memory (tracemalloc) of a server in this
    process that a second round of 10,000 joins adds to what the first left. The joins
    come from another process (its work is not traced), on four connections open from
    before the first round to after the second (a connection's own cost is not counted),
    and the cycle collector is off: what only it could free counts as kept, since with
    the server's thresholds (:func:`server.app.tune_gc`) such garbage lives long, some of
    it in the oldest generation. After a round the server settles: on Redis, until the
    client's cancelled command timers (2 s) leave the event loop.

    Each join on the memory store used to leave a reference cycle of about 25 objects,
    over 2 KiB: the error's traceback held the frame of the eager read path
    (:mod:`server.eager`), whose locals held the future that failed, which held the
    error. A soak of a real server kept 67 B per join in its second round of 50,000.
    """
    joins = 10_000
    store: dict[str, Any] = {}
    if kind == "redis":
        store = {"redis_url": redis_url, "redis_prefix": redis_prefix}
    settings = fast_settings(**UNLIMITED_SETTINGS, **store)
    async with serving(settings) as game, joining_process(port_of(game)) as join_round:
        kept = await kept_by_a_second_round(join_round, joins, settle)
    assert kept < joins, f"{kept / joins:.1f} B kept per join in a second round of {joins}"


async def kept_by_a_second_round(
    join_round: Callable[[int, int], Awaitable[int]], joins: int, settle: float
) -> int:
    """Bytes of Python memory that a second round of ``joins`` unknown codes adds to what
    the first left (``join_round(start, count)`` runs one), traced from before the first,
    with the cycle collector off throughout, ``settle`` seconds after each round."""
    gc.collect()
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    gc.disable()
    try:
        fill_string_cache()
        traced = []
        for start in (0, joins):
            assert await join_round(start, joins) == joins
            await asyncio.sleep(settle)
            traced.append(tracemalloc.get_traced_memory()[0])
    finally:
        gc.enable()
        if started:
            tracemalloc.stop()
    return traced[1] - traced[0]


def fill_string_cache() -> None:
    """Fill the JSON parser's string cache (pydantic's, for the whole process: 16,384
    strings, each new one taking the place of the one its hash falls on) with strings
    allocated now: afterwards each code a round parses only replaces one of them.
    Otherwise the rounds fill it further, and strings cached before tracing began go
    untraced when replaced."""
    for code in unknown_codes(10**8, 200_000):
        decode_client(b'{"type":"join","room":"%s"}' % code.encode())


@pytest.mark.parametrize("kind", ["memory", "redis"])
async def test_failed_loads_leave_no_entry_behind(
    kind: str, redis_url: str, redis_prefix: str
) -> None:
    store: dict[str, Any] = {}
    if kind == "redis":
        store = {"redis_url": redis_url, "redis_prefix": redis_prefix}
    settings = fast_settings(join_failures=10**6, join_address_burst=10**6, **store)
    async with serving(settings) as game, clients_of(game) as pool:
        c = await pool.new("Ana")
        for code in unknown_codes(0, 30):
            await c.send({"type": "join", "room": code})
        await c.until(lambda cl: len(cl.errors) == 30)
        assert {e["code"] for e in c.errors} == {"room_not_found"}
        assert loading(game) == {}
        # Many asking for the same room at once share one load, and it is forgotten too.
        code = await c.create(seats=4)
        await c.request({"type": "leave"}, "left")
        await game.lobby.drop(code)
        others = [await pool.new(f"P{i}") for i in range(3)]
        await asyncio.gather(*(o.join(code, spectate=True) for o in others))
        assert loading(game) == {}
        assert all(o.room == code for o in others)


def loading(game: GameServer) -> dict[str, Any]:
    return dict(game.lobby._loading)


@contextlib.asynccontextmanager
async def joining_process(port: int) -> AsyncIterator[Callable[[int, int], Awaitable[int]]]:
    """A process of its own (this module run as a program) with four connections to
    ``port``, open until the block ends; yields ``join_round(start, count)``, which has it
    join ``count`` unknown codes from code number ``start`` and returns how many were
    answered ``room_not_found``. Stopped by its own process id."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        __spec__.name if __spec__ else "tests.hardening.test_probe_memory",
        str(port),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout

    async def join_round(start: int, count: int) -> int:
        stdin.write(b"%d %d\n" % (start, count))
        await stdin.drain()
        line = await asyncio.wait_for(stdout.readline(), 3000 * UNIT)
        assert line.strip().isdigit(), f"the joining process ended ({proc.returncode})"
        return int(line)

    try:
        line = await asyncio.wait_for(stdout.readline(), 300 * UNIT)
        assert line == b"ready\n", f"the joining process did not start ({proc.returncode})"
        yield join_round
    finally:
        if proc.returncode is None:
            stdin.close()
            try:
                await asyncio.wait_for(proc.wait(), 100 * UNIT)
            except TimeoutError:
                proc.kill()
                await proc.wait()


async def join_rounds(port: int) -> None:
    """The joining process's work (see :func:`joining_process`): for each line
    ``START COUNT`` read, a round of joins on the same four connections, answered with
    how many were refused ``room_not_found``."""
    clients = [await greeted(port) for _ in range(4)]
    loop = asyncio.get_running_loop()
    lines = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(lines), sys.stdin)
    print("ready", flush=True)
    while line := await lines.readline():
        start, count = map(int, line.split())
        print(await probe_on(clients, start, count), flush=True)
    for client in clients:
        client.abort()


if __name__ == "__main__":
    asyncio.run(join_rounds(int(sys.argv[1])))
