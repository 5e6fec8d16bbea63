"""The JSON Schema of every wire message, generated from :mod:`protocol.messages`.

``python -m protocol.schema`` rewrites ``protocol/schema.json``; a test fails when the
committed file differs from what the models generate.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from .document import Document
from .errors import KingsCornerError
from .messages import PROTOCOL_VERSION, ClientMessage, ServerMessage

SCHEMA_PATH = Path(__file__).with_name("schema.json")


def build_schema() -> dict[str, Any]:
    """One document with both closed unions: what clients send and what servers send."""
    client = TypeAdapter(ClientMessage).json_schema(by_alias=True, ref_template="#/$defs/{model}")
    server = TypeAdapter(ServerMessage).json_schema(by_alias=True, ref_template="#/$defs/{model}")
    document = TypeAdapter(Document).json_schema(by_alias=True, ref_template="#/$defs/{model}")
    defs = {**client.pop("$defs", {}), **server.pop("$defs", {}), **document.pop("$defs", {})}
    defs["Document"] = document
    # The server builds documents as plain data (the model keeps ``doc`` a dict, so nothing
    # validates it on the hot path); the schema says what that data is.
    snapshot_doc = defs["Snapshot"]["properties"]["doc"]
    defs["Snapshot"]["properties"]["doc"] = {"$ref": "#/$defs/Document", **_words(snapshot_doc)}
    defs["ErrorParams"] = error_params()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"kings-corner wire protocol, version {PROTOCOL_VERSION}",
        "description": "JSON text frames; each frame is one object tagged by 'type'.",
        "$defs": {**defs, "ClientMessage": client, "ServerMessage": server},
        "oneOf": [{"$ref": "#/$defs/ClientMessage"}, {"$ref": "#/$defs/ServerMessage"}],
    }


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
    """Each error code with the parameters its ``params`` may hold (all optional)."""
    codes = {
        cls.code: {
            "type": "object",
            "properties": {name: {} for name in cls.param_names},
            "additionalProperties": False,
        }
        for cls in error_classes()
    }
    return {
        "description": "error.params by error.code: every parameter is optional",
        "type": "object",
        "properties": dict(sorted(codes.items())),
    }


def render() -> str:
    return json.dumps(build_schema(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    SCHEMA_PATH.write_text(render())
    print(f"wrote {SCHEMA_PATH.name}")
