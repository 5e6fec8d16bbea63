"""An append whose answer is lost: the store carried it out (or not) as it stopped.

The seam is our own store (its ``append`` and ``read``); everything else is a real server
on both stores and real WebSocket clients.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from protocol.errors import StoreUnavailable
from server.app import GameServer

from .conftest import ClientFactory
from .test_play import two_seat_room

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


def _blind(server: GameServer, monkeypatch: pytest.MonkeyPatch) -> tuple[asyncio.Event, list[int]]:
    """Reads fail until the returned event is set (the store cannot tell what it holds);
    the list counts the failed reads."""
    real_read = server.store.read
    seeing = asyncio.Event()
    looked: list[int] = []

    async def read(*args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        if not seeing.is_set():
            looked.append(1)
            raise StoreUnavailable()
        return await real_read(*args, **kwargs)

    monkeypatch.setattr(server.store, "read", read)
    return seeing, looked


@pytest.mark.parametrize("stored", [True, False], ids=["stored", "not_stored"])
async def test_an_action_is_answered_only_once_the_store_can_tell(
    server: GameServer, client: ClientFactory, monkeypatch: pytest.MonkeyPatch, stored: bool
) -> None:
    """The store stays away longer than any fixed wait: the action is never refused while
    it may be stored; it is answered as what the store holds once it answers again."""
    ana = await _table(client)
    before = len(await _events(server, ana.room))
    failed = _failing(server, monkeypatch, store_it=stored)
    seeing, looked = _blind(server, monkeypatch)
    acting = asyncio.create_task(ana.act("end"))
    await _until(lambda: bool(looked))
    await asyncio.sleep(2.5)  # longer than the 1.75 s after which it used to refuse
    assert failed and not acting.done(), acting
    seeing.set()
    answer = await acting
    assert answer["type"] == "patch", answer
    assert answer["to"] == before + 1
    events = await _events(server, ana.room)
    assert [e.get("a") for e in events[before:] if e.get("seat") == ana.seat] == ["end"]


async def test_while_an_outcome_is_unknown_other_changes_are_refused_at_once(
    server: GameServer, client: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing queues behind the unknown append: another player's action is answered
    ``store_unavailable`` at once, changes nothing, and works again afterwards."""
    ana, ben = await two_seat_room(client)
    first = ana if ana.my_turn else ben
    other = ben if first is ana else ana
    assert first.room is not None
    before = len(await _events(server, first.room))
    _failing(server, monkeypatch, store_it=True)
    seeing, looked = _blind(server, monkeypatch)
    acting = asyncio.create_task(first.act("end"))
    await _until(lambda: bool(looked))
    version = other.version
    refused = await other.act("end")
    assert refused["type"] == "error" and refused["code"] == "store_unavailable", refused
    assert not acting.done() and other.version == version
    seeing.set()
    assert (await acting)["type"] == "patch"
    events = await _events(server, first.room)
    assert [(e.get("seat"), e.get("a")) for e in events[before:]] == [(first.seat, "end")]
    await other.until(lambda c: c.my_turn)
    assert (await other.act("end"))["type"] == "patch"


async def _until(ready: Callable[[], bool]) -> None:
    async with asyncio.timeout(10):
        while not ready():
            await asyncio.sleep(0.01)
