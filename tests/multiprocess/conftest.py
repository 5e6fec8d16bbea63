"""Server processes of our own over a real Redis, started and ended by process id.

Set ``KC_TEST_SERVER_LOG`` to a file name to keep the servers' logs of a run.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import uuid
from collections.abc import AsyncIterator

import pytest

from tests.redis_helpers import private_redis, redis_prefix, redis_url

__all__ = ["private_redis", "redis_prefix", "redis_url"]


class ServerProcess:
    """``kings-corner serve`` in a subprocess on a free port."""

    def __init__(self, redis_url: str, prefix: str, **settings: str) -> None:
        self.settings_id = uuid.uuid4().hex[:8]
        self.env = {
            "KC_PROCESS_ID": self.settings_id,
            **os.environ,
            "REDIS_URL": redis_url,
            "KC_REDIS_PREFIX": prefix,
            "KC_PORT": "0",
            "KC_BOT_DELAY": "0",
            "KC_HAND_PAUSE": "0.05",
            "KC_GRACE": "0.5",
            "KC_TICK": "0.2",
            "KC_LEASE": "1",
            "KC_RATE": "10000",
            "KC_BURST": "10000",
            # Niced, not idle-class: beside busy processes idle-class bots barely run.
            "KC_BOT_IDLE_CLASS": "0",
            **{"KC_" + k.upper(): v for k, v in settings.items()},
        }
        self.proc: asyncio.subprocess.Process | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    async def start(self) -> ServerProcess:
        with open(os.environ.get("KC_TEST_SERVER_LOG", os.devnull), "ab") as log:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "server",
                "serve",
                env=self.env,
                stdout=asyncio.subprocess.PIPE,
                stderr=log,
            )
        assert self.proc.stdout is not None
        line = (await asyncio.wait_for(self.proc.stdout.readline(), 30)).decode()
        self.port = int(line.rsplit(":", 1)[1].strip(" /\n"))
        return self

    async def kill(self) -> None:
        """SIGKILL this process (and only it)."""
        if self.proc is not None and self.proc.returncode is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            await self.proc.wait()

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), 10)
            except TimeoutError:
                await self.kill()


@pytest.fixture
async def processes() -> AsyncIterator[list[ServerProcess]]:
    """Collects the server processes a test starts, and ends them afterwards."""
    started: list[ServerProcess] = []
    yield started
    for proc in started:
        await proc.stop()
