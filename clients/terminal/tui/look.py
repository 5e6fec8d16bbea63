"""How cards look on the full-screen table: symbols or letters, colour or none, and the
order a hand is shown in.

A :class:`Look` is decided once at start-up (``--ascii``, ``--no-color``, ``NO_COLOR``, the
terminal's encoding) and passed to every widget, so the whole screen agrees.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from rich.text import Text
from textual.dom import DOMNode
from textual.widgets import Static
from textual.widgets._toggle_button import ToggleButton

from ..render import sort_key, sorted_hand

SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
RED = frozenset({"H", "D"})
#: Suits alternate colours in a sorted hand: ♠ ♥ ♣ ♦.
#: What the marks of the interface become without symbols.
_ASCII = {
    "←→⏎": "Left/Right/Enter",
    "←/→": "Left/Right",
    "←→": "Left/Right",
    "↑↓": "Up/Down",
    "▸": ">",
    "▶": ">",
    "…": "...",
    "·": "|",
    "♣": "C",
    "♦": "D",
    "♥": "H",
    "♠": "S",
    "\u00d7": "x",
}


@dataclass(frozen=True, slots=True)
class Look:
    """Suit symbols (else letters), colours (else plain text), and the language."""

    symbols: bool = True
    color: bool = True
    lang: str = "en"

    def text(self, words: str) -> str:
        """``words`` as this terminal can show them: arrows and marks spelled in ASCII
        when the symbols are off (letters of the language stay as they are)."""
        if self.symbols:
            return words
        for symbol, ascii_form in _ASCII.items():
            words = words.replace(symbol, ascii_form)
        return words

    def card(self, code: str) -> str:
        """A card as plain text: ``7♣`` (``7C`` with letters)."""
        rank, suit = code[:-1], code[-1]
        return rank + (SYMBOLS.get(suit, suit) if self.symbols else suit)

    def card_style(self, code: str) -> str:
        """The Rich style of a card: red or black on a light face, or none at all."""
        if not self.color:
            return "bold"
        return "bold #c0102a on #f2f0e6" if code[-1] in RED else "bold #101010 on #f2f0e6"

    def card_text(self, code: str, extra: str = "") -> Text:
        """A card as styled text; ``extra`` adds a style (a selection, a highlight)."""
        style = self.card_style(code)
        return Text(self.card(code), style=f"{style} {extra}".strip())

    def cards(self, codes: Iterable[str]) -> Text:
        """Several cards, one space apart."""
        out = Text()
        for i, code in enumerate(codes):
            if i:
                out.append(" ")
            out.append_text(self.card_text(code))
        return out


def plain_borders(root: DOMNode, look: Look) -> None:
    """Without symbols (``--ascii``), draw the borders of ``root`` and of everything under it
    in ASCII, each in its colour, and the form's marks too (a check box's ``[X]``, a
    select's ``v``): every screen calls it once mounted."""
    if look.symbols:
        return
    for node in [root, *root.query("*")]:
        kind, color = node.styles.border_top
        if kind not in ("", "none", "hidden", "blank"):
            node.styles.border = ("ascii", color)
        if isinstance(node, ToggleButton):
            node.BUTTON_LEFT, node.BUTTON_RIGHT = "[", "]"
            node.refresh()
        elif isinstance(node, Static) and node.has_class("arrow"):
            node.update("^" if node.has_class("up-arrow") else "v")


def can_show_symbols(encoding: str | None) -> bool:
    """Whether a stream of ``encoding`` can carry the suit symbols."""
    if not encoding:
        return False
    try:
        "♣♦♥♠▶…".encode(encoding)
    except (LookupError, UnicodeEncodeError):
        return False
    return True


def look_for(
    *,
    ascii_only: bool = False,
    no_color: bool = False,
    lang: str = "en",
    env: Mapping[str, str] | None = None,
    encoding: str | None = None,
) -> Look:
    """The look for this terminal: letters when asked or when its encoding cannot show the
    symbols, no colour when asked or when ``NO_COLOR`` is set (https://no-color.org)."""
    env = os.environ if env is None else env
    if encoding is None:
        encoding = getattr(sys.stdout, "encoding", None)
    return Look(
        symbols=not ascii_only and can_show_symbols(encoding),
        color=not no_color and "NO_COLOR" not in env,
        lang=lang,
    )


__all__ = ["Look", "can_show_symbols", "look_for", "plain_borders", "sort_key", "sorted_hand"]
