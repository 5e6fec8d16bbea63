"""The table as widgets: the eight piles in a cross with the corners, the stock in the
middle, the viewer's hand along the bottom and the seats.

Widgets take plain data (a ``game`` dict as the server sends it) and redraw themselves in
place; a click on a pile or a card is posted as a message for the screen to act on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Grid
from textual.events import Click
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from clients.terminal.render import plate
from clients.words import level_name
from protocol.engine import CORNERS

from .keys import KEY_OF_PILE
from .look import Look
from .text import t

#: The cross and its corners, row by row (None: the stock in the middle).
LAYOUT: tuple[tuple[str | None, ...], ...] = (
    ("NW", "N", "NE"),
    ("W", None, "E"),
    ("SW", "S", "SE"),
)


def pile_text(pile: Sequence[str], look: Look, width: int, lines: int) -> Text:
    """A pile drawn in ``width`` columns: every card when they fit (base first, top last),
    else the base, an ellipsis and as many top cards as fit."""
    if not pile:
        return Text("")
    shown = [look.card(c) for c in pile]
    room = max(width, 4)
    rows: list[list[int]] = [[]]
    used = 0
    for i, piece in enumerate(shown):
        if rows[-1] and used + 1 + len(piece) > room:
            rows.append([])
            used = 0
        used += len(piece) + (1 if rows[-1] else 0)
        rows[-1].append(i)
    out = Text(justify="center")
    if len(rows) <= max(lines, 1):
        for r, row in enumerate(rows):
            if r:
                out.append("\n")
            for j, i in enumerate(row):
                if j:
                    out.append(" ")
                out.append_text(look.card_text(pile[i]))
    else:
        out.append_text(look.card_text(pile[0]))
        out.append(" … " if look.symbols else " .. ")
        used = len(shown[0]) + 3
        tops: list[str] = []
        for code in reversed(pile[1:]):
            need = len(look.card(code)) + (1 if tops else 0)
            if used + need > room and tops:
                break
            tops.insert(0, code)
            used += need
        for i, code in enumerate(tops):
            if i:
                out.append(" ")
            out.append_text(look.card_text(code))
    return out


class PileView(Static):
    """One pile: its key and name in the border, its cards inside, and whether the chosen
    card or pile may go there (``▸``, and a heavier border)."""

    @dataclass
    class Clicked(Message):
        pile: str

    def __init__(self, pile: str) -> None:
        super().__init__(id=f"pile-{pile}", classes="pile")
        self.pile = pile
        self.cards: list[str] = []
        self.look = Look()
        self.target = False
        self.chosen = False

    def show(self, cards: Sequence[str], look: Look, *, target: bool, chosen: bool) -> None:
        self.cards, self.look, self.target, self.chosen = list(cards), look, target, chosen
        self.set_class(target, "target")
        self.set_class(chosen, "chosen")
        mark = "▸" if look.symbols else ">"
        head = f"{KEY_OF_PILE[self.pile]} {self.pile}"
        if target:
            head = f"{mark}{head}"
        elif chosen:
            head = f"*{head}"
        self.border_title = head
        n = len(self.cards)
        if n:
            self.border_subtitle = t(look.lang, "seat.card_one" if n == 1 else "seat.cards", n=n)
        else:
            self.border_subtitle = ""
        self.refresh_text()

    def refresh_text(self) -> None:
        width = max(self.content_size.width, 8)
        lines = max(self.content_size.height, 1)
        if self.cards:
            body = pile_text(self.cards, self.look, width, lines)
        elif self.pile in CORNERS:
            body = Text(t(self.look.lang, "kings_only"), style="dim", justify="center")
        else:
            body = Text(t(self.look.lang, "empty"), style="dim", justify="center")
        self.update(body)

    def on_resize(self) -> None:
        self.refresh_text()

    def on_click(self, event: Click) -> None:
        event.stop()
        self.post_message(self.Clicked(self.pile))


class TableView(Grid):
    """The eight piles around the stock."""

    def compose(self) -> ComposeResult:
        for row in LAYOUT:
            for pile in row:
                if pile is None:
                    yield Static(id="stock", classes="stock")
                else:
                    yield PileView(pile)

    def show(
        self, game: Mapping[str, Any], look: Look, targets: set[str], chosen: str | None
    ) -> None:
        piles = game["piles"]
        for row in LAYOUT:
            for pile in row:
                if pile is not None:
                    view = self.query_one(f"#pile-{pile}", PileView)
                    view.show(piles[pile], look, target=pile in targets, chosen=pile == chosen)
        stock = self.query_one("#stock", Static)
        stock.update(Text(t(look.lang, "stock", n=game["stock"]), justify="center"))


class HandView(Widget):
    """The viewer's hand, sorted, one line after another; the cursor card is underlined,
    the chosen one reversed, cards with somewhere to go bold. A click chooses a card."""

    @dataclass
    class Clicked(Message):
        card: str

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cards: list[str] = []
        self.look = Look()
        self.cursor: str | None = None
        self.chosen: str | None = None
        self.playable: set[str] = set()
        self.note = ""
        self._spans: list[tuple[int, int, int, str]] = []

    def show(
        self,
        cards: Sequence[str],
        look: Look,
        *,
        cursor: str | None,
        chosen: str | None,
        playable: set[str],
        note: str = "",
    ) -> None:
        self.cards, self.look = list(cards), look
        self.cursor, self.chosen, self.playable, self.note = cursor, chosen, playable, note
        self.refresh()

    def render(self) -> Text:
        width = max(self.content_size.width, 10)
        out = Text()
        self._spans = []
        if not self.cards:
            out.append(self.note or t(self.look.lang, "no_cards"), style="dim")
            return out
        line, col = 0, 0
        for code in self.cards:
            label = f" {self.look.card(code)} "
            if col and col + len(label) + 1 > width:
                out.append("\n")
                line, col = line + 1, 0
            elif col:
                out.append(" ")
                col += 1
            extra = []
            if code == self.chosen:
                extra.append("reverse")
            if code == self.cursor:
                extra.append("underline")
            if code not in self.playable and self.playable:
                extra.append("dim")
            style = f"{self.look.card_style(code)} {' '.join(extra)}".strip()
            out.append(label, style=style)
            self._spans.append((line, col, col + len(label), code))
            col += len(label)
        return out

    def card_at(self, x: int, y: int) -> str | None:
        """The card drawn at content offset (``x``, ``y``), if any."""
        for line, start, end, code in self._spans:
            if line == y and start <= x < end:
                return code
        return None

    def offset_of(self, card: str) -> tuple[int, int] | None:
        """Where ``card`` is drawn (content offset of its middle), for clicks in tests."""
        for line, start, end, code in self._spans:
            if code == card:
                return ((start + end) // 2, line)
        return None

    def on_click(self, event: Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        card = self.card_at(offset.x, offset.y)
        if card is not None:
            event.stop()
            self.post_message(self.Clicked(card))


def seat_tags(
    doc: Mapping[str, Any], seat: int, me: int | None, lang: str, online: bool
) -> list[str]:
    """What to say about a seat: you, away, offline, bot, ready, host, dealer.

    The viewer's own seat is never "offline" while this connection is up (``online``): the
    seat is ours, whatever an older patch about a dropped connection said.
    """
    room, game = doc["room"], doc.get("game")
    entry = room["seats"][seat]
    tags: list[str] = []
    if entry is None:
        return tags
    if seat == me:
        tags.append(t(lang, "seat.you"))
    if entry.get("away"):
        tags.append(t(lang, "away"))
    elif entry["kind"] == "human" and not entry.get("connected") and not (seat == me and online):
        tags.append(t(lang, "offline"))
    if entry["kind"] == "bot":
        level = level_name(str(entry["level"]), lang) if entry.get("level") else ""
        tags.append(f"{t(lang, 'bot')} {level}".strip())
    elif game is None and room.get("host") != seat:
        tags.append(t(lang, "wait.ready") if entry.get("ready") else t(lang, "not_ready"))
    if room.get("host") == seat:
        tags.append(t(lang, "wait.host"))
    if game is not None and game.get("dealer") == seat:
        tags.append(t(lang, "dealer"))
    return tags


class SeatsView(Static):
    """One line per seat: the turn marker, the name, cards in hand, total (corners
    collected, under corners scoring), and tags; tags that do not fit beside the name go
    on a line of their own under it, so nothing is cut."""

    def show(self, doc: Mapping[str, Any], me: int | None, look: Look, online: bool) -> None:
        room, game = doc["room"], doc.get("game")
        width = max(self.content_size.width, 20)
        lang = look.lang
        out = Text()
        # Under corners scoring the corners each seat collected stand where totals stand.
        collected = game.get("collected") if game is not None else None
        second = t(lang, "col_corners" if collected is not None else "col_total")
        col = max(6, len(second) + 1)
        figures = 3 + col if game is not None else 0
        # The names as long as the longest (a name is cut only when the pane is too narrow).
        plates = [plate(entry) if entry else t(lang, "free") for entry in room["seats"]]
        name_w = max(6, min(max(len(p) for p in plates), width - 2 - figures - 1))
        if game is not None:
            head = f"{t(lang, 'col_cards'):>{name_w + 5}}{second:>{col}}"
            out.append(head + "\n", "dim")
        for i, entry in enumerate(room["seats"]):
            if i:
                out.append("\n")
            playing = game is not None and game["phase"] == "playing" and game["turn"] == i
            out.append(("▶ " if look.symbols else "> ") if playing else "  ", "bold")
            name = plate(entry, name_w) if entry else t(lang, "free")[:name_w]
            style = "bold" if i == me else ("dim" if entry is None else "")
            out.append(f"{name:<{name_w}}", style)
            used = 2 + name_w
            if game is not None:
                score = collected[i] if collected is not None else game["totals"][i]
                out.append(f"{game['counts'][i]:>3}{score:>{col}}")
                used += figures
            tags = ", ".join(seat_tags(doc, i, me, lang, online))
            if not tags:
                continue
            if len(tags) <= width - used - 1:
                out.append(" " + tags, "italic")
                continue
            # Not beside the name: on the next line, indented, cut only past the pane.
            room_left = width - 4
            cut = "…" if look.symbols else "."
            shown = tags if len(tags) <= room_left else tags[: room_left - 1] + cut
            out.append("\n    " + shown, "italic")
        self.update(out)


__all__ = ["LAYOUT", "HandView", "PileView", "SeatsView", "TableView", "pile_text", "seat_tags"]
