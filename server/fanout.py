"""The patches of one change for all of a room's viewers, sharing the common part.

Every viewer's document is ``{"room": ..., "game": ...}``; a seat's ``game`` is the public
view plus its private keys (:data:`PRIVATE`). All documents a room holds describe the same
state, so the operations on the shared part are the same for every viewer: they are
computed once per change, and only the private keys are compared per seat.
"""

from __future__ import annotations

from typing import Any

from protocol.diff import Op, diff

Doc = dict[str, Any]
#: The keys of a seat's ``game`` that the public view does not have.
PRIVATE = frozenset(("you", "hand", "legal"))


def _public(game: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in game.items() if key not in PRIVATE}


def patches(old: dict[Any, Doc], new: dict[Any, Doc]) -> dict[Any, list[Op] | None]:
    """Per viewer, the operations turning its ``old`` document into its ``new`` one.

    ``old`` and ``new`` each hold documents of one state of the room. A viewer with no
    old document gets None: it needs a snapshot.
    """
    shared: list[Op] | None = None
    out: dict[Any, list[Op] | None] = {}
    for viewer, new_doc in new.items():
        old_doc = old.get(viewer)
        if old_doc is None:
            out[viewer] = None
            continue
        old_game, new_game = old_doc["game"], new_doc["game"]
        if old_game is None or new_game is None:
            out[viewer] = diff(old_doc, new_doc)  # a match began or was cleared
            continue
        if shared is None:
            shared = diff(old_doc["room"], new_doc["room"], "/room")
            shared += diff(_public(old_game), _public(new_game), "/game")
        ops = list(shared)
        for key in PRIVATE.intersection(new_game):
            ops += diff(old_game.get(key), new_game[key], f"/game/{key}")
        out[viewer] = ops
    return out
