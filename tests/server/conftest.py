"""A real server on a free loopback port, and real WebSocket clients."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from clients.net import GameClient
from server.app import GameServer, port_of, start_server
from server.config import Settings

ClientFactory = Callable[..., Awaitable[GameClient]]


def test_settings(**overrides: object) -> Settings:
    base: dict[str, object] = {
        "host": "127.0.0.1",
        "port": 0,
        "bot_delay": 0.0,
        "grace": 0.3,
        "hand_pause": 0.05,
        "queue_wait": 0.3,
        "rate": 10000.0,
        "burst": 10000,
    }
    base.update(overrides)
    return Settings(**base)  # type: ignore[arg-type]


@pytest.fixture
async def server() -> AsyncIterator[GameServer]:
    game = await start_server(test_settings())
    yield game
    await game.shutdown()


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
