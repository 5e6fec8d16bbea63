"""A real server on a free loopback port for the client tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.app import GameServer, port_of, start_server
from tests.server.conftest import test_settings


@pytest.fixture
async def server(request: pytest.FixtureRequest) -> AsyncIterator[GameServer]:
    """``@pytest.mark.settings(name=value, ...)`` on a test starts it with those changed."""
    marker = request.node.get_closest_marker("settings")
    game = await start_server(test_settings(**(marker.kwargs if marker else {})))
    yield game
    await game.shutdown()


@pytest.fixture
def url(server: GameServer) -> str:
    """The WebSocket URL of the running test server."""
    return f"ws://127.0.0.1:{port_of(server)}/"
