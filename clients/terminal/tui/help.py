"""The keys, on a screen of their own (``?``)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from .look import Look, plain_borders
from .text import t


class HelpScreen(ModalScreen[None]):
    """Every key of the table, the waiting room and the results (or of the screen whose
    help ``key`` names, the replay's); Esc or ``?`` closes it."""

    CSS = """
    HelpScreen { align: center middle; }
    #help { width: auto; max-width: 90%; height: auto; max-height: 95%;
            border: round $accent; background: $surface; padding: 0 1; }
    #help Static { width: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", show=False),
        Binding("question_mark", "dismiss", show=False),
    ]

    def __init__(self, look: Look, key: str = "help") -> None:
        super().__init__()
        self.look = look
        self.key = key

    def compose(self) -> ComposeResult:
        text = self.look.text(t(self.look.lang, self.key))
        with Vertical(id="help"):
            yield Static(text)

    def on_mount(self) -> None:
        self.query_one("#help").border_title = t(self.look.lang, "help_title")
        plain_borders(self, self.look)

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)


__all__ = ["HelpScreen"]
