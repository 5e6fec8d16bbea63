"""The tokens a player keeps between runs: seat tokens, so ``--join CODE`` returns to the
same seat, and the player token, so the same person is the same player on every visit.

The file is a small JSON object keyed by server URL, then by room code (always upper case)
or ``player`` (the secret identity the server gave in ``welcome``, and its public id). It is
written with owner-only permissions: whoever has a token can play the seat, or be the
player::

    {"ws://127.0.0.1:8000/": {
        "K7QMXA": {"token": "...", "seat": 0, "name": "Ana"},
        "player": {"token": "...", "id": "3f9c0a7d2b1e4c56"}}}
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .replay import http_base

#: At most this many rooms are remembered per server (the oldest are forgotten first).
KEEP = 50
#: The key of the player identity under a server's URL (room codes are upper case).
PLAYER = "player"
#: The length limits of a player token (longer or shorter ones are not sent).
_PLAYER_LENGTH = range(16, 65)


def default_path() -> Path:
    """``~/.config/kings-corner/tokens.json`` (always inside the user's home)."""
    return Path.home() / ".config" / "kings-corner" / "tokens.json"


@dataclass(frozen=True, slots=True)
class Saved:
    """A remembered seat: its secret token, the seat number and the name played under."""

    token: str
    seat: int | None
    name: str


class TokenFile:
    """Read and write remembered seat and player tokens in one JSON file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _load(self) -> dict[str, dict[str, dict[str, Any]]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {url: rooms for url, rooms in data.items() if isinstance(rooms, dict)}

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
        codes = [key for key in rooms if key != PLAYER]
        for code in codes[: max(0, len(codes) - KEEP)]:
            del rooms[code]
        self._write(data)

    def forget(self, url: str, room: str) -> None:
        """Drop the token saved for ``room`` on the server at ``url``."""
        data = self._load()
        if data.get(url, {}).pop(room.upper(), None) is not None:
            self._write(data)

    def player(self, url: str) -> str | None:
        """The secret player token kept for the server at ``url``, if any (a malformed one
        is ignored: the server would refuse the hello that carried it)."""
        entry = self._load().get(url, {}).get(PLAYER)
        token = entry.get("token") if isinstance(entry, dict) else None
        if isinstance(token, str) and len(token) in _PLAYER_LENGTH:
            return token
        return None

    def player_id(self, url: str) -> str | None:
        """The public id of the player kept for the server at ``url``, if any; the server
        is the same whichever of its addresses named it (``ws://h:p/`` or ``http://h:p``)."""
        origin = http_base(url)
        for key, rooms in self._load().items():
            entry = rooms.get(PLAYER)
            if http_base(key) == origin and isinstance(entry, dict):
                found = entry.get("id")
                if isinstance(found, str) and found:
                    return found
        return None

    def put_player(self, url: str, token: str, player_id: str | None = None) -> None:
        """Remember the player token (and its public id) for the server at ``url``; the
        file is only rewritten when something changed."""
        data = self._load()
        entry = {"token": token, "id": player_id}
        if data.get(url, {}).get(PLAYER) == entry:
            return
        data.setdefault(url, {})[PLAYER] = entry
        self._write(data)

    def forget_player(self, url: str) -> None:
        """Drop the player token kept for the server at ``url`` (one a newer recovery code
        revoked: the next visit is a new player, or recovers with a code)."""
        data = self._load()
        if data.get(url, {}).pop(PLAYER, None) is not None:
            self._write(data)

    def _write(self, data: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, sort_keys=True)
        os.replace(tmp, self.path)


__all__ = ["KEEP", "PLAYER", "Saved", "TokenFile", "default_path"]
