"""Who a person is: the public id of a secret player token, display names and the tag that
tells people of one name apart, recovery codes that take an identity to another device, and
the generations that let a new code sign every other device out.

A player token is a secret the server hands out (``welcome``); its public id is a hash of
it. A token made by redeeming a recovery code names its player itself, with the identity's
recovery generation and a random nonce, signed by a secret kept in the store
(``r2-PLAYER-GENERATION-NONCE-MAC``), so a second device needs no table of tokens. Making a
new recovery code moves the identity to the next generation: every token of an earlier one
(the plain token it began with is of generation 0) is revoked, and the connection that asked
gets a token of the new one. Tokens of the first signed form (``r1-PLAYER-MAC``, made before
generations) are of generation 0.

Recovery codes are stored hashed only: the server cannot show one again, and asking for a
new one makes the old one useless. Neither a token nor a code is ever logged.

Tags are the server's choice: random (:func:`~server.store.base.tag_candidates`), kept per
player, and unique among players of one name (:func:`~server.store.base.name_key`); nothing
a client sends goes into them. A tag is given when an identity is first shown or kept (its
first recorded match, a rename, a recovery code, its profile), never for a bare ``hello``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
import string
import unicodedata
from typing import Protocol

from protocol.errors import BadName, BadRecoveryCode, IdentityRevoked

from .room import CODE_ALPHABET
from .store.base import (
    FILLERS,
    TAG_ALPHABET,
    TAG_LENGTH,
    IdentityStore,
    Known,
    SecretStore,
    name_key,
)

#: A recovery code: 16 symbols of the room-code alphabet (about 74 bits), in four groups.
CODE_LENGTH = 16
#: The longest display name, in characters once normalised.
NAME_LIMIT = 24
_RECOVERED = "r1-"
_SIGNED = "r2-"
_NONCE = 10
_NONCE_ALPHABET = string.ascii_letters + string.digits
#: Bidirectional embeddings, overrides and isolates: they reorder what follows them.
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
#: The bots' own names ("Bot 3"), which no person may take.
_BOT_NAME = re.compile(r"bot\s*\d*")


def player_id(token: str) -> str:
    """The public id a plain secret player token stands for."""
    return hashlib.sha256(b"player:" + token.encode()).hexdigest()[:16]


def _invisible(ch: str) -> bool:
    return ch in FILLERS or unicodedata.category(ch) in ("Cf", "Zs", "Zl", "Zp", "Cc", "Mn")


def _control(ch: str) -> bool:
    return ch in _BIDI or unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp")


def display_name(text: str) -> str:
    """``text`` as a display name: NFKC-normalised, blanks at its ends dropped and runs of
    blanks made one space. :class:`~protocol.errors.BadName` names why it cannot be one:

    - ``empty``: nothing but blanks;
    - ``invisible``: nothing that shows (format characters such as zero-width spaces,
      combining marks on nothing, controls, fillers such as U+3164 HANGUL FILLER);
    - ``control``: a control character, a line or paragraph separator, or a bidirectional
      override (they would garble or reorder what others see);
    - ``hash``: a ``#``, which would pass for a tag (``Ana#4F7K``);
    - ``reserved``: a bot's name (``Bot``, ``Bot 3``, in any case);
    - ``too_long``: more than :data:`NAME_LIMIT` characters once normalised.

    Chat keeps its own, gentler cleaning.
    """
    name = unicodedata.normalize("NFKC", text)
    if not name.strip():
        raise BadName("A name needs at least one visible character.", reason="empty")
    if all(_invisible(ch) for ch in name):
        raise BadName("A name needs at least one visible character.", reason="invisible")
    if any(_control(ch) for ch in name):
        raise BadName("A name cannot hold control characters.", reason="control")
    if "#" in name:
        raise BadName("A name cannot hold #: it would pass for a tag.", reason="hash")
    name = " ".join(name.split())
    if _BOT_NAME.fullmatch(name_key(name)):
        raise BadName("Bot names are the bots' own.", reason="reserved")
    if len(name) > NAME_LIMIT:
        raise BadName(
            f"A name has at most {NAME_LIMIT} characters.", reason="too_long", limit=NAME_LIMIT
        )
    return name


def normal_code(text: str) -> str | None:
    """A typed recovery code without its blanks and dashes, upper case; None if it cannot
    be one."""
    code = "".join(ch for ch in text.upper() if ch not in " -")
    if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
        return None
    return code


def hash_code(code: str) -> str:
    return hashlib.sha256(b"recovery:" + code.encode()).hexdigest()


class StoreForIdentities(IdentityStore, SecretStore, Protocol):
    """The roles of the store :class:`Identities` uses: identities, and the secret tokens
    are signed with."""


class Identities:
    """Player ids and generations of tokens, and recovery codes, over the store."""

    def __init__(self, store: StoreForIdentities) -> None:
        self._store = store
        self._key: bytes | None = None

    async def _secret(self) -> bytes:
        if self._key is None:
            self._key = (await self._store.secret("identity")).encode()
        return self._key

    def _mac(self, key: bytes, body: str) -> str:
        digest = hmac.new(key, body.encode(), hashlib.sha256).digest()[:16]
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()

    def _old_mac(self, key: bytes, player: str) -> str:
        return hmac.new(key, player.encode(), hashlib.sha256).hexdigest()[:32]

    async def holder(self, token: str) -> tuple[str, int]:
        """The public id ``token`` stands for and the generation it belongs to, with no
        store read beyond the secret (kept after the first). A signed token names its
        player and generation; an unsigned or forged one is just another plain token, of
        generation 0."""
        if token.startswith(_SIGNED):
            parts = token[len(_SIGNED) :].split("-", 3)
            if len(parts) == 4:
                player, generation, nonce, mac = parts
                body = f"{player}-{generation}-{nonce}"
                if (
                    len(player) == 16
                    and body.isascii()
                    and mac.isascii()
                    and generation.isdigit()
                    and hmac.compare_digest(mac, self._mac(await self._secret(), body))
                ):
                    return player, int(generation)
        elif token.startswith(_RECOVERED):
            player, _, mac = token[len(_RECOVERED) :].partition("-")
            if (
                len(player) == 16
                and mac.isascii()
                and hmac.compare_digest(mac, self._old_mac(await self._secret(), player))
            ):
                return player, 0
        return player_id(token), 0

    async def resolve(self, token: str) -> tuple[str, Known]:
        """The public id ``token`` stands for and what the store keeps of that identity, in
        one store read; ``identity_revoked`` when a newer recovery code revoked the token."""
        player, generation = await self.holder(token)
        known = await self._store.identity(player)
        if generation < known.generation:
            raise IdentityRevoked()
        return player, known

    async def _token(self, player: str, generation: int) -> str:
        """A fresh signed token of ``player`` at ``generation`` (never the same twice)."""
        nonce = "".join(secrets.choice(_NONCE_ALPHABET) for _ in range(_NONCE))
        body = f"{player}-{generation}-{nonce}"
        return f"{_SIGNED}{body}-{self._mac(await self._secret(), body)}"

    async def new_code(self, token: str) -> tuple[str, str]:
        """A fresh recovery code for the identity of ``token``, shown once, and a fresh
        token for the asking device: the code before stops working and every token of an
        earlier generation (``token`` too) is revoked. ``identity_revoked`` when ``token``
        was revoked already (a device signed out cannot sign the others out)."""
        player, generation = await self.holder(token)
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        moved = await self._store.set_recovery(player, hash_code(code), generation)
        if moved is None:
            raise IdentityRevoked()
        shown = "-".join(code[i : i + 4] for i in range(0, CODE_LENGTH, 4))
        return shown, await self._token(player, moved)

    async def redeem(self, text: str) -> tuple[str, str]:
        """The player a recovery code belongs to, and a fresh token of its current
        generation for this device; ``bad_recovery_code`` when it belongs to nobody."""
        code = normal_code(text)
        player = None if code is None else await self._store.recover(hash_code(code))
        if player is None:
            raise BadRecoveryCode()
        known = await self._store.identity(player)
        return player, await self._token(player, known.generation)


__all__ = [
    "CODE_LENGTH",
    "NAME_LIMIT",
    "TAG_ALPHABET",
    "TAG_LENGTH",
    "Identities",
    "display_name",
    "hash_code",
    "normal_code",
    "player_id",
]
