"""What browsers need: an Origin allowlist, and seat tokens that leak nothing by timing."""

from __future__ import annotations

import hashlib
import hmac

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from clients.net import GameClient
from protocol.errors import BadToken
from protocol.messages import RoomOptions
from server.app import port_of
from server.room import Room, create_event, new_token

from .helpers import UNIT, default_settings, serving, ws_url
from .rawws import HandshakeRefused, RawClient

ALLOWED = ("https://kings.example", "https://www.kings.example")


async def handshake_status(url: str, origin: str | None) -> int:
    """101 when the WebSocket opened (and said hello), else the HTTP status of the refusal."""
    try:
        async with connect(url, origin=origin, open_timeout=50 * UNIT) as ws:  # type: ignore[arg-type]
            await ws.send('{"type": "hello", "version": 1}')
            assert '"welcome"' in str(await ws.recv())
            return 101
    except InvalidStatus as exc:
        return exc.response.status_code


async def test_a_foreign_origin_is_refused_with_403_when_origins_are_set() -> None:
    async with serving(default_settings(origins=",".join(ALLOWED))) as game:
        url = ws_url(game)
        for origin in ALLOWED:
            assert await handshake_status(url, origin) == 101
        for origin in (
            "https://evil.example",
            "https://kings.example.evil.example",  # a prefix is not a match
            "http://kings.example",  # nor another scheme
            "https://kings.example:8443",  # nor another port
            "null",  # sandboxed frames and file:// pages
        ):
            assert await handshake_status(url, origin) == 403, origin


async def test_the_refusal_happens_before_the_upgrade() -> None:
    async with serving(default_settings(origins=ALLOWED[0])) as game:
        with pytest.raises(HandshakeRefused) as info:
            await RawClient.open(port_of(game), origin="https://evil.example")
        assert info.value.status == 403
        assert not game.connections


async def test_without_origins_any_origin_is_served() -> None:
    async with serving(default_settings()) as game:
        url = ws_url(game)
        assert await handshake_status(url, "https://anywhere.example") == 101
        assert await handshake_status(url, None) == 101


async def test_clients_without_an_origin_header_are_still_served_when_origins_are_set() -> None:
    async with serving(default_settings(origins=ALLOWED[0])) as game:
        assert await handshake_status(ws_url(game), None) == 101
        client = GameClient(ws_url(game), "Terminal")
        try:
            await client.connect()
        finally:
            await client.close()


# --- tokens ---------------------------------------------------------------------------------


def seated_room(tokens: list[str | None], code: str = "ACDEFG") -> Room:
    """A lobby room whose seat i is taken with ``tokens[i]`` (None: a bot, no token)."""
    room = Room(create_event(code, RoomOptions(seats=len(tokens))))
    for i, token in enumerate(tokens):
        event = room.decide_sit(i, f"P{i}", token) if token else None
        if event is None:
            event = {"e": "sit", "seat": i, "name": f"Bot {i}", "kind": "bot", "level": "random"}
        room.apply(event)
    return room


def test_a_seat_is_found_by_its_token_and_only_by_it() -> None:
    first = new_token()
    tokens = [first, new_token(), None, new_token()]
    room = seated_room(tokens)
    for seat, token in enumerate(tokens):
        if token is not None:
            assert room.seat_of_token(token) == seat
    other = seated_room([new_token(), None], code="HJKMNP")
    stored = room.seats[0].token_hash if room.seats[0] else None
    elsewhere = other.seats[0].token_hash if other.seats[0] else None
    assert stored and elsewhere
    forged = [
        "",
        "x" * 22,
        first[:-1],
        first + "A",
        first.swapcase(),
        stored,  # the stored hash is not a token
        elsewhere,
    ]
    for token in forged:
        with pytest.raises(BadToken):
            room.seat_of_token(token)


def test_tokens_are_stored_only_as_hashes() -> None:
    token = new_token()
    room = seated_room([token, None])
    seat = room.seats[0]
    assert seat is not None and seat.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert token not in repr(room.doc(0)) and token not in repr(room.doc(None))
    assert len(token) >= 22  # 128 random bits


def test_tokens_are_compared_in_constant_time_against_every_seat(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[str, str]] = []
    real = hmac.compare_digest

    def spy(a: str, b: str) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr("server.room.hmac.compare_digest", spy)
    first, last = new_token(), new_token()
    tokens = [first, None, new_token(), last]
    room = seated_room(tokens)
    holders = sum(1 for t in tokens if t is not None)
    # A hit on the first seat, a hit on the last, and a miss all compare against every
    # seat that holds a token: how long it takes says nothing about which seat matched.
    for token, seat in ((first, 0), (last, 3), ("forged-token-forged-tok", None)):
        calls.clear()
        if seat is None:
            with pytest.raises(BadToken):
                room.seat_of_token(token)
        else:
            assert room.seat_of_token(token) == seat
        assert len(calls) == holders
        digest = hashlib.sha256(token.encode()).hexdigest()
        assert all(digest in pair for pair in calls)
