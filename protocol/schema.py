"""The JSON Schema of every wire message, generated from :mod:`protocol.messages`.

``python -m protocol.schema`` rewrites ``protocol/schema.json``; a test fails when the
committed file differs from what the models generate.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

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
    defs["Error"]["allOf"] = _params_by_code([cls.code for cls in error_classes()])
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
    """Each error code with the parameters its ``params`` may hold, typed (each optional,
    and null where the cause could not name it)."""
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


def _param_schema(kind: object) -> dict[str, Any]:
    return {"anyOf": [TypeAdapter(cast(Any, kind)).json_schema(), {"type": "null"}]}


def _params_by_code(codes: list[str]) -> list[dict[str, Any]]:
    """An ``error`` frame's ``params`` checked against its own code's (and an unknown code
    refused: the codes are a closed set, like the message types)."""
    rules: list[dict[str, Any]] = [{"properties": {"code": {"enum": sorted(codes)}}}]
    for code in sorted(codes):
        rules.append(
            {
                "if": {"properties": {"code": {"const": code}}, "required": ["code"]},
                "then": {
                    "properties": {"params": {"$ref": f"#/$defs/ErrorParams/properties/{code}"}}
                },
            }
        )
    return rules


def render() -> str:
    return json.dumps(build_schema(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    SCHEMA_PATH.write_text(render())
    print(f"wrote {SCHEMA_PATH.name}")
