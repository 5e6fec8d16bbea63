"""The lobby: you and your rating, one key for each way into a game (a new room, a code to
join or watch, quick play, the daily deal), the boards, your matches and the replay viewer;
and the small dialogs those need (a code, the new room's options)."""

from __future__ import annotations

from typing import ClassVar, Protocol, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.events import Key
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Input, Label, Select, Static

from clients.net import ServerError
from clients.terminal.options import DEFAULT_LEVEL, FORM, LEVELS
from clients.words import describe_error, level_name
from protocol.options_table import Value, option

from ..app import Entry
from .look import Look, plain_borders
from .optionform import FORM_CSS, option_rows, read_options
from .text import t


class Host(Protocol):
    """What the lobby asks of the app."""

    look: Look

    def start_entry(self, entry: Entry) -> None: ...
    async def cancel_queue(self) -> None: ...
    def open_boards(self) -> None: ...
    def open_matches(self) -> None: ...
    def open_replay(self, match_id: str) -> None: ...
    def rename(self, name: str) -> None: ...
    def note(self, text: str) -> None: ...
    async def recovery_code(self) -> str: ...
    async def recover(self, code: str) -> str: ...


class LobbyScreen(Screen[None]):
    """The first screen when no room was named on the command line."""

    CSS = """
    LobbyScreen { align: center middle; }
    #menu { width: auto; min-width: 50; height: auto; border: round $accent; padding: 0 2; }
    #note { height: auto; color: $text-muted; }
    #me { height: auto; margin: 0 0 1 0; }
    #me.empty { display: none; }
    """

    def __init__(self, name: str) -> None:
        super().__init__()
        self.player_name = name
        self.me_text = ""

    @property
    def host(self) -> Host:
        return cast(Host, self.app)

    def compose(self) -> ComposeResult:
        lang = self.host.look.lang
        lines = [t(lang, "lobby_keys"), ""]
        for key in (
            "menu_create",
            "menu_join",
            "menu_watch",
            "menu_quick",
            "menu_daily",
            "menu_boards",
            "menu_matches",
            "menu_rename",
            "menu_identity",
            "menu_replay",
            "menu_quit",
        ):
            lines.append("  " + t(lang, key))
        with Vertical(id="menu"):
            yield Static(id="me")
            yield Static(Text("\n".join(lines)))
            yield Static(id="note")

    def on_mount(self) -> None:
        self.show_me("")
        menu = self.query_one("#menu")
        menu.border_title = t(self.host.look.lang, "lobby_title", name=self.player_name)
        plain_borders(self, self.host.look)

    def show_note(self, text: str) -> None:
        self.query_one("#note", Static).update(Text(text))

    def show_name(self, name: str) -> None:
        """The name in the menu's title (after a rename)."""
        self.player_name = name
        menu = self.query_one("#menu")
        menu.border_title = t(self.host.look.lang, "lobby_title", name=name)

    def show_me(self, text: str) -> None:
        """You as the server knows you: name and tag, rating, rated matches."""
        self.me_text = text
        me = self.query_one("#me", Static)
        me.update(Text(text))
        me.set_class(not text, "empty")

    async def on_key(self, event: Key) -> None:
        ch = event.character or ""
        host = self.host
        lang = host.look.lang
        if ch in ("2", "3", "4"):
            host.start_entry(Entry(mode="quick", seats=int(ch)))
        elif ch == "d":
            host.start_entry(Entry(mode="daily"))
        elif ch == "n":
            self.app.push_screen(CreateScreen(host.look), self._created)
        elif ch in ("j", "w"):
            watch = ch == "w"

            def go(code: str | None) -> None:
                if code:
                    room = code.strip().upper()
                    host.start_entry(Entry(mode="watch" if watch else "join", room=room))

            self.app.push_screen(PromptScreen(t(lang, "prompt_code"), host.look), go)
        elif ch == "r":

            def replay(match_id: str | None) -> None:
                if match_id:
                    host.open_replay(match_id.strip())

            self.app.push_screen(PromptScreen(t(lang, "prompt_match"), host.look), replay)
        elif ch == "e":

            def rename(name: str | None) -> None:
                if name:
                    host.rename(name)

            self.app.push_screen(PromptScreen(t(lang, "prompt_name"), host.look), rename)
        elif ch == "i":
            self.app.push_screen(IdentityScreen(host.look, self.me_text))
        elif ch == "b":
            host.open_boards()
        elif ch == "m":
            host.open_matches()
        elif ch == "q":
            self.app.exit()
        elif event.key == "escape":
            await host.cancel_queue()
        else:
            return
        event.stop()

    def _created(self, entry: Entry | None) -> None:
        if entry is not None:
            self.host.start_entry(entry)


class PromptScreen(ModalScreen[str | None]):
    """Ask for one line (a room code, a match id): Enter gives it, Esc gives None."""

    CSS = """
    PromptScreen { align: center middle; }
    #prompt { width: 60; height: auto; border: round $accent; background: $surface;
              padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", show=False)]

    def __init__(self, question: str, look: Look) -> None:
        super().__init__()
        self.question = question
        self.look = look

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt"):
            yield Label(self.question)
            yield Input(id="answer", compact=True)

    def on_mount(self) -> None:
        plain_borders(self, self.look)
        self.query_one("#answer", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class IdentityScreen(ModalScreen[None]):
    """You on another device: a new recovery code to take this identity elsewhere (shown
    once), or a code from elsewhere to become that player here."""

    CSS = """
    IdentityScreen { align: center middle; }
    #identity { width: 76; height: auto; border: round $accent; background: $surface;
                padding: 0 1; }
    #identity-me { margin: 0 0 1 0; }
    #identity-warning { margin: 1 0 0 0; color: $text-muted; }
    #identity-said { margin: 1 0 0 0; }
    #identity-said.empty { display: none; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", show=False)]

    def __init__(self, look: Look, me: str) -> None:
        super().__init__()
        self.look = look
        self.me = me

    @property
    def host(self) -> Host:
        return cast(Host, self.app)

    def compose(self) -> ComposeResult:
        lang = self.look.lang
        with Vertical(id="identity"):
            yield Static(Text(self.me), id="identity-me")
            yield Static(Text(t(lang, "identity_keys")))
            yield Static(Text(t(lang, "identity_warning")), id="identity-warning")
            yield Static(id="identity-said", classes="empty")

    def on_mount(self) -> None:
        box = self.query_one("#identity")
        box.border_title = t(self.look.lang, "identity_title")
        plain_borders(self, self.look)

    def say(self, text: str) -> None:
        said = self.query_one("#identity-said", Static)
        said.update(Text(text))
        said.set_class(not text, "empty")

    def on_key(self, event: Key) -> None:
        ch = event.character or ""
        if ch == "c":
            self.run_worker(self._new_code(), exclusive=True, group="identity")
        elif ch == "u":
            question = t(self.look.lang, "prompt_recover")

            def use(code: str | None) -> None:
                if code:
                    self.run_worker(self._recover(code), exclusive=True, group="identity")

            self.app.push_screen(PromptScreen(question, self.look), use)
        else:
            return
        event.stop()

    async def _new_code(self) -> None:
        try:
            code = await self.host.recovery_code()
        except ServerError as exc:
            self.say("! " + describe_error(exc.frame, self.look.lang))
            return
        except (TimeoutError, ConnectionError) as exc:
            self.say(f"! {exc}")
            return
        self.say(t(self.look.lang, "code_shown", code=code))

    async def _recover(self, code: str) -> None:
        try:
            you = await self.host.recover(code)
        except ServerError as exc:
            self.say("! " + describe_error(exc.frame, self.look.lang))
            return
        except (TimeoutError, ConnectionError) as exc:
            self.say(f"! {exc}")
            return
        self.dismiss(None)
        self.host.note(t(self.look.lang, "recovered", who=you))

    def action_cancel(self) -> None:
        self.dismiss(None)


class CreateScreen(ModalScreen[Entry | None]):
    """The new room's options: seats, a bot (or a person) for each other seat, then every
    declared option (:mod:`protocol.options_table`), each at its default (public on)."""

    CSS = "CreateScreen { align: center middle; }" + FORM_CSS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", show=False)]
    #: A room made in this form is listed unless its maker says otherwise (as on the web).
    DEFAULTS: ClassVar[dict[str, Value]] = {"public": True}

    def __init__(self, look: Look) -> None:
        super().__init__()
        self.look = look

    def compose(self) -> ComposeResult:
        lang = self.look.lang
        people: list[tuple[str, str]] = [(t(lang, "person"), "-")]
        levels = people + [
            (f"{t(lang, 'bot')} {level_name(level, lang)}", level) for level in LEVELS
        ]
        seats = option("seats")
        assert seats.low is not None and seats.high is not None
        with Vertical(id="form"):
            with Horizontal():
                yield Label(t(lang, "option.seats"))
                yield Select(
                    [(str(n), n) for n in range(seats.low, seats.high + 1)],
                    value=seats.default,
                    id="seats",
                    compact=True,
                    allow_blank=False,
                )
            for seat in range(2, seats.high + 1):
                with Horizontal(id=f"row-{seat}"):
                    yield Label(t(lang, "lobby.seat_n", n=seat))
                    yield Select(
                        levels,
                        value=DEFAULT_LEVEL,
                        id=f"bot-{seat}",
                        compact=True,
                        allow_blank=False,
                    )
            yield from option_rows(FORM, lang, self.DEFAULTS)
            with Horizontal(id="buttons"):
                yield Button(t(lang, "go_create"), id="create", variant="primary", compact=True)
                yield Button(t(lang, "lobby.cancel"), id="cancel", compact=True)
            yield Static(self.look.text(t(lang, "form_keys")), id="form-keys")

    def on_mount(self) -> None:
        self.query_one("#form").border_title = t(self.look.lang, "create_title")
        plain_borders(self, self.look)
        # The first field has the focus: Enter opens it, it does not make a default room.
        self.query_one("#seats", Select).focus()

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "seats":
            seats = int(str(event.value))
            for seat in range(2, (option("seats").high or 0) + 1):
                self.query_one(f"#row-{seat}").display = seat <= seats

    def entry(self) -> Entry:
        """The options chosen, as an :class:`~clients.terminal.app.Entry`: each declared
        option the form shows, read back (those at their default too)."""
        seats = int(str(self.query_one("#seats", Select).value))
        bots: list[str | None] = []
        for seat in range(2, seats + 1):
            value = str(self.query_one(f"#bot-{seat}", Select).value)
            bots.append(None if value == "-" else value)
        return Entry(mode="create", seats=seats, bots=tuple(bots), options=read_options(self, FORM))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(self.entry() if event.button.id == "create" else None)

    def action_cancel(self) -> None:
        self.dismiss(None)


__all__ = ["CreateScreen", "IdentityScreen", "LobbyScreen", "PromptScreen"]
