"""The room options as form fields, one per declared option (:mod:`protocol.options_table`):
the new room's form (:class:`~clients.terminal.tui.lobby.CreateScreen`) and the host's
options form in the waiting room (:class:`ConfigureScreen`) both build their fields here and
read them back here, so an option declared there is in both forms without a line changed.

A field's id is its option's name (``#target``, ``#casual``); its label is the catalogue's
``option.<name>`` (this client's shorter ``tui.option.<name>`` where there is one), each choice
``option.<name>.<choice>``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, ClassVar, cast

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from clients.terminal.options import HOST_FORM, parse_value, room_values
from protocol.options_table import OptionSpec, Value

from .look import Look, plain_borders
from .text import t

#: The fields' look, shared by both forms (``#form`` holds them).
FORM_CSS = """
#form { width: 68; height: auto; border: round $accent; background: $surface; padding: 0 1; }
#form Horizontal { height: 1; margin: 0; }
#form #buttons { margin: 1 0 0 0; }
#form Label { width: 16; }
#form Select { width: 1fr; }
#form Input { width: 10; }
#buttons { height: 1; }
#form-keys { color: $text-muted; margin: 1 0 0 0; }
#buttons Button { margin: 0 2 0 0; }
"""


def label(lang: str, spec: OptionSpec) -> str:
    """The field's label: the option's words."""
    return t(lang, f"option.{spec.name}")


def _choices(spec: OptionSpec, lang: str, current: Value) -> list[tuple[str, str]]:
    """A select's choices (label, value as text) for a choice, a small count or a number."""
    if spec.kind == "choice":
        return [(t(lang, f"option.{spec.name}.{c}"), c) for c in spec.choices]
    if spec.kind == "count":
        assert spec.low is not None and spec.high is not None
        return [(str(n), str(n)) for n in range(spec.low, spec.high + 1)]
    values = sorted({*spec.presets, *([current] if isinstance(current, int | float) else [])})
    out = [(t(lang, f"option.{spec.name}.off"), "off")] if spec.nullable else []
    return out + [(f"{v:g} s", f"{v:g}") for v in values]


def _shown(value: Value) -> str:
    if value is None:
        return "off"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _field(spec: OptionSpec, lang: str, value: Value) -> Widget:
    if spec.kind == "count" and (spec.high or 0) - (spec.low or 0) > 4:
        return Input(_shown(value), id=spec.name, type="integer", compact=True)
    return Select(
        _choices(spec, lang, value),
        value=_shown(value),
        id=spec.name,
        compact=True,
        allow_blank=False,
    )


def option_rows(
    specs: tuple[OptionSpec, ...], lang: str, values: Mapping[str, Value] | None = None
) -> Iterator[Widget]:
    """A row per option of ``specs`` (fields first, check boxes after), showing ``values``
    (an option they lack at its default). Yield them inside a ``compose``."""
    values = values or {}
    flags = [spec for spec in specs if spec.kind == "flag"]
    for spec in [spec for spec in specs if spec.kind != "flag"] + flags:
        value = values.get(spec.name, spec.default)
        if spec.kind == "flag":
            yield Horizontal(
                Checkbox(label(lang, spec), bool(value), id=spec.name, compact=True),
                id=f"row-{spec.name}",
            )
        else:
            yield Horizontal(
                Label(label(lang, spec)), _field(spec, lang, value), id=f"row-{spec.name}"
            )


def read_options(node: DOMNode, specs: tuple[OptionSpec, ...]) -> dict[str, Value]:
    """What the fields of ``specs`` under ``node`` say, each a value its option takes (a
    number typed out of bounds brought within them, one unreadable at the default)."""
    out: dict[str, Value] = {}
    for spec in specs:
        widget = node.query_one(f"#{spec.name}")
        if isinstance(widget, Checkbox):
            out[spec.name] = widget.value
            continue
        field = cast(Input | Select[str], widget)
        text = field.value if isinstance(field, Input) else str(field.value)
        out[spec.name] = _within(spec, text)
    return out


def _within(spec: OptionSpec, text: str) -> Value:
    try:
        return parse_value(spec, text)
    except ValueError:
        pass
    try:
        number = int(float(text))
    except ValueError:
        return cast(Value, spec.default)
    low = spec.low if spec.low is not None else number
    high = spec.high if spec.high is not None else number
    return min(high, max(low, number))


class ConfigureScreen(ModalScreen[dict[str, Value] | None]):
    """The host's options form in the waiting room: every declared option but ``casual``
    (a casual room stays casual), filled from the room as it is; dismissed with the options
    that changed (None when cancelled)."""

    CSS = "ConfigureScreen { align: center middle; }" + FORM_CSS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", show=False)]

    def __init__(self, look: Look, room: Mapping[str, Any]) -> None:
        super().__init__()
        self.look = look
        self.values = room_values(room)

    def compose(self) -> ComposeResult:
        lang = self.look.lang
        with Vertical(id="form"):
            yield from option_rows(HOST_FORM, lang, self.values)
            with Horizontal(id="buttons"):
                yield Button(
                    t(lang, "configure_apply"), id="apply", variant="primary", compact=True
                )
                yield Button(t(lang, "lobby.cancel"), id="cancel", compact=True)
            yield Static(self.look.text(t(lang, "form_keys")), id="form-keys")

    def on_mount(self) -> None:
        self.query_one("#form").border_title = t(self.look.lang, "configure_title")
        plain_borders(self, self.look)
        self.query_one(f"#{HOST_FORM[0].name}").focus()

    def changes(self) -> dict[str, Value]:
        """The options the form changes from the room's."""
        chosen = read_options(self, HOST_FORM)
        return {name: value for name, value in chosen.items() if value != self.values[name]}

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(self.changes() if event.button.id == "apply" else None)

    def action_cancel(self) -> None:
        self.dismiss(None)


__all__ = ["FORM_CSS", "ConfigureScreen", "label", "option_rows", "read_options"]
