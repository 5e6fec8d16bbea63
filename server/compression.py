"""permessage-deflate that costs an idle connection nothing.

websockets keeps one zlib compressor per connection for as long as the connection lives
(with a 1 KiB window and the lowest memory level, about 10 KiB of zlib state; at its
defaults about 40 KiB). Here the compressor is made for the first frame that goes out and
dropped after ``idle`` seconds without one; the next frame starts a new one. That is
always allowed (RFC 7692 lets a sender compress without the context of earlier messages;
the client's decompressor only ever follows back-references the compressor made), so a
connection in an active game compresses every patch against the ones before it, and a
quiet one holds no zlib memory at all.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import time
import zlib
from collections.abc import Sequence
from typing import Any

from websockets.extensions.base import Extension
from websockets.extensions.permessage_deflate import (
    PerMessageDeflate,
    ServerPerMessageDeflateFactory,
)
from websockets.frames import Frame
from websockets.typing import ExtensionParameter


def _malloc_trim() -> Any:
    """glibc's ``malloc_trim``, or None where the C library has none."""
    name = ctypes.util.find_library("c")
    try:
        return getattr(ctypes.CDLL(name), "malloc_trim", None) if name else None
    except OSError:  # pragma: no cover - no C library to load
        return None


_TRIM = _malloc_trim()
_trimming: list[asyncio.TimerHandle] = []


def _trim_soon() -> None:
    """Give freed zlib memory back to the system, once a second at most.

    zlib's buffers come from the C allocator; freed, they stay in its heap (and in the
    process's resident memory) until ``malloc_trim`` hands whole free pages back.
    """
    if _TRIM is None or _trimming:
        return

    def trim() -> None:
        _trimming.clear()
        _TRIM(0)

    _trimming.append(asyncio.get_running_loop().call_later(1.0, trim))


class IdleFreeDeflate(PerMessageDeflate):
    """A server's permessage-deflate whose compressor lives only while frames go out."""

    def __init__(self, base: PerMessageDeflate, idle: float) -> None:
        super().__init__(
            base.remote_no_context_takeover,
            True,  # no compressor made now (see encode)
            base.remote_max_window_bits,
            base.local_max_window_bits,
            base.compress_settings,
        )
        self.local_no_context_takeover = base.local_no_context_takeover
        self._idle = idle
        self._used = 0.0
        self._timer: asyncio.TimerHandle | None = None

    @property
    def holding(self) -> bool:
        """True while a compressor (and its window) is kept."""
        return hasattr(self, "encoder")

    def encode(self, frame: Frame) -> Frame:
        self._ready()
        return super().encode(frame)

    def text_frame(self, payload: bytes) -> bytes:
        """The whole compressed text frame for ``payload``, byte for byte what websockets
        writes through :meth:`encode` (one final frame, RSV1 set), without building its
        frame objects: this runs once per connection for every change."""
        self._ready()
        if self.local_no_context_takeover:
            self.encoder = zlib.compressobj(
                wbits=-self.local_max_window_bits, **self.compress_settings
            )
        encoder = self.encoder
        data = encoder.compress(payload) + encoder.flush(zlib.Z_SYNC_FLUSH)
        if self.local_no_context_takeover:
            del self.encoder
        return frame_header(0xC1, len(data) - 4) + data[:-4]  # without the flush's empty block

    def _ready(self) -> None:
        """Make the compressor if there is none, and note the time for the idle check."""
        if not self.local_no_context_takeover and not self.holding:
            self.encoder = zlib.compressobj(
                wbits=-self.local_max_window_bits, **self.compress_settings
            )
        self._used = time.monotonic()
        if self._timer is None and self.holding:
            self._timer = asyncio.get_running_loop().call_later(self._idle, self._check)

    def _check(self) -> None:
        quiet = time.monotonic() - self._used
        if quiet >= self._idle:
            self._timer = None
            self.release()
        else:
            self._timer = asyncio.get_running_loop().call_later(self._idle - quiet, self._check)

    def release(self) -> None:
        """Drop the compressor now (between two messages)."""
        if self.holding:
            del self.encoder
            _trim_soon()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def frame_header(first: int, size: int) -> bytes:
    """A server's (unmasked) frame header: ``first`` (FIN, RSV and opcode bits), then the
    payload length ``size`` as RFC 6455 5.2 encodes it."""
    if size < 126:
        return bytes((first, size))
    if size < 1 << 16:
        return bytes((first, 126)) + size.to_bytes(2, "big")
    return bytes((first, 127)) + size.to_bytes(8, "big")


class IdleFreeDeflateFactory(ServerPerMessageDeflateFactory):
    """Negotiates permessage-deflate as websockets does; each connection gets an
    :class:`IdleFreeDeflate`."""

    def __init__(self, idle: float, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.idle = idle

    def process_request_params(
        self, params: Sequence[ExtensionParameter], accepted_extensions: Sequence[Extension]
    ) -> tuple[list[ExtensionParameter], PerMessageDeflate]:
        response, extension = super().process_request_params(params, accepted_extensions)
        return response, IdleFreeDeflate(extension, self.idle)


__all__ = ["IdleFreeDeflate", "IdleFreeDeflateFactory", "frame_header"]
