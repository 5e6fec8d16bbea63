"""The replay viewer: a finished match step by step, on the same table as a live one, every
hand open. The match is rebuilt by :func:`clients.terminal.replay.build`."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Static

from protocol.engine import public_view

from ..render import Style
from ..replay import Replay, caption
from .board import TableView
from .look import Look, sorted_hand
from .panels import result_text
from .text import t


class ReplayScreen(Screen[None]):
    """Step through ``replay``: arrows step, PgUp/PgDn jump a hand, Home/End, Esc back."""

    CSS = """
    ReplayScreen { layout: vertical; }
    #rtop { height: 1; background: $primary-background; padding: 0 1; }
    #caption { height: 2; padding: 0 1; }
    #rbody { height: 1fr; }
    #rtable { grid-size: 3 3; grid-gutter: 0 1; width: 1fr; min-width: 46; }
    #rresult { width: 1fr; min-width: 46; border: round $secondary; padding: 0 1; }
    .pile { border: round $secondary; height: 1fr; content-align: center middle; }
    .stock { content-align: center middle; height: 1fr; color: $text-muted; }
    #rside { width: 34; }
    #hands { height: 1fr; border: round $secondary; padding: 0 1; }
    #rkeys { height: 1; background: $primary-background; color: $text-muted; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,n,space", "step(1)", show=False),
        Binding("left,b", "step(-1)", show=False),
        Binding("pagedown", "hand(1)", show=False),
        Binding("pageup", "hand(-1)", show=False),
        Binding("home,s", "go(0)", show=False),
        Binding("end,e", "go(-1)", show=False),
        Binding("escape,q", "back", show=False),
    ]

    def __init__(self, replay: Replay, look: Look, start: int = 0) -> None:
        super().__init__()
        self.replay = replay
        self.look = look
        self.index = start

    def compose(self) -> ComposeResult:
        yield Static(id="rtop")
        yield Static(id="caption")
        with Horizontal(id="rbody"):
            yield TableView(id="rtable")
            yield Static(id="rresult")
            with Vertical(id="rside"):
                yield Static(id="hands")
        yield Static(t(self.look.lang, "replay_keys"), id="rkeys")

    def on_mount(self) -> None:
        self.query_one("#hands").border_title = t(self.look.lang, "replay_all_open")
        self.show()

    def on_resize(self) -> None:
        width = self.size.width
        self.query_one("#rside").styles.width = 34 if width < 100 else width * 36 // 100
        self.show()

    def show(self) -> None:
        replay, look, lang = self.replay, self.look, self.look.lang
        step = replay.steps[self.index]
        match = step.match
        record = replay.record
        title = t(
            lang,
            "replay_title",
            id=record.get("id") or "?",
            i=self.index,
            n=replay.last,
            h=step.hand,
            hands=len(replay.hand_starts),
        )
        self.query_one("#rtop", Static).update(Text(title, overflow="ellipsis"))
        style = Style(color=False, symbols=look.symbols, lang=lang)
        self.query_one("#caption", Static).update(caption(replay, self.index, style))
        game = public_view(match)
        names = replay.names()
        pos = match.position
        hands = Text()
        for i, hand in enumerate(pos.hands):
            if i:
                hands.append("\n")
            turn = pos.result is None and pos.turn == i
            hands.append(("▶ " if look.symbols else "> ") if turn else "  ", "bold")
            hands.append(f"{names[i][:12]:<12} {match.totals[i]:>3}\n", "bold")
            hands.append("  ")
            hands.append_text(look.cards(sorted_hand(hand)))
            hands.append("\n")
        self.query_one("#hands", Static).update(hands)
        # At the end of a hand its result takes the table's place, as in a live match.
        doc = {"room": {"seats": [{"name": n} for n in names], "options": {}}, "game": game}
        table = self.query_one("#rtable", TableView)
        result = self.query_one("#rresult", Static)
        table.display = pos.result is None
        result.display = pos.result is not None
        if pos.result is None:
            table.show(game, look, set(), None)
        else:
            result.update(result_text(doc, None, look))

    def action_step(self, delta: int) -> None:
        self.index = max(0, min(self.replay.last, self.index + delta))
        self.show()

    def action_hand(self, delta: int) -> None:
        starts = self.replay.hand_starts
        current = max(i for i, s in enumerate(starts) if s <= self.index)
        target = max(0, min(len(starts) - 1, current + delta))
        self.index = starts[target]
        self.show()

    def action_go(self, index: int) -> None:
        self.index = self.replay.last if index < 0 else index
        self.show()

    def action_back(self) -> None:
        self.dismiss()


__all__ = ["ReplayScreen"]
