"""The client messages about who you are and what you have done: ``hello`` (which every
connection starts with), ``profile``, ``rename``, ``recovery_code`` and ``recover``, and the
records ``leaderboard`` and ``my_matches``.

:mod:`server.commands` registers them in its ``HANDLERS`` table beside the room's, and
dispatches ``hello`` first.
"""

from __future__ import annotations

import logging
import secrets

from protocol.errors import BadName, BadPhase, IdentityRevoked, UnsupportedVersion
from protocol.frames import frame
from protocol.messages import (
    SUPPORTED_VERSIONS,
    Hello,
    Leaderboard,
    LeaderboardReply,
    Matches,
    MyMatches,
    Profile,
    ProfileReply,
    Recover,
    RecoveryCode,
    RecoveryCodeReply,
    Rename,
    Welcome,
)

from .command_context import Services, hung_up_on_guesser, not_in_room
from .identity import display_name, player_id
from .live_room import RoomConnection

log = logging.getLogger(__name__)
SERVER_NAME = "kings-corner/0.1"


async def hello(s: Services, conn: RoomConnection, message: Hello) -> None:
    """Greet ``conn`` as the identity of ``message.player`` (or its own, or a new one):
    ``bad_name`` for a name that cannot be one, ``identity_revoked`` for a token a newer
    recovery code revoked. An identity with a kept name goes by it.

    A connection is greeted once: a second ``hello`` after its ``welcome`` is refused with
    ``bad_phase`` (``command`` ``hello``, ``reason`` ``greeted``), and the connection keeps
    its identity, name and protocol version. Only a connection whose identity a recovery
    code signed out meanwhile gets ``identity_revoked`` instead, after which it is nobody
    and a hello greets it again (docs/protocol.md, "Identity")."""
    if conn.greeted:
        await _still_signed_in(s, conn)
        raise BadPhase(
            "This connection has said hello already; reconnect to start over.",
            command="hello",
            reason="greeted",
        )
    if message.version not in SUPPORTED_VERSIONS:
        supported = sorted(SUPPORTED_VERSIONS)
        raise UnsupportedVersion(
            f"This server speaks protocol versions {', '.join(map(str, supported))}.",
            supported=supported,
        )
    name = display_name(message.name)
    tag: str | None = None  # given once the identity is shown or kept, not for a hello
    # (A connection signed out is nobody again: its token is "" and a hello greets it.)
    token = message.player or conn.player_token
    if token:
        try:
            player, known = await s.identities.resolve(token)  # the one store read
        except IdentityRevoked:
            if token == conn.player_token:
                # Signed out: this connection is nobody until a hello without a token,
                # which starts a new identity (a seat it holds stays its own).
                conn.player_token, conn.greeted = "", False
            raise
        if known.name is not None:
            if _still_a_name(known.name):
                # The kept name wins over the hello's; only a rename changes it.
                name, tag = known.name, known.tag
                if tag is None:  # kept before tags were
                    name, tag = await s.store.name_and_tag(player, name)
            else:  # kept before the name rules: replaced by this one
                tag = await s.store.set_name(player, name)
    else:
        # A new identity costs the store nothing until it does something.
        token = secrets.token_urlsafe(24)
        player = player_id(token)
    conn.name = name
    conn.player_token, conn.player_id = token, player
    conn.greeted = True
    conn.protocol = message.version
    _welcome(conn, tag)


async def _still_signed_in(s: Services, conn: RoomConnection) -> None:
    """Raise ``identity_revoked`` (and make ``conn`` nobody) when a newer recovery code
    signed its identity out."""
    try:
        await s.identities.resolve(conn.player_token)
    except IdentityRevoked:
        conn.player_token, conn.greeted = "", False
        raise


def _still_a_name(kept: str) -> bool:
    """Whether a kept name passes today's rules unchanged."""
    try:
        return display_name(kept) == kept
    except BadName:
        return False


def _welcome(conn: RoomConnection, tag: str | None) -> None:
    conn.tag = tag
    welcome = frame(
        Welcome,
        version=conn.protocol,
        server=SERVER_NAME,
        player=conn.player_token,
        player_id=conn.player_id,
        tag=tag,
        name=conn.name,
    )
    conn.send(welcome)


# --- records --------------------------------------------------------------------------


async def leaderboard(s: Services, conn: RoomConnection, msg: Leaderboard) -> None:
    entries, day = await s.records.leaderboard(msg.board, msg.day)
    conn.send(frame(LeaderboardReply, board=msg.board, day=day, entries=entries))


async def my_matches(s: Services, conn: RoomConnection, msg: MyMatches) -> None:
    matches = await s.records.match_summaries(conn.player_id)
    conn.send(frame(Matches, matches=matches))


# --- identity ---------------------------------------------------------------------------


async def profile(s: Services, conn: RoomConnection, msg: Profile) -> None:
    """How ``conn``'s identity stands; its name and tag are kept from now on, and the
    connection goes by the kept name (another device may have renamed it)."""
    reply = await s.records.profile(conn.player_id, conn.name)
    conn.name, conn.tag = reply["name"], reply.get("tag")
    conn.send(frame(ProfileReply, **reply))


async def rename(s: Services, conn: RoomConnection, msg: Rename) -> None:
    """Go by ``msg.name``: kept, with a new tag when another player of that name holds
    this one's; a device signed out by a newer recovery code renames nobody."""
    name = display_name(msg.name)
    await s.identities.resolve(conn.player_token)
    await s.store.set_name(conn.player_id, name)
    conn.name = name
    await profile(s, conn, Profile(type="profile"))


async def recovery_code(s: Services, conn: RoomConnection, msg: RecoveryCode) -> None:
    """A new recovery code: every other device of the identity is signed out, and this
    one gets a new token, in the one answer with the code."""
    await s.identities.resolve(conn.player_token)  # a device signed out keeps nothing
    # Kept before the code is made: a failure after it would leave this device signed out.
    conn.name, _ = await s.store.name_and_tag(conn.player_id, conn.name)
    code, token = await s.identities.new_code(conn.player_token)
    conn.player_token = token
    conn.send(frame(RecoveryCodeReply, code=code, player=token))


async def recover(s: Services, conn: RoomConnection, msg: Recover) -> None:
    """Become the player ``msg.code`` belongs to; a wrong code counts as a failed join."""
    not_in_room(conn)
    if hung_up_on_guesser(s, conn, "Too many wrong codes; wait a minute before trying again."):
        return
    async with s.guard.lookup(conn):
        player, token = await s.identities.redeem(msg.code)
    conn.player_token, conn.player_id = token, player
    # The recovered identity's kept name (this connection's when it has none yet).
    conn.name, tag = await s.store.name_and_tag(player, conn.name)
    log.info("identity recovered")  # never the code or the token
    _welcome(conn, tag)
