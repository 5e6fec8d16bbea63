"""The committed JSON Schema matches the models, and real frames validate against it."""

from __future__ import annotations

import json

import jsonschema

from protocol.schema import SCHEMA_PATH, build_schema, render


def test_committed_schema_matches_the_models() -> None:
    assert SCHEMA_PATH.read_text() == render(), "run: python -m protocol.schema"


def test_frames_validate_against_the_schema() -> None:
    schema = build_schema()
    validator = jsonschema.Draft202012Validator(schema)
    good = [
        {"type": "hello", "version": 2, "name": "Ana"},
        {"type": "act", "seq": 3, "action": {"type": "move", "from": "N", "to": "E"}},
        {"type": "create", "options": {"seats": 3, "bots": [None, "expert", None]}},
        {"type": "error", "code": "not_your_turn", "message": "It is not your turn.", "seq": 4},
        {"type": "patch", "from": 7, "to": 8, "ops": [], "log": [], "seq": None},
    ]
    for frame in good:
        validator.validate(frame)
    bad = [
        {"type": "hello"},
        {"type": "act", "seq": -1, "action": {"type": "end_turn"}},
        {"type": "create", "options": {"seats": 9}},
        {"type": "teleport"},
    ]
    for frame in bad:
        assert not validator.is_valid(frame), json.dumps(frame)
