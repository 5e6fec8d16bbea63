"""The room options as both terminal modes offer them, read from the declaration
(:mod:`protocol.options_table`): nothing here names an option, so an option declared there
is on the command line, in the full-screen forms, in the summaries and in what a host sends.

- :func:`add_flags` and :func:`chosen`: one ``--flag`` per declared option for
  ``kings-corner play --create`` (``--kings-first``, ``--scoring corners``...).
- :func:`parse_value`: a typed value made the option's own (flags, forms, ``set``).
- :func:`summary`: a room's options in one line, in the viewer's language.
- :func:`configure_options`: what a ``configure`` must carry to change some options and keep
  the rest (the server replaces them all: docs/protocol.md, ``configure``).
- :data:`LEVELS` and :data:`DEFAULT_LEVEL`: the bot levels every picker offers, and the one a
  seat gets when nobody chose.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from clients.i18n import texts
from protocol.bots import LEVELS
from protocol.options_table import BY_NAME, OPTIONS, OptionSpec, Value, summary_words

#: The level of a bot nobody chose one for (as the web client's "play against the
#: computer": docs/bots.md).
DEFAULT_LEVEL = "hard"
#: The options a create form offers besides the seats (the seat pickers choose the bots).
FORM: tuple[OptionSpec, ...] = tuple(spec for spec in OPTIONS if spec.name != "seats")
#: What a host's options form offers: every declared option but ``casual`` (a casual room
#: stays casual, a rated one rated, as in the web client).
HOST_FORM: tuple[OptionSpec, ...] = tuple(spec for spec in OPTIONS if spec.name != "casual")
_TRUE = ("on", "yes", "true", "1")
_FALSE = ("off", "no", "false", "0")


def parse_value(spec: OptionSpec, text: str) -> Value:
    """``text`` as a value ``spec`` takes; raises ``ValueError`` (its words say why)."""
    word = text.strip().lower()
    value: Value
    if spec.kind == "flag":
        if word not in _TRUE + _FALSE:
            raise ValueError(spec.explain())
        value = word in _TRUE
    elif spec.kind == "choice":
        value = word
    elif spec.nullable and word in ("", "off", "none", "-"):
        value = None
    else:
        try:
            number = float(word)
        except ValueError:
            raise ValueError(spec.explain()) from None
        value = int(number) if spec.kind == "count" or number.is_integer() else number
    if not spec.accepts(value):
        raise ValueError(spec.explain())
    return value


def flag_name(spec: OptionSpec) -> str:
    """The command-line flag of ``spec``: ``kings_first`` is ``--kings-first``."""
    return "--" + spec.name.replace("_", "-")


def add_flags(parser: argparse.ArgumentParser, specs: tuple[OptionSpec, ...] = FORM) -> None:
    """One flag per option of ``specs`` (a flag that is off by default is a switch; any
    other takes its value), each left unset unless given."""
    for spec in specs:
        help_text = f"with --create: {spec.changes}".replace("%", "%%")
        if spec.kind == "flag" and spec.default is False:
            parser.add_argument(flag_name(spec), action="store_true", default=None, help=help_text)
            continue

        def typed(text: str, spec: OptionSpec = spec) -> Value:
            try:
                return parse_value(spec, text)
            except ValueError as exc:
                raise argparse.ArgumentTypeError(str(exc)) from None

        metavar = "|".join(spec.choices) if spec.choices else spec.kind.upper()
        parser.add_argument(
            flag_name(spec), type=typed, default=None, metavar=metavar, help=help_text
        )


def chosen(args: argparse.Namespace, specs: tuple[OptionSpec, ...] = FORM) -> dict[str, Value]:
    """The options ``args`` sets (:func:`add_flags`'s flags), by name: those given only."""
    out: dict[str, Value] = {}
    for spec in specs:
        value = getattr(args, spec.name, None)
        if value is not None:
            out[spec.name] = value
    return out


def summary(values: Mapping[str, Any], lang: str) -> str:
    """``values`` (a room's options, ``public`` beside them when known) in one line, in
    ``lang``: the words the declaration names (``target 25 · draw at the end · ...``)."""
    words = texts(lang)
    return " · ".join(words[key].format_map(params) for key, params in summary_words(values))


def room_values(room: Mapping[str, Any]) -> dict[str, Value]:
    """Every declared option as the room document has it now (``public`` from the room's
    top level; an option the document lacks at its default)."""
    values = {**room.get("options", {}), "public": room.get("public", False)}
    return {spec.name: values.get(spec.name, spec.default) for spec in OPTIONS}


def configure_options(room: Mapping[str, Any], changes: Mapping[str, Value]) -> dict[str, Any]:
    """The ``options`` of a ``configure`` that changes ``changes`` and keeps everything
    else as the room has it: ``configure`` replaces the options (one left out goes back to
    its default), so every declared option is sent, the bots seated named where they sit."""
    unknown = set(changes) - set(BY_NAME)
    if unknown:
        raise ValueError(f"not a declared option: {', '.join(sorted(unknown))}")
    sent: dict[str, Any] = {**room_values(room), **changes}
    bots = [
        seat["level"] if seat is not None and seat.get("kind") == "bot" else None
        for seat in room.get("seats", [])
    ][: int(sent["seats"])]
    sent["bots"] = bots
    return sent


__all__ = [
    "DEFAULT_LEVEL",
    "FORM",
    "HOST_FORM",
    "LEVELS",
    "add_flags",
    "chosen",
    "configure_options",
    "flag_name",
    "parse_value",
    "room_values",
    "summary",
]
