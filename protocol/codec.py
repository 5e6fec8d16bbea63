"""Decoding and encoding wire messages, in one place."""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import TypeAdapter, ValidationError

from .errors import BadMessage
from .messages import ClientMessage, ServerMessage

_client: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
_server: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


def _first_problem(exc: ValidationError) -> str:
    err = exc.errors(include_url=False)[0]
    where = ".".join(str(p) for p in err["loc"]) or "message"
    return f"{where}: {err['msg']}"


def decode_client(data: str | bytes) -> ClientMessage:
    """Parse one client frame; raise :class:`BadMessage` saying what is wrong."""
    try:
        raw = orjson.loads(data)
    except orjson.JSONDecodeError:
        raise BadMessage("Frames must be JSON objects.") from None
    if not isinstance(raw, dict):
        raise BadMessage("Frames must be JSON objects.")
    try:
        return _client.validate_python(raw)
    except ValidationError as exc:
        raise BadMessage(f"Invalid message: {_first_problem(exc)}.") from None


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
