"""Decoding and encoding wire messages, in one place."""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import TypeAdapter, ValidationError

from .errors import BadMessage
from .messages import Act, ClientMessage, EndTurnAction, MoveAction, PlayAction, ServerMessage

_client: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
_server: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


def _first_problem(exc: ValidationError) -> BadMessage:
    """The refusal naming the first field at fault and pydantic's stable error type."""
    err = exc.errors(include_url=False)[0]
    # The first element of the location is the union's tag (the message type): not a field.
    where = ".".join(str(p) for p in err["loc"][1:]) or "message"
    return BadMessage(
        f"Invalid message: {where}: {err['msg']}.",
        reason="invalid",
        field=where,
        problem=err["type"],
    )


_MAX_SEQ = 2**53
_END_TURN = EndTurnAction.model_construct(type="end_turn")


def _short(value: Any, most: int) -> bool:
    return type(value) is str and len(value) <= most


def _plain_act(raw: dict[str, Any]) -> Act | None:
    """The ``act`` message of a well-formed frame, built without pydantic's validation:
    nearly every frame a server reads is one. None for anything else, which pydantic then
    validates (and refuses with its precise error); ``tests/protocol`` checks that both
    ways agree on every frame this one accepts."""
    if len(raw) != 3 or raw.get("type") != "act":
        return None
    seq, action = raw.get("seq"), raw.get("action")
    if type(seq) is not int or not 0 <= seq <= _MAX_SEQ or type(action) is not dict:
        return None
    kind = action.get("type")
    model: PlayAction | MoveAction | EndTurnAction
    if kind == "play" and len(action) == 3:
        card, pile = action.get("card"), action.get("pile")
        if not (_short(card, 3) and _short(pile, 2)):
            return None
        model = PlayAction.model_construct(type="play", card=card, pile=pile)
    elif kind == "move" and len(action) == 3:
        src, dst = action.get("from"), action.get("to")
        if not (_short(src, 2) and _short(dst, 2)):
            return None
        model = MoveAction.model_construct(type="move", from_=src, to=dst)
    elif kind == "end_turn" and len(action) == 1:
        model = _END_TURN
    else:
        return None
    return Act.model_construct(type="act", seq=seq, action=model)


def decode_client(data: str | bytes) -> ClientMessage:
    """Parse one client frame; raise :class:`BadMessage` saying what is wrong."""
    try:
        raw = orjson.loads(data)
    except orjson.JSONDecodeError:
        raise BadMessage("Frames must be JSON objects.", reason="not_json") from None
    if not isinstance(raw, dict):
        raise BadMessage("Frames must be JSON objects.", reason="not_object")
    act = _plain_act(raw)
    if act is not None:
        return act
    try:
        return _client.validate_python(raw)
    except ValidationError as exc:
        raise _first_problem(exc) from None


def decode_server(data: str | bytes) -> ServerMessage:
    """Parse one server frame (used by clients)."""
    return _server.validate_python(orjson.loads(data))


def encode(message: Any) -> str:
    """Serialise a message model to its JSON text frame."""
    return orjson.dumps(message.model_dump(by_alias=True, exclude_none=False)).decode()


def dumps(data: Any) -> bytes:
    """Serialise plain JSON-ready data to UTF-8 JSON, ready to send as a text frame.

    Used on hot paths that build dicts directly; the bytes go out unchanged.
    """
    return orjson.dumps(data)


def loads(data: str | bytes) -> Any:
    return orjson.loads(data)
