"""Server frames built from their message models, so each frame is declared once.

Every frame the server writes, and every table-log line, is built here from its model in
:mod:`protocol.messages` (a log line's in :mod:`protocol.log_events`):
``frame(Joined, room=code, role="player", seat=1, token=t)``. The model supplies the tag
(``type`` or ``ev``), the field names and their wire spelling (``from_`` goes out as
``from``); a field left out of the call is left out of the frame, as pydantic's
``exclude_unset`` would, and the model's default stands for it on the other side. A name the
model does not have, or a missing required field, is a ``TypeError`` at the call.

The builders are generated once per model, as plain functions with the model's keyword
parameters (the way :mod:`dataclasses` writes ``__init__``): constructing and dumping the
pydantic model costs about 17 µs for a patch, this about 1 µs, and a move sends several.
Nothing is validated here on the hot path; with ``KC_CHECK_FRAMES=1`` in the environment
(the test suite sets it) every frame and line is also validated against its model, strictly,
in the JSON form a client receives, so a frame that does not match its model fails the test
that produced it.
"""

from __future__ import annotations

import os
import typing
from collections.abc import Callable
from typing import Any

import orjson
from pydantic import BaseModel

#: Validate every built frame against its model (tests); off in production.
CHECK = os.environ.get("KC_CHECK_FRAMES") == "1"
#: The fields that tag a model on the wire: always written, never a parameter.
TAGS = ("type", "ev")

_UNSET: Any = object()
_made: dict[tuple[type[BaseModel], bool], Callable[..., Any]] = {}


def _tag(model: type[BaseModel]) -> tuple[str, str] | None:
    for name in TAGS:
        field = model.model_fields.get(name)
        if field is not None and typing.get_origin(field.annotation) is typing.Literal:
            return name, str(field.default)
    return None


def _check(model: type[BaseModel], encoded: bytes) -> None:
    model.model_validate_json(encoded, strict=True)


def _generate(model: type[BaseModel], encode: bool) -> Callable[..., Any]:
    """Write the builder of ``model``, with its fields as keyword parameters; it returns the
    dict, or with ``encode`` the UTF-8 JSON."""
    tag = _tag(model)
    required: list[str] = []
    optional: list[str] = []
    literal = [f"{tag[0]!r}: {tag[1]!r}"] if tag else []
    sets: list[str] = []
    for name, field in model.model_fields.items():
        if tag is not None and name == tag[0]:
            continue
        key = field.alias or name
        if field.is_required():
            required.append(name)
            literal.append(f"{key!r}: {name}")
        else:
            optional.append(f"{name}=_UNSET")
            sets.append(f"    if {name} is not _UNSET:\n        data[{key!r}] = {name}\n")
    params = ", ".join(required + optional)
    if encode:
        tail = "    out = _dumps(data)\n" + ("    _check(_model, out)\n" if CHECK else "")
        tail += "    return out\n"
    else:
        tail = ("    _check(_model, _dumps(data))\n" if CHECK else "") + "    return data\n"
    source = (
        f"def build({'*, ' if params else ''}{params}):\n"
        f"    data = {{{', '.join(literal)}}}\n"
        f"{''.join(sets)}{tail}"
    )
    namespace: dict[str, Any] = {
        "_UNSET": _UNSET,
        "_dumps": orjson.dumps,
        "_check": _check,
        "_model": model,
    }
    exec(source, namespace)
    build: Callable[..., Any] = namespace["build"]
    build.__qualname__ = build.__name__ = f"{'encode' if encode else 'build'}_{model.__name__}"
    return build


def _made_for(model: type[BaseModel], encode: bool) -> Callable[..., Any]:
    made = _made.get((model, encode))
    if made is None:
        made = _made[model, encode] = _generate(model, encode)
    return made


def encoder(model: type[BaseModel]) -> Callable[..., bytes]:
    """The function that writes ``model`` frames: keyword arguments named as the model's
    fields, UTF-8 JSON out. Bind it once where a frame is sent on every move."""
    return _made_for(model, True)


def builder(model: type[BaseModel]) -> Callable[..., dict[str, Any]]:
    """The function that builds ``model`` messages as JSON-ready dicts."""
    return _made_for(model, False)


def frame(model: type[BaseModel], /, **fields: Any) -> bytes:
    """One ``model`` frame as UTF-8 JSON, ready to send as a text frame."""
    return encoder(model)(**fields)


def data(model: type[BaseModel], /, **fields: Any) -> dict[str, Any]:
    """One ``model`` message as a JSON-ready dict: a table-log line, kept in the room's
    document and sent inside patches."""
    return builder(model)(**fields)


__all__ = ["CHECK", "builder", "data", "encoder", "frame"]
