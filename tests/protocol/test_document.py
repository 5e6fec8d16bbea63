"""The typed document: the schema's ``Document`` is what the server sends, to a seat and to
a spectator, in every phase; a document that strays from it (an unknown key, the stock's
cards, a card code that is none) does not validate. The docs-only client
(tests/contract) checks every document it holds against the published schema."""

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
    schema = build_schema()
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
