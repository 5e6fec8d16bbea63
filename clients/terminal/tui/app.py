"""The full-screen app: one connection, the lobby, the room screen and the viewers.

The app owns the :class:`~clients.net.GameClient` (reconnecting, with the seat and player
tokens of the token file) and a pump that waits for frames and redraws the room screen in
place after each. A room named on the command line is entered at once; otherwise the lobby
comes first.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from clients.net import GameClient, ServerError
from clients.words import describe_error, describe_profile, who

from ..app import Entry, TerminalClient
from ..coach import own_seat
from ..replay import ReplayError, build, fetch_record
from ..tokens import TokenFile
from .boards import BoardsScreen, MatchesScreen
from .game import GameScreen
from .lobby import LobbyScreen
from .look import Look
from .replayview import ReplayScreen
from .text import t

#: How long one wait for frames lasts before it simply starts again.
_WAIT = 30.0


class KingsCornerApp(App[int]):
    """Kings in the Corner, full screen. ``entry`` (None: the lobby) says where to go
    first, ``replay_id`` opens that match's replay instead."""

    TITLE = "Kings in the Corner"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+q", "quit", show=False, priority=True)]

    def __init__(
        self,
        client: GameClient,
        look: Look,
        *,
        entry: Entry | None = None,
        tokens: TokenFile | None = None,
        replay_id: str | None = None,
        replay_only: bool = False,
        replay_hand: int | None = None,
        replay_step: int | None = None,
        fill: str = "hard",
    ) -> None:
        super().__init__()
        self.client = client
        self.look = look
        self.entry = entry
        self.replay_id = replay_id
        self.replay_only = replay_only
        self.replay_hand = replay_hand
        self.replay_step = replay_step
        self.tokens = tokens
        self.terminal = TerminalClient(client, write=self._ignore, tokens=tokens, fill=fill)
        self.game_screen: GameScreen | None = None
        self.lobby = LobbyScreen(client.name)
        #: Everything worth telling that is not on the table (joined, left, refusals).
        self.notes: list[str] = []
        self._seen = 0
        self._online = True
        self._ratings = "None"
        self._pump: asyncio.Task[None] | None = None

    def _ignore(self, text: str) -> None:
        """The line client's messages are not shown: this app words its own."""

    # --- start and stop -------------------------------------------------------------------

    async def on_mount(self) -> None:
        await self.push_screen(self.lobby)
        if self.replay_only and self.replay_id is not None:
            self.open_replay(self.replay_id, self.replay_step)
            return
        signed_out = False
        if self.client.ws is None:
            room = self.entry.known_room if self.entry is not None else None
            try:
                try:
                    await asyncio.wait_for(self.client.connect(room=room), timeout=15)
                except ServerError as exc:
                    if exc.code != "identity_revoked":
                        raise
                    signed_out = True
                    await self.new_player()
                    await asyncio.wait_for(self.client.connect(room=room), timeout=15)
            except (OSError, TimeoutError, ServerError) as exc:
                url, error = self.client.url, str(exc)
                self.notes.append(t(self.look.lang, "cannot_connect", url=url, error=error))
                self.exit(1, return_code=1)
                return
        self.terminal.save_tokens()
        self._pump = asyncio.create_task(self.pump())
        self.refresh_profile()
        if signed_out:
            # Signed out by a newer recovery code: the lobby says how to come back (i, u)
            # before any room is entered as the new player this connection now is.
            self.note(t(self.look.lang, "signed_out"))
        elif self.replay_id is not None:
            self.open_replay(self.replay_id)
        elif self.entry is not None:
            self.start_entry(self.entry)

    async def new_player(self) -> None:
        """Start again as nobody: a new connection without the player token a newer
        recovery code revoked (the token file forgets it; the lobby's identity screen takes
        a code to come back as oneself)."""
        old = self.client
        await old.close()
        if self.tokens is not None:
            self.tokens.forget_player(old.url)
        self.client = GameClient(
            old.urls, old.name, reconnect=old.reconnect, move_to_room=old.move_to_room
        )
        self.terminal.client = self.client

    async def on_unmount(self) -> None:
        if self._pump is not None:
            self._pump.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pump

    def refresh_profile(self) -> None:
        """Ask the server who this player is now (rating, rated matches) for the lobby."""
        self.run_worker(self._profile(), exclusive=True, group="profile")

    async def _profile(self) -> None:
        try:
            reply = await self.client.request({"type": "profile"}, "profile")
        except (ServerError, TimeoutError, ConnectionError):
            return
        self.go_by(reply.get("name"))
        self.lobby.show_me(describe_profile(reply, self.look.lang))

    def go_by(self, name: object) -> None:
        """Go by the name the server keeps for this identity (a welcome's, a profile's):
        it wins over ``--name`` until the player renames."""
        if isinstance(name, str) and name:
            self.client.name = name
            self.lobby.show_name(name)

    def rename(self, name: str) -> None:
        """Go by ``name`` from now on (the server keeps it, with a tag)."""
        self.run_worker(self._rename(name), exclusive=True, group="profile")

    async def _rename(self, name: str) -> None:
        lang = self.look.lang
        try:
            reply = await self.client.request({"type": "rename", "name": name}, "profile")
        except ServerError as exc:
            self.lobby.show_note("! " + describe_error(exc.frame, lang))
            return
        except (TimeoutError, ConnectionError) as exc:
            self.lobby.show_note(f"! {exc}")
            return
        self.client.name = str(reply.get("name", name))
        self.lobby.show_name(self.client.name)
        self.lobby.show_me(describe_profile(reply, lang))
        self.lobby.show_note(t(lang, "renamed", who=who(reply.get("name"), reply.get("tag"))))

    async def recovery_code(self) -> str:
        """A new recovery code for this identity (shown once); the new player token it
        comes with is kept in the token file (the old one is revoked)."""
        code = await self.client.recovery_code()
        self.terminal.save_player()
        return code

    async def recover(self, code: str) -> str:
        """Become the player ``code`` belongs to; returns who that is (``Ana#4F7K``). The
        token file keeps that identity from now on."""
        welcome = await self.client.recover(code)
        self.terminal.save_player()
        self.go_by(welcome.get("name"))
        self.refresh_profile()
        return who(welcome.get("name"), welcome.get("tag"))

    def note(self, text: str) -> None:
        """Say something in the lobby (or, in a room, in the status line)."""
        self.notes.append(text)
        if self.game_screen is not None:
            self.game_screen.tell(text)
        else:
            self.lobby.show_note(text)

    # --- getting into a room --------------------------------------------------------------

    def start_entry(self, entry: Entry) -> None:
        """Create, join, watch, quick-play or play the daily deal, in the background."""
        self.run_worker(self._enter(entry), exclusive=True, group="enter")

    async def _enter(self, entry: Entry) -> None:
        lang = self.look.lang
        client = self.client
        if entry.mode == "quick":
            self.lobby.show_note(t(lang, "queued", n=entry.seats))
        start = len(client.frames)
        # The room starts with an empty log and chat: what came before was another room's.
        log_from, chat_from = len(client.log), len(client.chat)
        try:
            await self.terminal.enter(entry)
        except ServerError as exc:
            self.note("! " + describe_error(exc.frame, lang))
            return
        except (TimeoutError, ConnectionError) as exc:
            self.note(f"! {exc}")
            return
        self.terminal.save_tokens()
        self.open_room(log_from, chat_from)
        if client.seat is None:
            self.note(t(lang, "note.watching", code=client.room))
        else:
            self.note(t(lang, "joined_note", n=client.seat + 1, code=client.room))
        frames = client.frames[start:]
        if any(f["type"] == "error" and f.get("code") == "bad_token" for f in frames):
            self.note(t(lang, "stale_token"))

    async def cancel_queue(self) -> None:
        """Leave the quick-play queue (Esc in the lobby while waiting for a table)."""
        if not any(w.group == "enter" and not w.is_finished for w in self.workers):
            return
        self.workers.cancel_group(self, "enter")
        await self.client.send({"type": "cancel_quick_play"})
        self.lobby.show_note("")

    def open_room(self, log_from: int = 0, chat_from: int = 0) -> None:
        """Show the room screen for the room the client is in (its log and chat from
        those places in the client's)."""
        if self.game_screen is not None:
            return
        self.game_screen = GameScreen(
            self.client, self.look, log_from=log_from, chat_from=chat_from
        )
        self.push_screen(self.game_screen)

    def on_game_screen_leave(self, message: GameScreen.Leave) -> None:
        screen = self.game_screen
        self.game_screen = None
        room = self.terminal.saved_room
        if self.terminal.tokens is not None and room is not None:
            self.terminal.tokens.forget(self.client.url, room)
        if screen is not None and screen in self.screen_stack:
            while self.screen is not screen:
                self.pop_screen()
            self.pop_screen()
        self.lobby.show_note(message.note)
        self.notes.append(message.note)
        self.refresh_profile()

    # --- the pump ---------------------------------------------------------------------------

    async def pump(self) -> None:
        """Redraw after every frame, and whenever the connection drops or comes back."""
        client = self.client
        while True:
            online = client.close_code is None

            def changed(c: GameClient, online: bool = online) -> bool:
                return len(c.frames) > self._seen or (c.close_code is None) != online

            try:
                await client.until(changed, timeout=_WAIT)
            except TimeoutError:
                continue
            except ConnectionError:
                await asyncio.sleep(0.2)
                continue
            frames = client.frames[self._seen :]
            self._seen = len(client.frames)
            for frame in frames:
                if frame["type"] == "welcome":
                    self.go_by(frame.get("name"))
            self.terminal.save_tokens()
            now_online = client.close_code is None
            if now_online != self._online:
                self._online = now_online
                self.note(t(self.look.lang, "back_online" if now_online else "lost"))
            if self.ratings_changed():
                self.refresh_profile()  # the lobby's rating is the one this match made
            screen = self.game_screen
            if screen is not None and screen.is_mounted:
                screen.take(frames)

    def ratings_changed(self) -> bool:
        """Whether the room's ratings came (the server rates a finished match a moment
        after its end) or changed since last asked."""
        doc = self.client.doc
        ratings = repr(doc["room"].get("ratings")) if doc is not None else "None"
        changed = ratings != self._ratings and ratings != "None"
        self._ratings = ratings
        return changed

    # --- the viewers ------------------------------------------------------------------------

    def open_boards(self) -> None:
        self.push_screen(BoardsScreen(self.client, self.look))

    def open_matches(self) -> None:
        self.push_screen(MatchesScreen(self.client, self.look))

    def open_replay(self, match_id: str, step: int | None = None) -> None:
        """Open the replay of ``match_id``: at ``step`` (the coach's turns), else at the hand
        asked for on the command line, else at the start."""
        self.run_worker(self._replay(match_id, step), exclusive=True, group="replay")

    def player_id(self) -> str | None:
        """Who this player is (the public id): the server's word once connected, else the
        identity the token file keeps for this server (the replay viewer run alone)."""
        if self.client.player_id is not None:
            return self.client.player_id
        return self.tokens.player_id(self.client.url) if self.tokens is not None else None

    async def _replay(self, match_id: str, step: int | None = None) -> None:
        try:
            record = await asyncio.to_thread(fetch_record, self.client.url, match_id)
            replay = build(record)
        except ReplayError as exc:
            self.note(str(exc))
            if self.replay_only:
                self.exit(1, return_code=1)
            return
        start = 0
        if self.replay_hand is not None and 1 <= self.replay_hand <= len(replay.hand_starts):
            start = replay.hand_starts[self.replay_hand - 1]
        if step is not None:
            start = max(0, min(step, replay.last))
        seat = own_seat(record, self.player_id())
        screen = ReplayScreen(replay, self.look, start, seat=seat, url=self.client.url)
        if self.replay_only:
            await self.push_screen(screen, lambda _: self.exit(0))
        else:
            await self.push_screen(screen)


def exit_message(app: KingsCornerApp) -> str | None:
    """What to print once the screen is given back: how to come back to the seat."""
    client = app.client
    if client.room is not None and client.seat is not None:
        return t(app.look.lang, "come_back", code=client.room)
    return None


__all__ = ["KingsCornerApp", "exit_message"]
