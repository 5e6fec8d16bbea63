"""Frames the server writes itself are the frames websockets would write."""

from __future__ import annotations

import pytest
from websockets.extensions.permessage_deflate import PerMessageDeflate
from websockets.frames import Frame, Opcode

from server.compression import IdleFreeDeflate
from server.connection import text_frame


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 4096, 65535, 65536, 70000])
def test_a_text_frame_is_byte_for_byte_what_websockets_writes(size: int) -> None:
    payload = bytes(range(256)) * (size // 256) + bytes(range(size % 256))
    assert len(payload) == size
    expected = Frame(Opcode.TEXT, payload).serialize(mask=False, extensions=[])
    assert text_frame(payload) == expected


def test_one_payload_sent_to_many_is_framed_once_and_equal_payloads_are_not_confused() -> None:
    payload = b'{"type":"patch"}'
    first = text_frame(payload)
    assert text_frame(payload) is first  # the same object again: framed once
    other = b'{"type":"patch","x":1}'
    assert text_frame(other) == Frame(Opcode.TEXT, other).serialize(mask=False, extensions=[])
    copy = bytes(bytearray(payload))  # equal, not the same object: framed afresh, same bytes
    assert text_frame(copy) == first
    assert text_frame(b"") == b"\x81\x00"


@pytest.mark.parametrize("no_context", [False, True])
async def test_a_compressed_text_frame_is_byte_for_byte_what_websockets_writes(
    no_context: bool,
) -> None:
    def twin() -> IdleFreeDeflate:
        base = PerMessageDeflate(True, no_context, 13, 13, {"memLevel": 4})
        return IdleFreeDeflate(base, idle=5.0)

    ours, theirs = twin(), twin()
    try:
        # A run of messages: each compresses against the ones before (unless no context).
        sizes = [0, 1, 60, 125, 126, 200, 4096, 70000, 198, 198]
        for n, size in enumerate(sizes):
            payload = (b'{"type":"patch","n":%d}' % n + bytes(range(256)) * 300)[:size]
            expected = Frame(Opcode.TEXT, payload).serialize(mask=False, extensions=[theirs])
            assert ours.text_frame(payload) == expected
        assert ours.holding is (not no_context)
    finally:
        ours.release()
        theirs.release()
