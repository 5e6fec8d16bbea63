"""Structured logs: one JSON object per line, with the connection, room and seat in context.

Context travels in :data:`context` (a ContextVar), set by the connection handler, so every
line logged while serving a message names who it was about. Nothing secret goes in: tokens
are never logged, and refused actions are logged by code only (the card of a refused play
could be one the player holds).
"""

from __future__ import annotations

import logging
import sys
from contextvars import ContextVar
from typing import Any

from pythonjsonlogger.json import JsonFormatter

#: Fields added to every log line written while this context is set.
context: ContextVar[dict[str, Any] | None] = ContextVar("kc_log_context", default=None)


class _ContextFilter(logging.Filter):
    """Adds the context's fields to a record, but none it has already: a value the call
    gives in ``extra`` wins (``log.info("room created", extra={"room": code})`` is logged
    while the creating connection's context still says it is in no room)."""

    def filter(self, record: logging.LogRecord) -> bool:
        for key, value in (context.get() or {}).items():
            if key not in record.__dict__:
                setattr(record, key, value)
        return True


def setup(level: str = "INFO", fmt: str = "json") -> None:
    """Log to stdout-adjacent stderr, as JSON lines (``fmt="json"``) or plain text."""
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "json":
        handler.setFormatter(
            JsonFormatter(
                "{asctime}{levelname}{name}{message}",
                style="{",
                rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
            )
        )
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    handler.addFilter(_ContextFilter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # websockets logs every handshake at INFO; that is noise at our default level.
    logging.getLogger("websockets").setLevel(logging.WARNING)


def bind(**fields: Any) -> None:
    """Add fields to the current context (for this task and what it starts)."""
    current = dict(context.get() or {})
    current.update({k: v for k, v in fields.items() if v is not None})
    context.set(current)
