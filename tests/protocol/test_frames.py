"""Frames built from their models (protocol/frames.py): the model's fields, tag and wire
names; a field not given is left out; a wrong name or a wrong shape fails."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

import orjson
import pytest
from pydantic import BaseModel, ValidationError

from protocol import frames
from protocol.log_events import LogEvent, Moved, Played
from protocol.messages import Error, Joined, Patch, Queued, Rewound, ServerMessage

ROOT = Path(__file__).resolve().parents[2]


def members(union: object) -> list[type[BaseModel]]:
    return list(typing.get_args(typing.get_args(union)[0]))


def test_the_suite_checks_every_frame_against_its_model() -> None:
    assert frames.CHECK  # tests/conftest.py turns it on for every test and server


def test_a_frame_has_the_tag_the_wire_names_and_only_the_fields_given() -> None:
    assert orjson.loads(frames.frame(Rewound, room="ABCDEF", from_=4, to=2)) == {
        "type": "rewound",
        "room": "ABCDEF",
        "from": 4,
        "to": 2,
    }
    assert orjson.loads(frames.frame(Queued, seats=None)) == {"type": "queued", "seats": None}
    assert orjson.loads(frames.frame(Queued, seats=4, wait=2.5))["wait"] == 2.5
    assert frames.data(Moved, seat=1, from_="N", to="E") == {
        "ev": "moved",
        "seat": 1,
        "from": "N",
        "to": "E",
    }


@pytest.mark.parametrize("model", [*members(ServerMessage), *members(LogEvent)])
def test_every_message_has_a_builder_with_its_fields(model: type[BaseModel]) -> None:
    build = frames.builder(model)
    with pytest.raises(TypeError):
        build(not_a_field=1)
    tag = next(name for name in frames.TAGS if name in model.model_fields)
    params = {name for name in model.model_fields if name != tag}
    assert set(build.__code__.co_varnames[: build.__code__.co_kwonlyargcount]) == params


def test_a_missing_field_or_a_wrong_shape_is_refused() -> None:
    with pytest.raises(TypeError):
        frames.frame(Joined, room="ABCDEF", role="player", seat=0)  # token is required
    with pytest.raises(ValidationError):
        frames.frame(Patch, from_=1, to=2, ops=[{"op": "bad", "path": "/x"}])
    with pytest.raises(ValidationError):
        frames.data(Played, seat=9, card="6S", pile="N")  # seats are 0 to 3
    with pytest.raises(ValidationError):
        frames.frame(Error, code="x", message="y", params={"a": {"nested": 1}})


def test_the_same_fields_give_the_bytes_pydantic_would() -> None:
    fields = {"from_": 3, "to": 4, "ops": [{"op": "replace", "path": "/v", "value": 1}]}
    ours = frames.frame(Patch, **fields, log=[frames.data(Played, seat=0, card="KH", pile="NE")])
    model = Patch.model_validate_json(ours)
    assert orjson.loads(ours) == model.model_dump(mode="json", by_alias=True, exclude_unset=True)


def test_the_server_writes_no_frame_as_a_dict_literal() -> None:
    """A frame or table-log line spelled as ``{"type": ...}`` or ``{"ev": ...}`` in the
    server would be a second definition of its message."""
    found = []
    for path in sorted((ROOT / "server").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Dict):
                keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
                if keys & {"type", "ev"}:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []
