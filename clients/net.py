"""A Python client for the kings-corner server: used by the tests, the bot and the terminal.

It keeps the viewer's document in step: a ``snapshot`` replaces it, a ``patch`` is applied
with ``jsonpatch`` when its ``from`` version matches, and a gap triggers a ``resync``.
With ``reconnect=True`` a dropped connection is re-established with backoff, and the seat
is resumed with its token.

Every connection names the room it is for in its URL when the client knows it
(``/?room=CODE``, :func:`room_url`): a room given to :meth:`GameClient.connect` (a link,
a join by code), and on every reconnection the room the client is in (also a room it
created, once the server named it). A load balancer that routes by it puts a room's
players on one server process (docs/protocol.md, "Transport"; docs/deploy.md). With
``move_to_room=True`` a client that entered a room on a connection not naming it (a
``create``, quick play) moves at once to one that does (:meth:`GameClient._move`).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import itertools
import random
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import jsonpatch
import orjson
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from protocol.messages import PROTOCOL_VERSION

Frame = dict[str, Any]

#: The protocol versions this client speaks, newest first. Version 1, as the server of the
#: release before spoke it, is version 2 without what version 2 added
#: (docs/protocol-changes.md): this client reads both.
SPOKEN_VERSIONS = (PROTOCOL_VERSION, 1)


#: How many recent chat lines are compared with a history (a room keeps 50).
CHAT_SEEN = 50

#: The refusals of a frame the server did not read (so they carry no ``seq``): the answer
#: to the request that frame was, :meth:`GameClient.act` included.
UNREAD_REFUSALS = frozenset({"rate_limited", "bad_message"})


def room_url(url: str, room: str | None) -> str:
    """``url`` with its ``room`` query parameter set to ``room`` (upper case, as the server
    writes codes and the load balancer hashes them), or removed when ``room`` is None; the
    path and any other parameters are kept."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "room"]
    if room is not None:
        query.append(("room", room.upper()))
    return urlunsplit(parts._replace(path=parts.path or "/", query=urlencode(query)))


def unseen(chat: Sequence[Frame], kept: Sequence[Frame]) -> list[Frame]:
    """The lines of ``kept`` (a ``chat_history``'s, as ``chat`` frames) this client has not
    shown yet. Lines with an ``id`` are told apart by it (a line can
    come live and in a history sent while it was on its way); lines without one (from a
    server that did not name them) by the longest run at the end of ``chat`` that the
    history's first lines repeat: after a reconnection the history repeats what this client
    heard before it left. Another room's history is all new."""
    ids = {line.get("id") for line in chat[-2 * CHAT_SEEN :] if line.get("id")}
    if kept and all(line.get("id") for line in kept):
        return [line for line in kept if line["id"] not in ids]

    def said(line: Frame) -> tuple[Any, ...]:
        return (line.get("room"), line.get("seat"), line.get("name"), line.get("text"))

    heard = [said(line) for line in chat[-len(kept) :]] if kept else []
    told = [said(line) for line in kept]
    for overlap in range(min(len(heard), len(told)), 0, -1):
        if heard[-overlap:] == told[:overlap]:
            return list(kept[overlap:])
    return list(kept)


class ServerError(Exception):
    """The server refused a request: ``code`` is its stable error code, ``params`` what
    words it (see :func:`clients.words.describe_error`)."""

    def __init__(self, frame: Frame) -> None:
        self.frame = frame
        self.code: str = frame["code"]
        self.params: dict[str, Any] = dict(frame.get("params") or {})
        self.message: str = frame["message"]
        self.seq: int | None = frame.get("seq")
        super().__init__(f"{self.code}: {self.message}")


class GameClient:
    """One connection to the server, with the viewer's document kept in step."""

    def __init__(
        self,
        url: str | Sequence[str],
        name: str = "Player",
        *,
        reconnect: bool = False,
        move_to_room: bool = False,
    ) -> None:
        #: Server addresses; after a dropped connection the next one is tried in turn.
        self.urls = [url] if isinstance(url, str) else list(url)
        #: The server address in use (as given: without the room the connection names).
        self.url = self.urls[0]
        #: The URL the current connection was opened at (``url`` with its room, if any).
        self.connected_url: str | None = None
        self.name = name
        self.reconnect = reconnect
        self.ws: ClientConnection | None = None
        self.doc: dict[str, Any] | None = None
        self.version = 0
        self.room: str | None = None
        self.seat: int | None = None
        self.token: str | None = None
        #: The secret player token (identity across visits): sent in every hello.
        self.player: str | None = None
        self.player_id: str | None = None
        #: The protocol version the server's last welcome settled (0 before).
        self.protocol = 0
        self.role: str | None = None
        #: Every frame received, decoded, in order (the tests audit them).
        self.frames: list[Frame] = []
        self.log: list[dict[str, Any]] = []
        self.chat: list[Frame] = []
        self.errors: list[Frame] = []
        self.close_code: int | None = None
        #: How many times the connection was re-established.
        self.reconnects = 0
        self._seq = itertools.count(1)
        self._changed = asyncio.Condition()
        self._reader: asyncio.Task[None] | None = None
        self._closing = False
        #: The join a reconnection sent, until it is answered with ``joined``: refused with
        #: ``store_unavailable`` (the store was away a moment), it is sent again.
        self._rejoin: Frame | None = None
        self._retry: asyncio.Task[None] | None = None
        #: Entering a room on a connection whose URL does not name it opens one that does.
        self.move_to_room = move_to_room
        #: How many times the client moved to a connection naming its room.
        self.moves = 0
        #: Set except while moving: sends wait for the connection they will go on.
        self._settled = asyncio.Event()
        self._settled.set()
        #: The connection being left by a move: what it still brings is not read.
        self._leaving: ClientConnection | None = None
        self._mover: asyncio.Task[None] | None = None

    # --- connection -----------------------------------------------------------------

    async def connect(self, room: str | None = None) -> GameClient:
        """Open the WebSocket and say hello; returns self. A refused hello raises
        :class:`ServerError` (the connection stays open).

        ``room``: the room this connection is about to join, when the caller knows it (a
        link, a code typed in), named in the URL for the load balancer's sake; the
        ``join`` itself is still to be sent. Without it, the room the client is in, if any.
        """
        self.connected_url = self._url_for(room or self.room)
        self.ws = await connect(self.connected_url, max_size=2**20, open_timeout=10)
        answer = await self._greet(self.ws)
        self._reader = asyncio.create_task(self._read())
        if answer["type"] == "error":
            raise ServerError(answer)
        return self

    def _url_for(self, room: str | None) -> str:
        """The server address in use, naming ``room`` when one is known (else as given)."""
        return self.url if room is None else room_url(self.url, room)

    def _hello(self, version: int = PROTOCOL_VERSION) -> Frame:
        hello: Frame = {"type": "hello", "version": version, "name": self.name}
        if self.player is not None:
            hello["player"] = self.player
        return hello

    async def _greet(self, ws: ClientConnection) -> Frame:
        """Say hello on a new socket and read until its answer: the ``welcome``, or the
        ``error`` refusing it. A server that refuses :data:`PROTOCOL_VERSION` but speaks
        another version of :data:`SPOKEN_VERSIONS` (an older release, in the middle of a
        rolling upgrade) is greeted again in that one; ``protocol`` is the version the
        welcome settled."""
        version = PROTOCOL_VERSION
        await self._send_on(ws, self._hello(version))
        while True:
            frame: Frame = orjson.loads(await ws.recv())
            self.frames.append(frame)
            await self._take(frame)
            if frame["type"] == "welcome":
                self.protocol = int(frame["version"])
                return frame
            if frame["type"] != "error":
                continue  # a status notice may come first
            supported = (frame.get("params") or {}).get("supported") or []
            common = [v for v in SPOKEN_VERSIONS if v in supported]
            if frame["code"] == "unsupported_version" and common and common[0] != version:
                version = common[0]
                await self._send_on(ws, self._hello(version))
                continue
            return frame

    async def close(self) -> None:
        self._closing = True
        if self._mover is not None:
            self._mover.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._mover
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader

    async def _send(self, message: Frame) -> None:
        await self._settled.wait()
        assert self.ws is not None
        await self._send_on(self.ws, message)

    @staticmethod
    async def _send_on(ws: ClientConnection, message: Frame) -> None:
        await ws.send(orjson.dumps(message).decode())

    async def send(self, message: Frame) -> None:
        """Send any message (the tests use this to send malformed ones too)."""
        await self._send(message)

    async def send_raw(self, data: str | bytes) -> None:
        assert self.ws is not None
        await self.ws.send(data)

    async def _read(self) -> None:
        while True:
            ws = self.ws
            assert ws is not None
            try:
                async for data in ws:
                    if ws is self._leaving or ws is not self.ws:
                        continue  # left by a move: the new connection's snapshot covers it
                    frame = orjson.loads(data)
                    self.frames.append(frame)
                    await self._take(frame)
                close_code = ws.close_code or 1006
            except ConnectionClosed as exc:
                close_code = exc.rcvd.code if exc.rcvd else 1006
            if ws is not self.ws:
                return  # a move replaced this connection; its reader runs on
            self.close_code = close_code
            async with self._changed:
                self._changed.notify_all()
            if self._closing or not self.reconnect:
                return
            await self._reconnect()

    async def _reconnect(self) -> None:
        delay = 0.05
        while not self._closing:
            self.url = self.urls[(self.urls.index(self.url) + 1) % len(self.urls)]
            try:
                # The room this client is in (joined, or created): the same process as the
                # room's other players, where the load balancer routes by room.
                self.connected_url = self._url_for(self.room)
                self.ws = await connect(self.connected_url, max_size=2**20, open_timeout=5)
                await self._greet(self.ws)
                self._rejoin = self._join_frame()
                if self._rejoin is not None:
                    await self._send(self._rejoin)
                self.close_code = None
                self.reconnects += 1
                return
            except (OSError, InvalidHandshake, ConnectionClosed, TimeoutError):
                await asyncio.sleep(delay + random.random() * delay)
                delay = min(delay * 2, 2.0)

    def _should_move(self) -> bool:
        """Whether the room just entered is not the one the connection's URL names."""
        return (
            self.move_to_room
            and self._settled.is_set()
            and self.room is not None
            and self._url_for(self.room) != self.connected_url
        )

    def _join_frame(self) -> Frame | None:
        """The ``join`` that takes this client back into its room on a new connection: its
        seat, with its token, or a spectator's place; None outside a room."""
        if self.room is None:
            return None
        if self.token is not None and self.role != "spectator":
            return {"type": "join", "room": self.room, "token": self.token}
        return {"type": "join", "room": self.room, "spectate": True}

    async def _move(self, within: float = 5.0) -> None:
        """Move to a connection whose URL names the room this client just entered.

        The new connection says hello as this player and joins with the seat's token (or
        as a spectator); once it holds the room, the old one is closed with 1000 and reason
        ``moved``, which tells the server the seat is not gone (docs/protocol.md,
        "Transport"). Meanwhile sends wait, and from the join on, the old connection is
        no longer read (a server holding both may tell it ``left``). If the move fails
        the client stays on the old connection and asks it for a fresh snapshot.
        """
        old, join = self.ws, self._join_frame()
        url = self._url_for(self.room)
        if old is None or join is None or url == self.connected_url or self._closing:
            return
        self._settled.clear()
        new: ClientConnection | None = None
        try:
            async with asyncio.timeout(within):
                new = await connect(url, max_size=2**20, open_timeout=within)
                if (await self._greet(new))["type"] != "welcome":
                    raise ConnectionError("hello refused")
                self._leaving = old
                await self._send_on(new, join)
                while True:
                    frame: Frame = orjson.loads(await new.recv())
                    self.frames.append(frame)
                    await self._take(frame)
                    if frame["type"] == "joined":
                        break
                    if frame["type"] == "error" and frame.get("code") != "unsupported_version":
                        raise ServerError(frame)
        except (OSError, InvalidHandshake, ConnectionClosed, TimeoutError, ServerError):
            if new is not None:
                await new.close()
            self._leaving = None
            self._settled.set()
            with contextlib.suppress(ConnectionClosed):
                await self._send({"type": "resync"})
            return
        self.ws, self.connected_url = new, url
        self.moves += 1
        self._settled.set()
        await old.close(1000, "moved")
        self._leaving = None
        self._reader = asyncio.create_task(self._read())

    async def _join_again(self, join: Frame, delay: float = 0.25) -> None:
        """Send a reconnection's refused ``join`` again after ``delay``, unless it was
        answered or another connection replaced this one meanwhile."""
        ws = self.ws
        await asyncio.sleep(delay)
        if self._rejoin is join and self.ws is ws and not self._closing:
            with contextlib.suppress(ConnectionClosed):
                await self._send(join)

    async def _take(self, frame: Frame) -> None:
        kind = frame["type"]
        if kind == "snapshot":
            self.doc = frame["doc"]
            self.version = frame["version"]
        elif kind == "patch":
            if self.doc is not None and frame["from"] == self.version:
                self.doc = jsonpatch.apply_patch(self.doc, frame["ops"])
                self.version = frame["to"]
                self.log.extend(frame.get("log") or [])  # left out when empty
            elif frame["to"] > self.version:
                await self._send({"type": "resync"})
        elif kind == "joined":
            self._rejoin = None
            self.room, self.seat, self.role = frame["room"], frame["seat"], frame["role"]
            if frame["token"] is not None:
                self.token = frame["token"]
            if self._should_move():
                self._mover = asyncio.ensure_future(self._move())
        elif kind in ("left", "kicked"):
            self.room = self.seat = self.role = self.doc = None
        elif kind == "welcome":
            self.player, self.player_id = frame["player"], frame["player_id"]
        elif kind == "chat":
            # A named line a history brought first (while this one was on its way) is shown.
            recent = {line.get("id") for line in self.chat[-CHAT_SEEN:]}
            if not frame.get("id") or frame["id"] not in recent:
                self.chat.append(frame)
        elif kind == "chat_history":
            kept = [{"type": "chat", "room": frame["room"], **line} for line in frame["lines"]]
            self.chat.extend(unseen(self.chat, kept))
        elif kind == "error":
            self.errors.append(frame)
            if self._rejoin is not None and frame["code"] == "store_unavailable":
                self._retry = asyncio.ensure_future(self._join_again(self._rejoin))
        async with self._changed:
            self._changed.notify_all()

    # --- waiting --------------------------------------------------------------------

    async def wait_for(
        self, match: Callable[[Frame], bool], *, timeout: float = 10.0, errors: bool = False
    ) -> Frame:
        """Wait for the next frame (from now) that ``match`` accepts.

        With ``errors=True`` an error frame arriving first raises :class:`ServerError`.
        """
        start = len(self.frames)

        def found() -> Frame | None:
            for frame in self.frames[start:]:
                if match(frame):
                    return frame
                if errors and frame["type"] == "error":
                    raise ServerError(frame)
            return None

        async with asyncio.timeout(timeout):
            async with self._changed:
                while True:
                    hit = found()
                    if hit is not None:
                        return hit
                    if self.close_code is not None and not self.reconnect:
                        raise ConnectionError(f"connection closed ({self.close_code})")
                    await self._changed.wait()

    async def until(self, check: Callable[[GameClient], bool], timeout: float = 10.0) -> None:
        """Wait until ``check(self)`` holds (re-checked after every frame)."""
        async with asyncio.timeout(timeout), self._changed:
            while not check(self):
                if self.close_code is not None and not self.reconnect:
                    raise ConnectionError(f"connection closed ({self.close_code})")
                await self._changed.wait()

    async def request(self, message: Frame, reply: str, timeout: float = 10.0) -> Frame:
        """Send ``message`` and wait for a frame of type ``reply`` (errors raise)."""
        start = len(self.frames)
        await self._send(message)
        return await self._wait_from(start, lambda f: f["type"] == reply, timeout)

    async def _wait_from(
        self,
        start: int,
        match: Callable[[Frame], bool],
        timeout: float,
        *,
        raise_errors: bool = True,
    ) -> Frame:
        async with asyncio.timeout(timeout), self._changed:
            while True:
                for frame in self.frames[start:]:
                    if match(frame):
                        return frame
                    if raise_errors and frame["type"] == "error":
                        raise ServerError(frame)
                if self.close_code is not None and not self.reconnect:
                    raise ConnectionError(f"connection closed ({self.close_code})")
                await self._changed.wait()

    # --- identity -------------------------------------------------------------------

    async def recovery_code(self) -> str:
        """A new recovery code for this identity (the one before stops working). Every
        other device of the identity is signed out; this client keeps the new token the
        answer brings (the one it had is revoked too)."""
        reply = await self.request({"type": "recovery_code"}, "recovery_code")
        self.player = str(reply["player"])
        return str(reply["code"])

    async def recover(self, code: str) -> Frame:
        """Become the player ``code`` belongs to (outside a room): returns the ``welcome``,
        whose new token this client keeps, so every later hello is that player."""
        return await self.request({"type": "recover", "code": code}, "welcome")

    # --- the game -------------------------------------------------------------------

    async def create(self, spectate: bool = False, **options: Any) -> str:
        """Create a room (and sit in it unless ``spectate``); returns its code."""
        start = len(self.frames)
        await self._send({"type": "create", "options": options, "spectate": spectate})
        await self._wait_from(start, lambda f: f["type"] == "joined", 10)
        if self._mover is not None:
            await self._mover  # on the room's connection before anything else is sent
        assert self.room is not None
        return self.room

    async def join(
        self,
        room: str,
        seat: int | None = None,
        *,
        spectate: bool = False,
        token: str | None = None,
    ) -> None:
        message: Frame = {"type": "join", "room": room, "spectate": spectate}
        if seat is not None:
            message["seat"] = seat
        if token is not None:
            message["token"] = token
        start = len(self.frames)
        await self._send(message)
        await self._wait_from(start, lambda f: f["type"] == "snapshot", 10)

    async def ready(self, ready: bool = True) -> None:
        """Say you are ready (before the start, the host waits for every seated person)."""
        await self._send({"type": "ready", "ready": ready})
        seat = self.seat
        await self.until(
            lambda c: (
                c.doc is not None
                and seat is not None
                and c.doc["room"]["seats"][seat]["ready"] == ready
            )
        )

    async def start(self, fill: str | None = None) -> None:
        """Host only: start the match (``fill`` puts bots of that level in empty seats)."""
        start = len(self.frames)
        await self._send({"type": "start", "fill": fill})
        await self._wait_from(
            start, lambda f: self.game is not None and f["type"] in ("patch", "snapshot"), 10
        )

    async def act(self, action: Frame | str, timeout: float = 10.0) -> Frame:
        """Send an action (wire dict, or text like ``7H>N``) and return its answer: the
        ``patch`` carrying it, or the ``error`` frame refusing it, whatever the code (it
        never raises :class:`ServerError`). The answer is the frame with this action's
        ``seq``, or an ``error`` without ``seq`` of code ``rate_limited`` or ``bad_message``
        (the server refused the frame unread, so it could not echo the ``seq``).

        ``timeout`` is in seconds: no answer by then raises ``TimeoutError``; a connection
        closed meanwhile (without ``reconnect``) raises ``ConnectionError``."""
        if isinstance(action, str):
            from protocol.engine import action_from_text

            action = action_from_text(action).wire()
        seq = next(self._seq)
        start = len(self.frames)
        await self._send({"type": "act", "seq": seq, "action": action})

        def answered(frame: Frame) -> bool:
            if frame["type"] not in ("patch", "error"):
                return False
            if frame.get("seq") == seq:
                return True
            unread = frame["type"] == "error" and frame.get("seq") is None
            return unread and frame["code"] in UNREAD_REFUSALS

        return await self._wait_from(start, answered, timeout, raise_errors=False)

    @property
    def game(self) -> dict[str, Any] | None:
        return self.doc["game"] if self.doc else None

    @property
    def my_turn(self) -> bool:
        game = self.game
        return bool(game and game["phase"] == "playing" and game.get("legal"))

    def snapshot_copy(self) -> dict[str, Any] | None:
        return copy.deepcopy(self.doc)
