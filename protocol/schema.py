"""The JSON Schema of every wire message, generated from :mod:`protocol.messages`.

``python -m protocol.schema`` rewrites ``protocol/schema.json``; a test fails when the
committed file differs from what the models generate.

The published schema is *open* where docs/protocol-changes.md promises additions within a
version: every object the server sends (frames, the document, log events, error
parameters) may carry fields it does not list, a log event may have an ``ev`` it does not
know (``$defs/UnknownEvent``), and an error ``code``, a ``reason`` parameter or a hint's
reason code may be one it does not list. Everything it does list keeps its type. What
clients send stays closed (the server refuses an unknown field). ``build_schema(closed=True)``
is the same schema with nothing open: what this release's server sends, exactly, for the
project's own tests.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, cast

from pydantic import TypeAdapter

from .document import Document
from .errors import KingsCornerError
from .messages import PROTOCOL_VERSION, ClientMessage, ServerMessage

SCHEMA_PATH = Path(__file__).with_name("schema.json")


def build_schema(*, closed: bool = False) -> dict[str, Any]:
    """One document with both unions: what clients send and what servers send; open for
    the additions the versioning rules allow unless ``closed``."""
    client = TypeAdapter(ClientMessage).json_schema(by_alias=True, ref_template="#/$defs/{model}")
    server = TypeAdapter(ServerMessage).json_schema(by_alias=True, ref_template="#/$defs/{model}")
    document = TypeAdapter(Document).json_schema(by_alias=True, ref_template="#/$defs/{model}")
    defs = {**client.pop("$defs", {}), **server.pop("$defs", {}), **document.pop("$defs", {})}
    defs["Document"] = document
    # The server builds documents as plain data (the model keeps ``doc`` a dict, so nothing
    # validates it on the hot path); the schema says what that data is.
    snapshot_doc = defs["Snapshot"]["properties"]["doc"]
    defs["Snapshot"]["properties"]["doc"] = {"$ref": "#/$defs/Document", **_words(snapshot_doc)}
    codes = sorted(cls.code for cls in error_classes())
    defs["ErrorParams"] = error_params()
    defs["ErrorCode"] = {
        "description": "The error codes of this release (a later one may add codes).",
        "type": "string",
        "enum": codes,
    }
    error = defs["Error"]["properties"]
    error["code"] = _open({"$ref": "#/$defs/ErrorCode"}, closed, "code")
    defs["AnyErrorParams"] = _any_params(closed)
    error["params"] = {"$ref": "#/$defs/AnyErrorParams", **_words(error["params"])}
    defs["Error"]["allOf"] = _params_by_code(codes)
    _log_events(defs, closed)
    if not closed:
        hint = defs["HintReason"]["properties"]
        defs["HintCode"] = {k: v for k, v in hint["code"].items() if k != "title"}
        hint["code"] = _open({"$ref": "#/$defs/HintCode"}, False, "hint reason")
        client_defs = _reachable(defs, client)
        for name in _reachable(defs, server) | _reachable(defs, document):
            if name not in client_defs:
                _open_objects(defs[name])
        _open_objects(server)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"kings-corner wire protocol, version {PROTOCOL_VERSION}",
        "description": "JSON text frames; each frame is one object tagged by 'type'.",
        "$defs": {**defs, "ClientMessage": client, "ServerMessage": server},
        "oneOf": [{"$ref": "#/$defs/ClientMessage"}, {"$ref": "#/$defs/ServerMessage"}],
    }


def _open(known: dict[str, Any], closed: bool, what: str) -> dict[str, Any]:
    """``known`` (an enum), or when open any string besides: a later release may add
    values, which a client shows or skips."""
    if closed:
        return known
    return {
        "description": f"A known {what}, or one a later release adds (a string).",
        "anyOf": [known, {"type": "string"}],
    }


def _log_events(defs: dict[str, Any], closed: bool) -> None:
    """``$defs/LogEvent``: the known events, and when open any other ``ev`` besides
    (``$defs/UnknownEvent``, which a client skips); ``patch.log`` lists them."""
    items = defs["Patch"]["properties"]["log"]["items"]
    known = sorted(items["discriminator"]["mapping"])
    if closed:
        defs["LogEvent"] = items
    else:
        defs["UnknownEvent"] = {
            "description": (
                "A log event of a later release: any `ev` but the known ones (the "
                "pattern says the same as the `not`, for generators that read no `not`)."
            ),
            "type": "object",
            "properties": {
                "ev": {"type": "string", "not": {"enum": known}, "pattern": _none_of(known)}
            },
            "required": ["ev"],
        }
        defs["LogEvent"] = {
            "description": "One line of the table log, as data: `ev` names what happened.",
            "anyOf": [*items["oneOf"], {"$ref": "#/$defs/UnknownEvent"}],
        }
    defs["Patch"]["properties"]["log"]["items"] = {"$ref": "#/$defs/LogEvent"}


def _none_of(words: list[str]) -> str:
    """A regular expression without look-around (so Rust's and JavaScript's engines take it
    as Python's does) matching every string except ``words``."""

    def rest(prefix: str) -> str:
        following = sorted(
            {w[len(prefix)] for w in words if len(w) > len(prefix) and w.startswith(prefix)}
        )
        parts = [] if prefix in words else [""]
        if following:
            others = "".join(re.escape(c) for c in following)
            parts.append(f"[^{others}].*")
            parts += [re.escape(c) + f"(?:{rest(prefix + c)})" for c in following]
        else:
            parts.append(".+")
        return "|".join(parts)

    return f"^(?:{rest('')})$"


def _reachable(defs: dict[str, Any], root: Any) -> set[str]:
    """The names of the ``$defs`` that ``root`` refers to, directly or through others."""
    found: set[str] = set()
    todo = [root]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                name = ref.removeprefix("#/$defs/").split("/")[0]
                if name not in found:
                    found.add(name)
                    todo.append(defs[name])
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
    return found


def _open_objects(node: Any) -> None:
    """Drop every ``additionalProperties: false`` in ``node``: fields it does not list are
    allowed (a typed ``additionalProperties``, a map's values, stays)."""
    if isinstance(node, dict):
        if node.get("additionalProperties") is False:
            del node["additionalProperties"]
        for value in node.values():
            _open_objects(value)
    elif isinstance(node, list):
        for value in node:
            _open_objects(value)


def _words(schema: dict[str, Any]) -> dict[str, Any]:
    """The title and description of a property's schema, without its type."""
    return {k: v for k, v in schema.items() if k in ("title", "description")}


def error_classes() -> list[type[KingsCornerError]]:
    """Every error of the tree, each code once."""
    found: list[type[KingsCornerError]] = []
    todo: list[type[KingsCornerError]] = [KingsCornerError]
    while todo:
        cls = todo.pop(0)
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


def error_params() -> dict[str, Any]:
    """Each error code with the parameters its ``params`` may hold, typed (each optional,
    and null where the cause could not name it); the open schema allows others besides."""
    codes = {
        cls.code: {
            "type": "object",
            "properties": {name: _param_schema(cls.param_type(name)) for name in cls.param_names},
            "additionalProperties": False,
        }
        for cls in error_classes()
    }
    return {
        "description": "error.params by error.code: every parameter is optional",
        "type": "object",
        "properties": dict(sorted(codes.items())),
    }


def _any_params(closed: bool) -> dict[str, Any]:
    """``error.params`` of any code: every parameter a code of this release has, typed (a
    name has one type, or a few across codes); each code's own are checked by ``allOf``."""
    kinds: dict[str, list[dict[str, Any]]] = {}
    for cls in error_classes():
        for name in cls.param_names:
            for schema in _param_schema(cls.param_type(name))["anyOf"]:
                if schema not in kinds.setdefault(name, []):
                    kinds[name].append(schema)
    params: dict[str, Any] = {
        "description": "error.params of any code; allOf in Error checks each code's own.",
        "type": "object",
        "properties": {name: {"anyOf": kinds[name]} for name in sorted(kinds)},
    }
    if closed:
        params["additionalProperties"] = False
    return params


def _param_schema(kind: object) -> dict[str, Any]:
    return {"anyOf": [TypeAdapter(cast(Any, kind)).json_schema(), {"type": "null"}]}


def _params_by_code(codes: list[str]) -> list[dict[str, Any]]:
    """An ``error`` frame's ``params`` checked against its own code's (a code this release
    does not know is checked only by the types of ``error.params``)."""
    return [
        {
            "if": {"properties": {"code": {"const": code}}, "required": ["code"]},
            "then": {"properties": {"params": {"$ref": f"#/$defs/ErrorParams/properties/{code}"}}},
        }
        for code in codes
    ]


def render() -> str:
    return json.dumps(build_schema(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    SCHEMA_PATH.write_text(render())
    print(f"wrote {SCHEMA_PATH.name}")
