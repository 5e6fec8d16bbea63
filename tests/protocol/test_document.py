"""The schema types the document and the errors' parameters. ``Document`` is what the
server sends, to a seat and to a spectator; a document that strays from it (an unknown key,
the stock's cards, a card code that is none) does not validate, and the docs-only client
(tests/contract) checks every document it holds against it. An ``error`` frame's
``params`` are checked against its own code's, and its code against the closed set.

These use the closed schema (``build_schema(closed=True)``): what this release's server
sends, exactly. The published one is open for later additions
(tests/server/test_open_schema.py)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import ValidationError

from protocol.document import check_document
from protocol.schema import build_schema
from tests.contract.docs_client import Contract

ROOT = Path(__file__).resolve().parents[2]


def validate(doc: dict[str, Any]) -> list[str]:
    schema = build_schema(closed=True)
    defs = schema["$defs"]
    validator = Draft202012Validator({"$defs": defs, "$ref": "#/$defs/Document"})
    return [error.message for error in validator.iter_errors(doc)]


def test_the_docs_example_document_is_a_document() -> None:
    example = Contract.load().example_doc
    check_document(example)
    assert validate(example) == []


@pytest.mark.parametrize(
    ("where", "change"),
    [
        ("an unknown room key", lambda d: d["room"].update(secret=1)),
        ("the stock's cards", lambda d: d["game"].update(stock=["7H"])),
        ("a card that is none", lambda d: d["game"]["hand"].append("1Z")),
        ("a phase that is none", lambda d: d["room"].update(phase="paused")),
        ("an option no room has", lambda d: d["room"]["options"].update(seed="x")),
        ("a seat without its fields", lambda d: d["room"]["seats"][0].pop("away")),
    ],
)
def test_a_document_that_strays_does_not_validate(where: str, change: Any) -> None:
    doc = copy.deepcopy(Contract.load().example_doc)
    change(doc)
    with pytest.raises(ValidationError):
        check_document(doc)
    assert validate(doc), where


def test_the_committed_schema_types_the_snapshot_document() -> None:
    schema = json.loads((ROOT / "protocol" / "schema.json").read_text())
    doc = schema["$defs"]["Snapshot"]["properties"]["doc"]
    assert doc["$ref"] == "#/$defs/Document"
    room = schema["$defs"]["RoomDoc"]["properties"]
    assert room["seats"]["type"] == "array" and "options" in room


def error_validator() -> Draft202012Validator:
    return Draft202012Validator(
        {"$defs": build_schema(closed=True)["$defs"], "$ref": "#/$defs/Error"}
    )


def error(code: str, **params: object) -> dict[str, object]:
    return {"type": "error", "code": code, "params": params, "message": "m", "seq": None}


@pytest.mark.parametrize(
    ("frame", "valid"),
    [
        (error("not_ready", seats=[1, 2]), True),
        (error("not_ready", seats=2), False),  # not_ready lists the seats it waits for
        (error("seat_taken", reason="taken", seat=1), True),
        (error("seat_taken", seat="1"), False),
        (error("rate_limited", reason="failed_joins", retry_after=3), True),
        (error("upgrade_needed", room=None, format=3), True),
        (error("unsupported_version", supported=[2, 1]), True),
        (error("not_in_hand", pile="N"), False),  # a parameter its code does not have
        (error("no_such_code"), False),
    ],
)
def test_error_params_are_typed_by_their_code(frame: dict[str, object], valid: bool) -> None:
    errors = list(error_validator().iter_errors(frame))
    assert (not errors) == valid, [e.message for e in errors]
