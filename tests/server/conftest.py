"""A real server on a free loopback port, and real WebSocket clients."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from clients.net import GameClient
from server.app import GameServer, port_of, start_server
from server.config import Settings
from server.connection import Connection
from tests.redis_helpers import DEFAULT_REDIS_URL, delete_prefix

from .audit import Recorder

ClientFactory = Callable[..., Awaitable[GameClient]]


def make_settings(**overrides: object) -> Settings:
    """Settings for tests: port 0, no bot delay, short grace and pauses, no rate limit.

    The bot workers are niced but not in ``SCHED_IDLE``: beside other busy processes an
    idle-class worker gets almost no CPU, and a test of anything but bot priority would
    measure the machine (tests/server/test_bot_priority.py checks the shipped class).
    """
    base: dict[str, object] = {
        "host": "127.0.0.1",
        "port": 0,
        "bot_delay": 0.0,
        "grace": 0.3,
        "hand_pause": 0.05,
        "queue_wait": 0.3,
        "rate": 10000.0,
        "burst": 10000,
        "bot_idle_class": False,
    }
    base.update(overrides)
    return Settings(**base)  # type: ignore[arg-type]


#: The name other test packages import; not a test itself.
test_settings = make_settings
test_settings.__test__ = False  # type: ignore[attr-defined]


@pytest.fixture(params=["memory", "redis"])
async def server(request: pytest.FixtureRequest) -> AsyncIterator[GameServer]:
    """A live server on each store: the embedded one and a real Redis (private prefix).

    ``@pytest.mark.settings(name=value, ...)`` on a test (or a module's ``pytestmark``)
    starts it with those settings changed.
    """
    marker = request.node.get_closest_marker("settings")
    changes: dict[str, object] = dict(marker.kwargs) if marker is not None else {}
    if request.param == "memory":
        game = await start_server(make_settings(**changes))
        yield game
        await game.shutdown()
        return
    url = os.environ.get("REDIS_URL", DEFAULT_REDIS_URL)
    prefix = f"kc-test-{uuid.uuid4().hex[:12]}"
    changes = {"tick": 0.2, **changes}
    game = await start_server(make_settings(redis_url=url, redis_prefix=prefix, **changes))
    try:
        yield game
    finally:
        await game.shutdown()
        await delete_prefix(url, prefix)


@pytest.fixture
async def client(server: GameServer) -> AsyncIterator[ClientFactory]:
    made: list[GameClient] = []

    async def make(name: str = "Player", **kwargs: object) -> GameClient:
        c = GameClient(f"ws://127.0.0.1:{port_of(server)}/", name, **kwargs)  # type: ignore[arg-type]
        await c.connect()
        made.append(c)
        return c

    yield make
    for c in made:
        await c.close()


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    """Record every frame the server queues for any connection (our own seam)."""
    rec = Recorder()
    original = Connection.send

    def send(self: Connection, frame: str) -> None:
        rec.record(self, frame)
        original(self, frame)

    monkeypatch.setattr(Connection, "send", send)
    return rec


async def room_logs(server: GameServer) -> dict[str, list[dict[str, object]]]:
    """The stored events of every room the server has loaded."""
    return {code: await server.store.read(code) for code in server.lobby.rooms}
