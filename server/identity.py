"""Who a person is: the public id of a secret player token, the tag that tells people of
one name apart, recovery codes that take an identity to another browser, and renaming.

A player token is a secret the server hands out (``welcome``); its public id is a hash of
it. A token made by redeeming a recovery code names its player itself, signed by a secret
kept in the store (``r1-ID-MAC``), so a second device needs no table of tokens. Recovery
codes are stored hashed only: the server cannot show one again, and asking for a new one
makes the old one useless. Neither a token nor a code is ever logged.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from protocol.errors import BadRecoveryCode

from .room import CODE_ALPHABET
from .store.base import Store

#: The tag's alphabet: Crockford's base 32 (no I, L, O or U to misread).
TAG_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
TAG_LENGTH = 4
#: A recovery code: 16 symbols of the room-code alphabet (about 74 bits), in four groups.
CODE_LENGTH = 16
_RECOVERED = "r1-"


def player_id(token: str) -> str:
    """The public id a plain secret player token stands for."""
    return hashlib.sha256(b"player:" + token.encode()).hexdigest()[:16]


def tag_of(player: str) -> str:
    """The short tag shown after a name (``Ana#4F7K``): from a hash of the public id, so it
    tells nothing about the secret token, and it never changes."""
    digest = int.from_bytes(hashlib.sha256(b"tag:" + player.encode()).digest()[:8], "big")
    out = []
    for _ in range(TAG_LENGTH):
        digest, index = divmod(digest, len(TAG_ALPHABET))
        out.append(TAG_ALPHABET[index])
    return "".join(out)


def normal_code(text: str) -> str | None:
    """A typed recovery code without its blanks and dashes, upper case; None if it cannot
    be one."""
    code = "".join(ch for ch in text.upper() if ch not in " -")
    if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
        return None
    return code


def hash_code(code: str) -> str:
    return hashlib.sha256(b"recovery:" + code.encode()).hexdigest()


class Identities:
    """Player ids of tokens, recovery codes and names, over the store."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._key: bytes | None = None

    async def _secret(self) -> bytes:
        if self._key is None:
            self._key = (await self._store.secret("identity")).encode()
        return self._key

    def _mac(self, key: bytes, player: str) -> str:
        return hmac.new(key, player.encode(), hashlib.sha256).hexdigest()[:32]

    async def player_of(self, token: str) -> str:
        """The public id ``token`` stands for; a token made by :meth:`redeem` names its
        player (an unsigned or forged one is just another token)."""
        if token.startswith(_RECOVERED):
            player, _, mac = token[len(_RECOVERED) :].partition("-")
            if len(player) == 16 and hmac.compare_digest(
                mac, self._mac(await self._secret(), player)
            ):
                return player
        return player_id(token)

    async def new_code(self, player: str) -> str:
        """A fresh recovery code for ``player``, shown once; the one before stops working."""
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        await self._store.set_recovery(player, hash_code(code))
        return "-".join(code[i : i + 4] for i in range(0, CODE_LENGTH, 4))

    async def redeem(self, text: str) -> tuple[str, str]:
        """The player a recovery code belongs to, and a new token for this device;
        ``bad_recovery_code`` when it belongs to nobody."""
        code = normal_code(text)
        player = None if code is None else await self._store.recover(hash_code(code))
        if player is None:
            raise BadRecoveryCode()
        return player, f"{_RECOVERED}{player}-{self._mac(await self._secret(), player)}"


__all__ = ["Identities", "hash_code", "normal_code", "player_id", "tag_of"]
