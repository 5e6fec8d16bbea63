"""Real Redis for tests: the shared one, a unique key prefix, and private servers to kill.

Tests never mock Redis. Most use the Redis at ``REDIS_URL`` (default
``redis://127.0.0.1:6379/0``) under a random key prefix and delete only their own keys.
Tests that kill or restart Redis start a :class:`PrivateRedis` of their own, on a free
port in a temporary directory, and stop it by its process id; the shared Redis is never
touched that way.

Use the fixtures from a ``conftest.py`` by importing them::

    from tests.redis_helpers import private_redis, redis_prefix, redis_url

    __all__ = ["private_redis", "redis_prefix", "redis_url"]

Waits are multiples of :data:`UNIT` seconds (``TEST_UNIT`` in the environment, default
0.1), so a slow machine can stretch every one of them at once.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

#: The one adjustable unit of time of these tests, in seconds.
UNIT = float(os.environ.get("TEST_UNIT", "0.1"))

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


@pytest.fixture
def redis_url() -> str:
    """The shared test Redis: ``REDIS_URL``, else a local default."""
    return os.environ.get("REDIS_URL", DEFAULT_REDIS_URL)


@pytest.fixture
async def redis_prefix(redis_url: str) -> AsyncIterator[str]:
    """A key prefix no other test uses; its keys are deleted afterwards."""
    prefix = f"kc-test-{uuid.uuid4().hex[:12]}"
    yield prefix
    await delete_prefix(redis_url, prefix)


async def delete_prefix(url: str, prefix: str) -> int:
    """Delete every key starting with ``prefix:``; return how many there were."""
    client = aioredis.Redis.from_url(url)
    try:
        keys = [key async for key in client.scan_iter(match=f"{prefix}:*", count=500)]
        if keys:
            await client.delete(*keys)
        return len(keys)
    finally:
        await client.aclose()


async def eventually(check: Callable[[], Awaitable[bool]], within: float = 50 * UNIT) -> None:
    """Wait until ``check()`` is true, trying every UNIT/2; fail after ``within`` seconds."""
    deadline = time.monotonic() + within
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition still false after {within:.1f}s")
        await asyncio.sleep(UNIT / 2)


def free_port() -> int:
    """A TCP port on the loopback interface that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PrivateRedis:
    """A redis-server process of our own, on a fixed loopback port, in its own directory.

    ``kill()`` sends SIGKILL to exactly this process; ``start()`` again brings up a fresh
    server on the same port (with the same data directory, so an append-only file, when
    ``appendonly`` is set, is loaded again).
    """

    def __init__(self, directory: Path, *, appendonly: bool = False) -> None:
        binary = os.environ.get("REDIS_SERVER") or shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed (or set REDIS_SERVER)")
        self.binary = binary
        self.directory = directory
        self.appendonly = appendonly
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, within: float = 100 * UNIT) -> None:
        """Start the server and wait until it answers PING."""
        if self.process is not None:
            raise RuntimeError("already running")
        args = [
            self.binary,
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(self.directory),
            "--save",
            "",
            "--appendonly",
            "yes" if self.appendonly else "no",
            "--appendfsync",
            "always",
            "--daemonize",
            "no",
            "--logfile",
            "redis.log",
        ]
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + within
        while not self.answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                log = (self.directory / "redis.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"private redis-server did not start:\n{log}")
            time.sleep(UNIT / 10)

    def answers(self) -> bool:
        """True when something on our port answers PING with PONG."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=UNIT * 5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(64).startswith(b"+PONG")
        except OSError:
            return False

    def kill(self) -> None:
        """SIGKILL our server (and only ours) and reap it."""
        if self.process is None:
            return
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.process = None

    def stop(self) -> None:
        """SIGTERM our server and wait for it; SIGKILL it if it lingers."""
        if self.process is None:
            return
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=100 * UNIT)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.process = None


@pytest.fixture
def private_redis() -> Iterator[PrivateRedis]:
    """A running private redis-server, stopped (by its PID) after the test."""
    with tempfile.TemporaryDirectory(prefix="kc-redis-") as directory:
        server = PrivateRedis(Path(directory))
        server.start()
        try:
            yield server
        finally:
            server.stop()
