"""websockets' asyncio server connection, reading straight into the command path.

websockets stays the protocol library: its Sans-I/O ``ServerProtocol`` parses the handshake
and every frame (limits, masking, fragments, compression, control frames, closing), and its
asyncio connection drives that protocol from ``data_received`` and handles pings and closing.
What :class:`GameSocket` leaves out is its per-message machinery for a handler that reads with
``recv``: the assembler, its queue and a task woken for every message. Each complete message
is handed to one ``serve`` coroutine from ``data_received``, in order and one at a time; on an
inline store it runs eagerly (:mod:`server.eager`), so most messages are answered before the
read callback returns. Messages that arrive while one is still being served wait in a queue
whose length pauses reading, as websockets' own does; so does an outgoing buffer over its
high-water mark, so a peer that never reads cannot make the server buffer pongs without end.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.frames import CloseCode, Frame, Opcode
from websockets.protocol import OPEN, Event

from . import eager

#: Messages received while one is being served: reading pauses at ``HIGH`` waiting and
#: resumes at ``LOW`` (websockets' own defaults for its queue).
HIGH = 16
LOW = 4
#: Most fragments one message may come in (its bytes are bounded by ``max_size`` already).
MAX_FRAGMENTS = 256
#: Bytes kept that arrive after the opening request and before its answer (a client's
#: first frames, sent without waiting); more is dropped (a flood of pipelined requests).
MAX_EARLY = 2**16

Serve = Callable[[str | bytes], Coroutine[Any, Any, None]]


class GameSocket(ServerConnection):
    """A server connection whose messages go to :meth:`serve_messages`' coroutine."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._serve: Serve | None = None
        self._inline = False
        self._context: contextvars.Context | None = None
        self._waiting: deque[str | bytes] = deque()
        self._busy: asyncio.Task[None] | None = None
        self._drained: asyncio.Future[None] | None = None
        self._fragments: list[bytes] = []
        self._fragmented_text = False
        self._refused = False
        self._reading_paused = False
        #: The transport's outgoing buffer is over its high-water mark (``pause_writing``).
        self._write_held = False
        self._closer: asyncio.Task[None] | None = None
        #: Bytes received after the request's head, until the handshake is answered (None
        #: after), and where that head ended (-1: not yet; the last bytes seen so far).
        self._after_head: bytearray | None = bytearray()
        self._head_end = -1
        self._head_tail = b""

    def serve_messages(self, serve: Serve, *, inline: bool) -> None:
        """From now on hand each complete message to ``serve`` (text as ``str``, binary as
        ``bytes``), in the caller's context; ``inline``: run it eagerly (an inline store).

        ``serve`` must not raise: what it cannot handle it answers or closes for itself.
        """
        self._serve = serve
        self._inline = inline
        self._context = contextvars.copy_context()
        self._pump()

    async def drained(self) -> None:
        """Wait until every message received so far has been served."""
        if self._serve is None:
            self._waiting.clear()
            return
        self._pump()
        if self._busy is None and not self._waiting:
            return
        if self._drained is None or self._drained.done():
            self._drained = self.loop.create_future()
        await asyncio.shield(self._drained)

    def data_received(self, data: bytes) -> None:
        # Until the opening handshake is answered, the protocol gets the request's head and
        # nothing after it: websockets would read a second, pipelined request as frames (a
        # protocol error before any answer). What follows the head is kept for a WebSocket
        # (a client may send its first frames at once) and dropped after an HTTP answer,
        # which closes the connection.
        if self._after_head is None:
            super().data_received(data)
            return
        if self._head_end < 0:
            start = max(0, len(self._head_tail) - 3)
            seen = self._head_tail + data
            found = seen.find(b"\r\n\r\n", start)
            if found < 0:
                self._head_tail = seen[-3:]
                super().data_received(data)
                return
            cut = found + 4 - len(self._head_tail)
            self._head_end = cut
            super().data_received(data[:cut])
            data = data[cut:]
        if len(self._after_head) + len(data) <= MAX_EARLY:
            self._after_head += data

    async def handshake(self, *args: Any, **kwargs: Any) -> None:
        try:
            await super().handshake(*args, **kwargs)
        finally:
            early, self._after_head = self._after_head, None
            if early and self.protocol.state is OPEN:
                super().data_received(bytes(early))

    def process_event(self, event: Event) -> None:
        if self.request is None or not isinstance(event, Frame):
            super().process_event(event)  # the handshake request
            return
        opcode = event.opcode
        if opcode is Opcode.TEXT or opcode is Opcode.BINARY:
            if event.fin:
                self._received(event.data, opcode is Opcode.TEXT)
            else:
                self._fragments = [bytes(event.data)]
                self._fragmented_text = opcode is Opcode.TEXT
        elif opcode is Opcode.CONT:
            # The protocol refuses a continuation that continues nothing.
            fragments = self._fragments
            fragments.append(bytes(event.data))
            if len(fragments) > MAX_FRAGMENTS:
                fragments.clear()
                self._refuse(CloseCode.MESSAGE_TOO_BIG, "too many fragments")
            elif event.fin:
                self._fragments = []
                self._received(b"".join(fragments), self._fragmented_text)
        elif opcode is Opcode.PONG:
            self.acknowledge_pings(bytes(event.data))

    def _received(self, data: bytes | bytearray | memoryview, text: bool) -> None:
        if self._refused:
            return
        message: str | bytes
        if text:
            try:
                message = bytes(data).decode()
            except UnicodeDecodeError as exc:
                self._refuse(CloseCode.INVALID_DATA, f"{exc.reason} at position {exc.start}")
                return
        else:
            message = bytes(data)
        if self._serve is None or self._busy is not None or self._waiting:
            self._waiting.append(message)
            self._read_or_not()
            return
        self._run(message)

    def _read_or_not(self) -> None:
        """Read while fewer than ``HIGH`` messages wait (down to ``LOW`` once paused) and
        the outgoing buffer is under its high-water mark: a peer that sends and never reads
        (pings, whose pongs would pile up in the buffer) is read no more until it reads."""
        waiting = len(self._waiting)
        hold = self._write_held or waiting >= HIGH or (self._reading_paused and waiting > LOW)
        if hold != self._reading_paused and not self.transport.is_closing():
            self._reading_paused = hold
            if hold:
                self.transport.pause_reading()
            else:
                self.transport.resume_reading()

    def pause_writing(self) -> None:
        super().pause_writing()
        self._write_held = True
        self._read_or_not()

    def resume_writing(self) -> None:
        super().resume_writing()
        self._write_held = False
        self._read_or_not()

    def _refuse(self, code: CloseCode, reason: str) -> None:
        """Close for a message the protocol passed but this connection cannot take."""
        self._refused = True
        self._waiting.clear()
        if self._closer is None:
            self._closer = self.loop.create_task(self.close(code, reason))

    def _run(self, message: str | bytes) -> None:
        assert self._serve is not None and self._context is not None
        coro = self._serve(message)
        if self._inline:
            try:
                task = eager.start(coro, self._context)
            except Exception:
                self.logger.error("message handler failed", exc_info=True)
                self._refuse(CloseCode.INTERNAL_ERROR, "internal error")
                return
        else:
            task = self.loop.create_task(coro, context=self._context)
        if task is not None:
            self._busy = task
            task.add_done_callback(self._served)

    def _served(self, task: asyncio.Task[None]) -> None:
        self._busy = None
        if not task.cancelled() and task.exception() is not None:
            # ``serve`` broke its promise not to raise: nothing more is served.
            self.logger.error("message handler failed", exc_info=task.exception())
            self._refuse(CloseCode.INTERNAL_ERROR, "internal error")
        self._pump()

    def _pump(self) -> None:
        """Serve the waiting messages, in order, while each finishes at once."""
        waiting = self._waiting
        while waiting and self._busy is None and self._serve is not None:
            self._run(waiting.popleft())
        self._read_or_not()
        drained = self._drained
        if self._busy is None and not waiting and drained is not None and not drained.done():
            drained.set_result(None)
