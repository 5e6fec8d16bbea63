"""The admin view: JSON endpoints behind a bearer token, and the ``kings-corner admin`` CLI.

Disabled (404) unless ``KC_ADMIN_TOKEN`` is set. The endpoints are GET requests because the
game port speaks HTTP only for the WebSocket handshake's sake (websockets accepts GET only);
the token travels in the ``Authorization`` header, which browsers never add on their own,
so a foreign page cannot trigger them.

- ``GET /admin/rooms``: every stored room with phase, seats, spectators, age and members.
- ``GET /admin/rooms/CODE/close``: tell everyone in the room, then delete it.
- ``GET /admin/connections/ID/kick``: close one connection (on whichever process holds it).
"""

from __future__ import annotations

import argparse
import hmac
import json
import logging
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Sequence
from http import HTTPStatus
from typing import Any

from websockets.http11 import Request

from protocol.errors import KingsCornerError, UpgradeNeeded
from protocol.frames import frame
from protocol.messages import KickedOut

from .config import Settings
from .live_room import RoomConnection
from .lobby import Lobby
from .room import Room
from .store.base import Store

Reply = tuple[HTTPStatus, dict[str, Any]]
log = logging.getLogger(__name__)


def _authorized(settings: Settings, request: Request) -> bool:
    values = request.headers.get_all("Authorization")
    if len(values) != 1:
        return False
    scheme, _, given = values[0].partition(" ")
    expected = settings.admin_token
    return scheme.lower() == "bearer" and hmac.compare_digest(given.encode(), expected.encode())


async def handle(settings: Settings, store: Store, request: Request) -> Reply:
    """Answer one ``/admin/...`` request."""
    if not settings.admin_token:
        return HTTPStatus.NOT_FOUND, {"error": "admin is disabled"}
    if len(request.headers.get_all("Authorization")) > 1:
        log.info("bad admin request: more than one Authorization header")
        return HTTPStatus.BAD_REQUEST, {"error": "one Authorization header, please"}
    if not _authorized(settings, request):
        return HTTPStatus.UNAUTHORIZED, {"error": "admin token required"}
    parts = request.path.split("?", 1)[0].strip("/").split("/")
    try:
        if parts == ["admin", "rooms"]:
            return HTTPStatus.OK, {"rooms": await list_rooms(store)}
        if len(parts) == 4 and parts[:2] == ["admin", "rooms"] and parts[3] == "close":
            code = parts[2].upper()
            if code not in await store.room_codes():
                return HTTPStatus.NOT_FOUND, {"error": "no such room"}
            await store.publish("admin", {"kind": "close", "room": code})
            await store.delete_room(code, closed=True)
            return HTTPStatus.OK, {"closed": code}
        if len(parts) == 4 and parts[:2] == ["admin", "connections"] and parts[3] == "kick":
            await store.publish("admin", {"kind": "kick", "conn": parts[2]})
            return HTTPStatus.OK, {"kicked": parts[2]}
    except KingsCornerError as exc:
        return HTTPStatus.SERVICE_UNAVAILABLE, {"error": exc.code}
    return HTTPStatus.NOT_FOUND, {"error": "unknown admin path"}


async def list_rooms(store: Store) -> list[dict[str, Any]]:
    """Every stored room, folded from its log, with who is connected to it."""
    rooms = []
    now = time.time()
    for code in sorted(await store.room_codes()):
        try:
            events = await store.read(code)
        except KingsCornerError:
            continue  # deleted meanwhile
        members = await store.presence(code)
        try:
            room = Room.from_events(events)
        except UpgradeNeeded as exc:
            # Written by a newer release: listed, not folded (a newer process serves it).
            entry = {"room": code, "upgrade_needed": exc.params, "version": len(events)}
            rooms.append({**entry, "members": members})
            continue
        rooms.append(
            {
                "room": code,
                "phase": room.phase,
                "seats": [s.public() if s else None for s in room.seats],
                "spectators": sum(1 for m in members if m.get("role") == "spectator"),
                "members": members,
                "age_s": round(now - room.created_at, 1),
                "version": room.version,
            }
        )
    return rooms


async def on_message(
    lobby: Lobby, connections: Iterable[RoomConnection], message: dict[str, Any]
) -> None:
    """Carry out an admin order announced to every process."""
    kind = message.get("kind")
    if kind == "close":
        live = lobby.rooms.get(str(message.get("room")))
        if live is None:
            return
        kicked = frame(KickedOut, room=live.code)
        for conn in live.connections:
            conn.send(kicked)
            live.detach(conn, quiet=True)
        await lobby.drop(live.code)
    elif kind == "kick":
        for conn in list(connections):
            if conn.id == message.get("conn"):
                await conn.ws.close(1008, "closed by an administrator")


def main(argv: Sequence[str] | None = None) -> int:
    """``kings-corner admin [--url URL] [--token T] rooms | close CODE | kick CONN``."""
    import os

    parser = argparse.ArgumentParser(prog="kings-corner admin")
    parser.add_argument("--url", default=os.environ.get("KC_ADMIN_URL", "http://127.0.0.1:8000"))
    parser.add_argument("--token", default=os.environ.get("KC_ADMIN_TOKEN", ""))
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("rooms", help="list rooms")
    close = sub.add_parser("close", help="close a room")
    close.add_argument("room")
    kick = sub.add_parser("kick", help="close a connection")
    kick.add_argument("conn")
    args = parser.parse_args(argv)
    path = {
        "rooms": "/admin/rooms",
        "close": f"/admin/rooms/{getattr(args, 'room', '')}/close",
        "kick": f"/admin/connections/{getattr(args, 'conn', '')}/kick",
    }[args.command]
    request = urllib.request.Request(
        args.url.rstrip("/") + path, headers={"Authorization": f"Bearer {args.token}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            payload = json.load(reply)
    except urllib.error.HTTPError as exc:
        print(exc.read().decode(errors="replace"), file=sys.stderr)
        return 1
    if args.command == "rooms":
        for room in payload["rooms"]:
            seats = ", ".join(s["name"] if s else "-" for s in room["seats"])
            print(
                f"{room['room']}  {room['phase']:9}  seats: {seats}  "
                f"spectators: {room['spectators']}  age: {room['age_s']}s"
            )
    else:
        print(json.dumps(payload))
    return 0
