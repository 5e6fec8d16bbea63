"""The seat tokens a player keeps between runs, so ``--join CODE`` returns to the same seat.

The file is a small JSON object keyed by server URL and room code, written with owner-only
permissions (a token is a secret: whoever has it can play the seat)::

    {"ws://127.0.0.1:8000/": {"K7QMXA": {"token": "...", "seat": 0, "name": "Ana"}}}
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: At most this many rooms are remembered per server (the oldest are forgotten first).
KEEP = 50


def default_path() -> Path:
    """``~/.config/kings-corner/tokens.json`` (always inside the user's home)."""
    return Path.home() / ".config" / "kings-corner" / "tokens.json"


@dataclass(frozen=True, slots=True)
class Saved:
    token: str
    seat: int | None
    name: str


class TokenFile:
    """Read and write remembered seat tokens in one JSON file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _load(self) -> dict[str, dict[str, dict[str, Any]]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def get(self, url: str, room: str) -> Saved | None:
        """The token saved for ``room`` on the server at ``url``, if any."""
        entry = self._load().get(url, {}).get(room.upper())
        if not isinstance(entry, dict) or not isinstance(entry.get("token"), str):
            return None
        seat = entry.get("seat")
        return Saved(
            token=entry["token"],
            seat=seat if isinstance(seat, int) else None,
            name=str(entry.get("name", "")),
        )

    def put(self, url: str, room: str, saved: Saved) -> None:
        """Remember ``saved`` for ``room`` (replacing what was there)."""
        data = self._load()
        rooms = data.setdefault(url, {})
        rooms.pop(room.upper(), None)
        rooms[room.upper()] = {"token": saved.token, "seat": saved.seat, "name": saved.name}
        while len(rooms) > KEEP:
            rooms.pop(next(iter(rooms)))
        self._write(data)

    def forget(self, url: str, room: str) -> None:
        data = self._load()
        if data.get(url, {}).pop(room.upper(), None) is not None:
            self._write(data)

    def _write(self, data: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, sort_keys=True)
        os.replace(tmp, self.path)


__all__ = ["KEEP", "Saved", "TokenFile", "default_path"]
