"""The read path: messages go from the socket's read callback to one serve coroutine.

:mod:`server.eager` on its own, then :class:`server.websocket.GameSocket` under websockets'
own server on loopback (with a serve coroutine of the test's), then the game server.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from websockets.asyncio.client import connect
from websockets.asyncio.server import Server, serve

from protocol.messages import PROTOCOL_VERSION
from server import eager
from server.websocket import HIGH, GameSocket
from tests.hardening.helpers import fast_settings, serving, ws_url

VAR: contextvars.ContextVar[str] = contextvars.ContextVar("VAR", default="unset")


async def test_a_coroutine_that_never_waits_runs_to_its_end_at_once() -> None:
    seen: list[object] = []

    async def work() -> None:
        seen.append(VAR.get())

    context = contextvars.copy_context()
    context.run(VAR.set, "mine")
    assert eager.start(work(), context) is None
    assert seen == ["mine"]  # before anything else ran, in the given context


async def test_a_coroutine_that_waits_is_finished_by_a_task_from_where_it_stopped() -> None:
    gate: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    seen: list[object] = []

    async def work() -> None:
        seen.append("before")
        seen.append(await gate)
        await asyncio.sleep(0)
        seen.append(VAR.get())

    context = contextvars.copy_context()
    context.run(VAR.set, "mine")
    task = eager.start(work(), context)
    assert task is not None and seen == ["before"]
    gate.set_result(7)
    await task
    assert seen == ["before", 7, "mine"]


async def test_a_waiting_coroutine_is_cancelled_through_its_task() -> None:
    cleaned: list[bool] = []

    async def work() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            cleaned.append(True)

    task = eager.start(work(), contextvars.copy_context())
    assert task is not None
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert cleaned == [True]


async def test_what_the_eager_part_raises_reaches_the_caller() -> None:
    async def work() -> None:
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        eager.start(work(), contextvars.copy_context())


class Recorder:
    """A serve coroutine of the test's: records each message and where it ran."""

    def __init__(self) -> None:
        self.messages: list[str | bytes] = []
        self.in_task: list[bool] = []
        self.gate = asyncio.Event()
        self.gate.set()
        self.sockets: list[GameSocket] = []

    async def serve(self, message: str | bytes) -> None:
        self.in_task.append(asyncio.current_task() is not None)
        if message == "wait":
            await self.gate.wait()
        self.messages.append(message)

    async def handler(self, ws: GameSocket, inline: bool) -> None:
        self.sockets.append(ws)
        ws.serve_messages(self.serve, inline=inline)
        await ws.wait_closed()
        await ws.drained()


@asynccontextmanager
async def socket_server(recorder: Recorder, inline: bool) -> AsyncIterator[str]:
    async def handler(ws: GameSocket) -> None:
        await recorder.handler(ws, inline)

    server: Server = await serve(
        handler,  # type: ignore[arg-type]
        "127.0.0.1",
        0,
        create_connection=GameSocket,
    )
    try:
        port = next(iter(server.sockets)).getsockname()[1]
        yield f"ws://127.0.0.1:{port}/"
    finally:
        server.close()
        await server.wait_closed()


async def until(check: object, within: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + within
    while not check():  # type: ignore[operator]
        assert asyncio.get_running_loop().time() < deadline, "condition still false"
        await asyncio.sleep(0.01)


@pytest.mark.parametrize("inline", [True, False])
async def test_messages_are_served_in_order_inline_only_on_an_inline_store(inline: bool) -> None:
    recorder = Recorder()
    async with socket_server(recorder, inline) as url, connect(url) as ws:
        for n in range(20):
            await ws.send(f"m{n}")
        await ws.send(b"\x00binary")
        await ws.send(["frag", "mented"])  # one message in three frames
        await until(lambda: len(recorder.messages) == 22)
    assert recorder.messages == [f"m{n}" for n in range(20)] + [b"\x00binary", "fragmented"]
    # Inline: served inside the read callback, no task; otherwise a task each.
    assert set(recorder.in_task) == {not inline}


async def test_messages_wait_behind_one_that_waits_and_reading_pauses_past_the_mark() -> None:
    recorder = Recorder()
    recorder.gate.clear()
    async with socket_server(recorder, inline=True) as url, connect(url) as ws:
        await ws.send("wait")
        for n in range(HIGH * 3):
            await ws.send(f"m{n}")
        await until(lambda: recorder.sockets and not recorder.sockets[0].transport.is_reading())
        assert recorder.messages == []  # nothing overtook the waiting message
        recorder.gate.set()
        await until(lambda: len(recorder.messages) == HIGH * 3 + 1)
        assert recorder.messages == ["wait", *(f"m{n}" for n in range(HIGH * 3))]
        assert recorder.sockets[0].transport.is_reading()


async def test_a_message_sent_just_before_closing_is_served_before_the_handler_ends() -> None:
    recorder = Recorder()
    recorder.gate.clear()
    async with socket_server(recorder, inline=True) as url:
        async with connect(url) as ws:
            await ws.send("wait")
            await ws.send("last words")
        await until(lambda: recorder.sockets and recorder.sockets[0].state.name == "CLOSED")
        recorder.gate.set()
        await until(lambda: recorder.messages == ["wait", "last words"])


async def test_the_game_server_answers_a_hello_sent_in_fragments() -> None:
    async with serving(fast_settings()) as game, connect(ws_url(game)) as ws:
        await ws.send(['{"type": "hel', f'lo", "version": {PROTOCOL_VERSION}, ', '"name": "Frag"}'])
        welcome = await asyncio.wait_for(ws.recv(), 10)
    assert '"welcome"' in str(welcome)


async def test_the_game_server_serves_messages_inline_on_the_memory_store() -> None:
    async with serving(fast_settings()) as game, connect(ws_url(game)) as ws:
        await ws.send(f'{{"type": "hello", "version": {PROTOCOL_VERSION}, "name": "Ana"}}')
        await asyncio.wait_for(ws.recv(), 10)
        (conn,) = game.connections
        assert isinstance(conn.ws, GameSocket) and conn.ws._inline is game.store.inline is True
