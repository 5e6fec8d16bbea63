"""A bare ``websockets`` server speaking just enough of our protocol to be driven by the
load generator, with no game logic: the yardstick the real server is measured against.

For every ``act`` from a seat it sends one ``patch`` frame to each connection of the room
(4 seats and 1 spectator), padded to ``--patch-bytes`` (the median patch size measured on
the real server), the actor's copy carrying its ``seq``. The "game" is a turn that moves
to the next seat after every action, with ``end`` as the only legal action, so the same
client code that plays the real game plays this one.

It uses the real server's connection settings (``max_size``, no compression, the same
keepalive pings) so the idle-connection benchmark can compare memory like for like::

    python -m benchmarks.baseline_server --port 0 --patch-bytes 400

prints ``baseline serving on http://HOST:PORT/`` once listening; SIGTERM stops it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import signal
import sys
from dataclasses import dataclass, field
from typing import Any

import orjson
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from server.app import deflate_extensions
from server.config import Settings, load
from server.event_loop import loop_factory

SEATS = 4
_PAD_OVERHEAD = len(b',"pad":""')


def _padded(message: dict[str, Any], size: int) -> bytes:
    """``message`` as JSON with a ``pad`` field making it ``size`` bytes (or as small as it is)."""
    data = orjson.dumps(message)
    missing = size - len(data) - _PAD_OVERHEAD
    if missing < 0:
        return data
    return data[:-1] + b',"pad":"' + b"x" * missing + b'"}'


@dataclass(eq=False)
class BareRoom:
    """A room without rules: members, a version and whose turn it is."""

    code: str
    members: list[tuple[ServerConnection, int | None]] = field(default_factory=list)
    version: int = 1
    turn: int = 0
    playing: bool = False

    def doc(self, seat: int | None) -> dict[str, Any]:
        game = {"turn": self.turn, "legal": ["end"]} if self.playing and seat is not None else None
        if self.playing and seat is None:
            game = {"turn": self.turn}
        return {"room": {"phase": "playing" if self.playing else "lobby"}, "game": game}


class BaselineServer:
    """Message handling of the bare server; ``patch_bytes`` and ``snapshot_bytes`` set sizes."""

    def __init__(self, patch_bytes: int, snapshot_bytes: int) -> None:
        self.patch_bytes = patch_bytes
        self.snapshot_bytes = snapshot_bytes
        self.rooms: dict[str, BareRoom] = {}
        self._codes = itertools.count(1)

    async def handle(self, ws: ServerConnection) -> None:
        """Serve one connection until it closes."""
        room: BareRoom | None = None
        seat: int | None = None
        try:
            while True:
                data = await ws.recv(decode=False)
                message = orjson.loads(data)
                kind = message.get("type")
                if kind == "act" and room is not None:
                    await self._act(room, ws, message.get("seq"))
                elif kind == "hello":
                    await ws.send(b'{"type":"welcome","version":1,"server":"baseline"}', text=True)
                elif kind in ("create", "join") and room is None:
                    room, seat = self._enter(message)
                    room.members.append((ws, seat))
                    joined = {"type": "joined", "room": room.code, "role": "player", "seat": seat}
                    await ws.send(orjson.dumps({**joined, "token": None}), text=True)
                    await ws.send(self._snapshot(room, seat), text=True)
                elif kind == "start" and room is not None:
                    room.playing = True
                    room.version += 1
                    for member, member_seat in room.members:
                        await member.send(self._snapshot(room, member_seat), text=True)
                elif kind == "resync" and room is not None:
                    await ws.send(self._snapshot(room, seat), text=True)
                elif kind == "leave" and room is not None:
                    room.members.remove((ws, seat))
                    await ws.send(orjson.dumps({"type": "left", "room": room.code}), text=True)
                    room = None
                elif kind not in ("next_hand", "ready"):
                    error = {"type": "error", "code": "bad_message", "message": "?", "seq": None}
                    await ws.send(orjson.dumps(error), text=True)
        except ConnectionClosed:
            pass
        finally:
            if room is not None and (ws, seat) in room.members:
                room.members.remove((ws, seat))
                if not room.members:
                    self.rooms.pop(room.code, None)

    def _enter(self, message: dict[str, Any]) -> tuple[BareRoom, int | None]:
        spectate = bool(message.get("spectate"))
        if message["type"] == "create":
            code = f"B{next(self._codes):05d}"
            room = self.rooms[code] = BareRoom(code)
            return room, None if spectate else 0
        room = self.rooms[message["room"]]
        return room, None if spectate else message.get("seat")

    def _snapshot(self, room: BareRoom, seat: int | None) -> bytes:
        message = {"type": "snapshot", "room": room.code, "version": room.version}
        return _padded({**message, "doc": room.doc(seat)}, self.snapshot_bytes)

    async def _act(self, room: BareRoom, actor: ServerConnection, seq: int | None) -> None:
        old = room.version
        room.version += 1
        room.turn = (room.turn + 1) % SEATS
        patch = {
            "type": "patch",
            "room": room.code,
            "from": old,
            "to": room.version,
            "ops": [{"op": "replace", "path": "/game/turn", "value": room.turn}],
            "log": [],
            "seq": None,
        }
        frame = _padded(patch, self.patch_bytes)
        own = _padded({**patch, "seq": seq}, self.patch_bytes)
        for member, _ in list(room.members):
            with contextlib.suppress(ConnectionClosed):
                await member.send(own if member is actor else frame, text=True)


async def serve_forever(args: argparse.Namespace) -> None:
    """Listen until SIGINT or SIGTERM."""
    server = BaselineServer(args.patch_bytes, args.snapshot_bytes)
    async with serve(
        server.handle,
        args.host,
        args.port,
        compression=None,
        # The same permessage-deflate settings as the game server's defaults, when on.
        extensions=deflate_extensions(Settings(compression=args.compression)),
        max_size=args.max_message,
        ping_interval=args.ping_interval,
        ping_timeout=args.ping_timeout,
    ) as ws_server:
        port = next(iter(ws_server.sockets)).getsockname()[1]
        print(f"baseline serving on http://{args.host}:{port}/", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()


def main(argv: list[str] | None = None) -> int:
    """Parse the flags (the real server's defaults for connection settings) and serve."""
    defaults = load([])  # the environment's KC_* settings, as the game server reads them
    parser = argparse.ArgumentParser(prog="python -m benchmarks.baseline_server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--patch-bytes", type=int, default=400)
    parser.add_argument("--snapshot-bytes", type=int, default=0)
    parser.add_argument("--max-message", type=int, default=defaults.max_message)
    parser.add_argument("--ping-interval", type=float, default=defaults.ping_interval)
    parser.add_argument("--ping-timeout", type=float, default=defaults.ping_timeout)
    parser.add_argument("--compression", action="store_true", help="permessage-deflate")
    args = parser.parse_args(argv)
    # The same event loop as the game server (uvloop where installed, unless KC_UVLOOP=0).
    with asyncio.Runner(loop_factory=loop_factory(defaults.uvloop)) as runner:
        runner.run(serve_forever(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
