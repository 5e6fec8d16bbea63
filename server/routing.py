"""The room a WebSocket's URL names, ``/?room=CODE``: a hint for the load balancer only.

A client that knows the room it is about to be in (a link to it, a reconnection, a creator
once the server named the room) opens its socket at ``/?room=CODE`` (docs/protocol.md,
"Transport"). A load balancer can then send every player of a room to the same process
(deploy/nginx.conf hashes the code), which holds the room alone and so pays the store
half the round trips per move (docs/capacity.md). The server itself decides nothing by
it: every process serves every room (the store makes that correct), the room actually
joined is the one a ``join`` names, and a URL naming no room, another room, a room that
does not exist or something that is no room code at all is served like any other.

The value is the client's, untrusted: it is read from the request line websockets already
parsed and bounded (the HTTP side answers longer paths with 404 before any handshake),
never decoded or looked up, and only a well-formed code is kept (for the connection's log
line); the metric counts what kind of value came, never the value.
"""

from __future__ import annotations

from enum import StrEnum

from .room import CODE_ALPHABET, CODE_LENGTH

#: The query parameter that names the room.
ROOM_PARAMETER = "room"


class UrlRoom(StrEnum):
    """What a WebSocket's URL said about its room (the label of ``kc_url_rooms_total``)."""

    #: No ``room`` parameter: a client that does not know its room yet (a lobby, a create,
    #: quick play), or one that does not say.
    NONE = "none"
    #: A well-formed room code (whether that room exists is not asked).
    CODE = "code"
    #: A ``room`` parameter that is no room code: served all the same.
    INVALID = "invalid"


def room_in_url(path: str) -> tuple[UrlRoom, str | None]:
    """What the request target ``path`` (``/?room=K7QMXA``) says about the room, and the
    code when it is a well-formed one. The first ``room`` parameter counts (as for nginx's
    ``$arg_room``); its value is taken as sent, not percent-decoded, so a code is exactly
    what the load balancer hashed. Never raises."""
    query = path.partition("?")[2].partition("#")[0]
    for part in query.split("&"):
        name, found, value = part.partition("=")
        if name != ROOM_PARAMETER or not found:
            continue
        if len(value) == CODE_LENGTH and all(ch in CODE_ALPHABET for ch in value):
            return UrlRoom.CODE, value
        return UrlRoom.INVALID, None
    return UrlRoom.NONE, None
