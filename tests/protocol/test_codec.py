"""Decoding in one step (pydantic's JSON parser) answers every frame as parsing with orjson
and then validating does: the same message, or a refusal."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from protocol.codec import _client, decode_client
from protocol.errors import BadMessage

SCALARS = st.one_of(
    st.integers(-3, 2**53 + 3),
    st.sampled_from([0, 1, 2**53, 2**53 + 1, -1, True, False, None, 1.0, 2.5, "1"]),
    st.text(max_size=4),
    st.sampled_from(["7H", "10D", "KS", "N", "NE", "play", "move", "end_turn", "ABCD"]),
)
ACTIONS = st.one_of(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["play", "move", "end_turn", "x"])},
        optional={"card": SCALARS, "pile": SCALARS, "from": SCALARS, "to": SCALARS, "z": SCALARS},
    ),
    SCALARS,
    st.lists(SCALARS, max_size=2),
)
FRAMES = st.fixed_dictionaries(
    {"type": st.sampled_from(["act", "act", "act", "chat"])},
    optional={"seq": SCALARS, "action": ACTIONS, "extra": SCALARS},
)


def pydantic_way(raw: dict[str, Any]) -> Any:
    try:
        return _client.validate_python(raw)
    except ValidationError:
        return None


@settings(max_examples=3000, deadline=None)
@given(raw=FRAMES)
def test_every_frame_parsed_in_one_step_is_the_message_validation_gives(
    raw: dict[str, Any],
) -> None:
    try:
        direct = _client.validate_json(orjson.dumps(raw))
    except ValidationError:
        return
    validated = pydantic_way(raw)
    assert validated is not None, raw
    assert direct == validated
    assert direct.model_dump(by_alias=True) == validated.model_dump(by_alias=True)


@settings(max_examples=1500, deadline=None)
@given(raw=FRAMES)
def test_decoding_answers_as_pydantic_does(raw: dict[str, Any]) -> None:
    frame = orjson.dumps(raw)
    validated = pydantic_way(raw)
    if validated is None:
        with pytest.raises(BadMessage):
            decode_client(frame)
    else:
        assert decode_client(frame) == validated


@pytest.mark.parametrize(
    "action",
    [
        {"type": "play", "card": "10D", "pile": "NE"},
        {"type": "move", "from": "N", "to": "E"},
        {"type": "end_turn"},
    ],
)
def test_the_usual_moves_decode(action: dict[str, Any]) -> None:
    raw = {"type": "act", "seq": 7, "action": action}
    assert decode_client(orjson.dumps(raw)) == pydantic_way(raw)


@pytest.mark.parametrize(
    ("frame", "reason"),
    [(b"not json", "not_json"), (b"[1, 2]", "not_object"), (b'{"type": "act"}', "invalid")],
)
def test_refusals_still_say_why(frame: bytes, reason: str) -> None:
    with pytest.raises(BadMessage) as refused:
        decode_client(frame)
    assert refused.value.params.get("reason") == reason
