"""An append whose answer is lost: the store carried it out (or not) as it stopped.

The seam is our own store (its ``append`` and ``read``); everything else is a real server
on both stores and real WebSocket clients.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from protocol.errors import StoreUnavailable
from server.app import GameServer

from .conftest import ClientFactory

Append = Callable[..., Awaitable[int]]


async def _table(client: ClientFactory) -> Any:
    ana = await client("Ana")
    await ana.create(seats=2, target=500, bots=[None, "heuristic"])
    await ana.start()
    await ana.until(lambda c: c.my_turn)
    return ana


def _failing(server: GameServer, monkeypatch: pytest.MonkeyPatch, store_it: bool) -> list[int]:
    """The next append raises StoreUnavailable, after storing its events or not."""
    real: Append = server.store.append
    failed: list[int] = []

    async def append(*args: Any, **kwargs: Any) -> int:
        if failed:
            return await real(*args, **kwargs)
        failed.append(1)
        if store_it:
            await real(*args, **kwargs)
        raise StoreUnavailable()

    monkeypatch.setattr(server.store, "append", append)
    return failed


async def _events(server: GameServer, code: str) -> list[dict[str, Any]]:
    return await server.store.read(code)


@pytest.mark.parametrize("stored", [True, False], ids=["stored", "not_stored"])
async def test_an_append_whose_answer_was_lost_is_acknowledged_once(
    server: GameServer, client: ClientFactory, monkeypatch: pytest.MonkeyPatch, stored: bool
) -> None:
    """Stored: found in the log and acknowledged. Not stored: tried again once the store
    answers. Either way the action is in the log exactly once."""
    ana = await _table(client)
    before = len(await _events(server, ana.room))
    failed = _failing(server, monkeypatch, store_it=stored)
    answer = await ana.act("end")
    assert failed and answer["type"] == "patch", answer
    events = await _events(server, ana.room)
    assert [e.get("a") for e in events[before:] if e.get("seat") == ana.seat] == ["end"]
    assert answer["to"] == before + 1


async def test_a_store_that_cannot_tell_refuses_and_changes_nothing(
    server: GameServer, client: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    ana = await _table(client)
    version = ana.version
    before = len(await _events(server, ana.room))
    real_read = server.store.read

    async def append(*args: Any, **kwargs: Any) -> int:
        raise StoreUnavailable()

    async def read(*args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        raise StoreUnavailable()

    monkeypatch.setattr(server.store, "append", append)
    monkeypatch.setattr(server.store, "read", read)
    answer = await ana.act("end")
    assert answer["type"] == "error" and answer["code"] == "store_unavailable"
    assert ana.version == version
    assert len(await real_read(ana.room)) == before
