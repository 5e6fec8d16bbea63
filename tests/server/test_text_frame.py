"""Frames the server writes itself are the frames websockets would write."""

from __future__ import annotations

import pytest
from websockets.frames import Frame, Opcode

from server.connection import text_frame


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 4096, 65535, 65536, 70000])
def test_a_text_frame_is_byte_for_byte_what_websockets_writes(size: int) -> None:
    payload = bytes(range(256)) * (size // 256) + bytes(range(size % 256))
    assert len(payload) == size
    expected = Frame(Opcode.TEXT, payload).serialize(mask=False, extensions=[])
    assert text_frame(payload) == expected
