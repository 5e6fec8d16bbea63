"""The room a WebSocket's URL names (``/?room=CODE``): read safely, decided by nothing.

The load balancer's routing by room is tested with the real nginx in
tests/deploy/test_room_routing.py; these check the parsing on both sides of the wire.
"""

from __future__ import annotations

import pytest

from clients.net import room_url
from server.routing import UrlRoom, room_in_url


@pytest.mark.parametrize(
    ("path", "kind", "code"),
    [
        ("/", UrlRoom.NONE, None),
        ("/?room", UrlRoom.NONE, None),
        ("/?rooms=K7QMXA", UrlRoom.NONE, None),
        ("/?room=K7QMXA", UrlRoom.CODE, "K7QMXA"),
        ("/ws?x=1&room=K7QMXA&room=ZZZZZZ", UrlRoom.CODE, "K7QMXA"),  # the first, as nginx
        ("/?room=XXXXXX&room=K7QMXA", UrlRoom.CODE, "XXXXXX"),
        ("/?room=ZZZZZZ&room=K7QMXA", UrlRoom.INVALID, None),  # Z is no letter of a code
        ("/?room=", UrlRoom.INVALID, None),
        ("/?room=k7qmxa", UrlRoom.INVALID, None),  # codes are upper case
        ("/?room=K7QMX", UrlRoom.INVALID, None),
        ("/?room=K7QMXAB", UrlRoom.INVALID, None),
        ("/?room=BBBBBB", UrlRoom.INVALID, None),  # B is no letter of a code
        ("/?room=%4B7QMXA", UrlRoom.INVALID, None),  # never decoded
        ("/?room=../../etc", UrlRoom.INVALID, None),
        ("/?" + "&" * 1000 + "room=K7QMXA", UrlRoom.CODE, "K7QMXA"),
        ("/?room=" + "x" * 1000, UrlRoom.INVALID, None),
    ],
)
def test_the_server_reads_the_room_of_a_url(path: str, kind: UrlRoom, code: str | None) -> None:
    assert room_in_url(path) == (kind, code)


def test_the_client_names_the_room_in_the_url_it_was_given() -> None:
    assert room_url("ws://host:8000/", "k7qmxa") == "ws://host:8000/?room=K7QMXA"
    assert room_url("ws://host:8000", "K7QMXA") == "ws://host:8000/?room=K7QMXA"
    assert room_url("wss://host/ws?a=b&room=ZZZZZZ", "K7QMXA") == "wss://host/ws?a=b&room=K7QMXA"
    assert room_url("ws://host/?room=ZZZZZZ", None) == "ws://host/"
    kind, code = room_in_url(room_url("ws://host/play", "K7QMXA").partition("host")[2])
    assert (kind, code) == (UrlRoom.CODE, "K7QMXA")
