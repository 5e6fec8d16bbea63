"""The one error tree of the project, each error with a stable wire code.

Every refusal the server sends to a client is one of these, turned into an ``error``
message in exactly one place (the server's connection handler). ``client_fault`` says
whose fault it was: a client error leaves the connection open; anything else is a bug.
This module imports only the standard library, so the rules engine can raise from it.
"""

from __future__ import annotations

from typing import ClassVar

#: A parameter of an error: what a client needs to word it in its own language.
Param = str | int | list[str] | list[int] | None


#: The type of each parameter, by its name; null is always allowed too (a parameter the
#: cause could not name, such as the room of an event read outside one).
PARAM_TYPES: dict[str, object] = {
    "base": str,  # a card code
    "card": str,  # a card code (as sent, for bad_action)
    "command": str,
    "field": str,
    "format": int,
    "level": str,
    "limit": int,
    "onto": str,  # a card code
    "phase": str,
    "pile": str,  # a pile name (as sent, for no_such_pile)
    "problem": str,
    "rate": int,
    "reason": str,
    "retry_after": int,  # whole seconds
    "room": str,
    "seat": int,
    "seats": int,  # a number of seats; some codes list seats instead (their param_types)
    "supported": list[int],
    "text": str,
    "to": str,  # a pile name
    "from": str,  # a pile name
    "unknown": list[str],
}


class KingsCornerError(Exception):
    """Base of every error the project raises on purpose.

    ``code`` is stable and ``params`` carries what is needed to word the refusal (a card,
    a pile, a limit...); ``message`` is a short English wording for logs and raw clients.
    docs/protocol.md lists every code with its parameters.
    """

    code: ClassVar[str] = "internal_error"
    client_fault: ClassVar[bool] = False
    default_message: ClassVar[str] = "Something went wrong on the server."
    #: The parameters this code may carry (each one optional: a cause names what it has).
    param_names: ClassVar[tuple[str, ...]] = ()
    #: Where this code's parameter has another type than :data:`PARAM_TYPES` gives it.
    param_types: ClassVar[dict[str, object]] = {}

    @classmethod
    def param_type(cls, name: str) -> object:
        """The type of this code's parameter ``name`` (for the published schema)."""
        return cls.param_types.get(name, PARAM_TYPES[name])

    def __init__(self, message: str | None = None, **params: Param) -> None:
        unknown = set(params) - set(self.param_names)
        if unknown:
            raise TypeError(f"{self.code} takes no parameter {sorted(unknown)}")
        self.message = message or self.default_message
        self.params: dict[str, Param] = params
        super().__init__(self.message)


class ClientError(KingsCornerError):
    """A request the client should not have sent; nothing was changed."""

    code = "bad_request"
    client_fault = True
    default_message = "That request is not valid."


# --- refusals of the rules engine -------------------------------------------------


class IllegalAction(ClientError):
    """Base of every action the rules refuse."""

    code = "illegal_action"
    default_message = "That move is not allowed."


class BadAction(IllegalAction):
    code = "bad_action"
    param_names = ("reason", "text", "card")
    default_message = "That is not an action: expected play, move, draw or end_turn."


class NotYourTurn(IllegalAction):
    code = "not_your_turn"
    param_names = ("reason",)
    default_message = "It is not your turn."


class NotInHand(IllegalAction):
    code = "not_in_hand"
    param_names = ("card",)
    default_message = "That card is not in your hand."


class DoesNotFit(IllegalAction):
    code = "does_not_fit"
    param_names = ("reason", "card", "pile", "onto", "from", "to", "base")
    default_message = "A card fits only one rank lower and of the opposite colour."


class CornerNeedsKing(IllegalAction):
    code = "corner_needs_king"
    param_names = ("card", "pile", "from", "to", "base")
    default_message = "Only a king may start an empty corner."


class NoSuchPile(IllegalAction):
    code = "no_such_pile"
    param_names = ("pile",)
    default_message = "Piles are N, E, S, W, NE, SE, SW and NW."


class CannotMovePile(IllegalAction):
    code = "cannot_move_pile"
    param_names = ("reason", "from", "to")
    default_message = "That pile cannot move there."


class MustPlayKing(IllegalAction):
    code = "must_play_king"
    default_message = "You hold a king and a corner is empty: play the king first."


class MustPlayCard(IllegalAction):
    """``draw: until_playable``: the turn ends only after a card was played from the hand
    (or once the stock is empty)."""

    code = "must_play_card"
    default_message = "Play a card from your hand before ending your turn."


class CannotDraw(IllegalAction):
    """A ``draw`` refused: ``reason`` is ``rule`` (the room does not draw until playable),
    ``stock_empty``, or ``playable`` (a card of the hand can be played: ``card`` onto
    ``pile``)."""

    code = "cannot_draw"
    param_names = ("reason", "card", "pile")
    default_message = "You may draw only while no card of your hand can be played."


class HandOver(IllegalAction):
    code = "hand_over"
    default_message = "This hand is over."


class HandInProgress(IllegalAction):
    code = "hand_in_progress"
    default_message = "The current hand is not over yet."


class MatchOver(IllegalAction):
    code = "match_over"
    default_message = "The match is over."


class BadOptions(ClientError):
    code = "bad_options"
    param_names = ("reason", "seat", "level", "unknown", "seats")
    default_message = "Those room options are not valid."


# --- refusals of the server ---------------------------------------------------------


class BadMessage(ClientError):
    code = "bad_message"
    param_names = ("reason", "field", "problem", "limit")
    default_message = "That message could not be understood."


class UnsupportedVersion(ClientError):
    code = "unsupported_version"
    param_names = ("supported",)
    default_message = "This server does not speak that protocol version."


class NotHello(ClientError):
    code = "hello_first"
    default_message = "Send hello first."


class RoomNotFound(ClientError):
    code = "room_not_found"
    default_message = "There is no room with that code."


class RoomFull(ClientError):
    code = "room_full"
    param_names = ("reason", "limit")
    default_message = "That room has no free seat."


class SeatTaken(ClientError):
    code = "seat_taken"
    param_names = ("reason", "seat", "seats")
    default_message = "That seat is taken."


class NotInRoom(ClientError):
    code = "not_in_room"
    default_message = "Join a room first."


class AlreadyInRoom(ClientError):
    code = "already_in_room"
    param_names = ("reason",)
    default_message = "Leave your current room first."


class NotSeated(ClientError):
    code = "not_seated"
    default_message = "Spectators cannot do that; take a seat first."


class NotHost(ClientError):
    code = "not_host"
    default_message = "Only the host can do that."


class BadPhase(ClientError):
    code = "bad_phase"
    param_names = ("command", "phase", "reason", "seats")
    param_types: ClassVar[dict[str, object]] = {"seats": list[int]}  # the seats
    default_message = "That cannot be done at this point of the match."


class BadToken(ClientError):
    code = "bad_token"
    default_message = "That seat token is not valid for this room."


class RateLimited(ClientError):
    code = "rate_limited"
    param_names = ("reason", "limit", "rate", "retry_after")
    default_message = "Too many messages; slow down."


class TooManyRooms(ClientError):
    code = "too_many_rooms"
    param_names = ("limit",)
    default_message = "This connection has created as many rooms as it may."


class BadRecoveryCode(ClientError):
    code = "bad_recovery_code"
    default_message = "That recovery code belongs to nobody (a newer code replaces an older one)."


class BadName(ClientError):
    """A display name refused: ``reason`` is ``empty``, ``invisible``, ``control``, ``hash``,
    ``reserved`` or ``too_long`` (with ``limit``)."""

    code = "bad_name"
    param_names = ("reason", "limit")
    default_message = "That name cannot be used."


class IdentityRevoked(ClientError):
    """The player token was revoked by a newer recovery code: say hello without it (a new
    identity) or redeem the current code."""

    code = "identity_revoked"
    default_message = (
        "A newer recovery code signed this device out of that identity; "
        "redeem the current code to come back."
    )


class StoreUnavailable(KingsCornerError):
    code = "store_unavailable"
    client_fault = False
    default_message = "The game store is unreachable; try again shortly."
    #: Set by a store that could not even open a connection: the request was never sent,
    #: so nothing of it can have been stored (the server's own knowledge, not on the wire).
    never_sent = False

    @classmethod
    def unreached(cls) -> StoreUnavailable:
        """The error for a request that never left this process."""
        error = cls()
        error.never_sent = True
        return error


class StoreFull(StoreUnavailable):
    """The store is out of memory and refuses writes (Redis at ``maxmemory`` with the
    ``noeviction`` policy): nothing of the request was stored, and what was stored before
    is kept. Reading still works; writes work again once the operators make room."""

    code = "store_full"
    default_message = "The game store is full; nothing was changed. Try again later."


class UpgradeNeeded(KingsCornerError):
    """Room ``room`` holds a stored event this server version cannot read (a kind or a
    ``format`` newer than it knows): a newer server serves it; this one does not touch it."""

    code = "upgrade_needed"
    client_fault = False
    param_names = ("room", "format")
    default_message = "That room needs a newer server version; reconnect in a moment."


class Conflict(KingsCornerError):
    """Another process changed the room first; the caller retries on fresh state."""

    code = "conflict"
    default_message = "The room changed meanwhile; try again."


class RoomLocked(ClientError):
    code = "room_locked"
    default_message = "The host has locked this room against new players."


class Kicked(ClientError):
    code = "kicked"
    default_message = "You were removed from this room by its host."


class NotReady(ClientError):
    code = "not_ready"
    param_names = ("seats",)
    param_types: ClassVar[dict[str, object]] = {"seats": list[int]}  # the seats
    default_message = "Every seated player must be ready first."
