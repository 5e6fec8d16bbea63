"""Identity as an attacker tries it, on both stores, over real WebSockets: tags nobody can
choose, recovery codes that sign every other device out, and names that cannot pass for a
bot, a tag or nothing, and that stick."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import random
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

import server.store.memory
import server.store.redis.identities
from clients.net import GameClient, ServerError
from protocol.messages import PROTOCOL_VERSION
from server.app import GameServer, port_of, start_server
from server.store.base import TAG_ALPHABET, TAG_LENGTH, Known
from tests.redis_helpers import delete_prefix

from .conftest import ClientFactory, make_settings
from .test_match_flow import play_until_finished


def fixed_tags(monkeypatch: pytest.MonkeyPatch, *tags: str) -> None:
    """Make the stores draw ``tags``, in that order, as their random candidates."""
    for module in (server.store.memory, server.store.redis.identities):
        monkeypatch.setattr(module, "tag_candidates", lambda: list(tags))


@contextlib.asynccontextmanager
async def fresh_server(like: GameServer) -> AsyncIterator[GameServer]:
    """Another server on a store of the same kind as ``like``'s, empty."""
    url = like.settings.redis_url
    if not url:
        game = await start_server(make_settings())
        try:
            yield game
        finally:
            await game.shutdown()
        return
    prefix = f"kc-test-{uuid.uuid4().hex[:12]}"
    game = await start_server(make_settings(redis_url=url, redis_prefix=prefix, tick=0.2))
    try:
        yield game
    finally:
        await game.shutdown()
        await delete_prefix(url, prefix)


def url_of(game: GameServer) -> str:
    return f"ws://127.0.0.1:{port_of(game)}/"


@contextlib.asynccontextmanager
async def connected(url: str, name: str, token: str | None) -> AsyncIterator[GameClient]:
    """A client saying hello with ``token`` (None: a new identity), closed afterwards."""
    c = GameClient(url, name)
    c.player = token
    try:
        await c.connect()
        yield c
    finally:
        await c.close()


async def refused_hello(url: str, name: str, token: str | None) -> tuple[GameClient, ServerError]:
    """A client whose first hello is refused: the (still open) client and the refusal."""
    c = GameClient(url, name)
    c.player = token
    with pytest.raises(ServerError) as refused:
        await c.connect()
    return c, refused.value


async def hello(c: GameClient, name: str, **extra: Any) -> dict[str, Any]:
    """Say hello again on ``c``'s connection (without a token unless given): the welcome."""
    frame = {"type": "hello", "version": PROTOCOL_VERSION, "name": name, **extra}
    start = len(c.frames)
    await c.send(frame)
    return await c._wait_from(start, lambda f: f["type"] == "welcome", 10.0)


async def profile(c: GameClient) -> dict[str, Any]:
    return await c.request({"type": "profile"}, "profile")


async def quick_match(c: GameClient) -> dict[str, Any]:
    """Play one short match against a bot out; the room document at the end."""
    await c.create(seats=2, target=1, bots=[None, "random"])
    await c.start()
    await play_until_finished([c], random.Random(5))
    await c.until(lambda cl: cl.game is not None and cl.game["phase"] == "finished")
    return dict(c.doc or {})


async def recorded(c: GameClient, count: int) -> list[dict[str, Any]]:
    """``c``'s match history once it holds ``count`` matches (a match is recorded a moment
    after it ends)."""
    for _ in range(200):
        matches = (await c.request({"type": "my_matches"}, "matches"))["matches"]
        if len(matches) >= count:
            return list(matches)
        await asyncio.sleep(0.05)
    raise AssertionError("the match was not recorded")


# --- 3: tags are the server's, never the client's ---------------------------------------


async def test_a_bare_hello_keeps_nothing_and_has_no_tag_yet(
    server: GameServer, client: ClientFactory
) -> None:
    # Hellos without a token cost the store nothing: nothing is kept of them.
    people = [await client(f"Ana {n}") for n in range(10)]
    for c in people:
        [welcome] = [f for f in c.frames if f["type"] == "welcome"]
        assert welcome["tag"] is None and welcome["name"] == c.name
        assert await server.store.identity(str(c.player_id)) == Known(0, None, None)
    # A new identity (nothing kept yet) may still change its name with the next visit's hello.
    async with connected(people[0].url, "Ana Z", people[0].player) as again:
        welcome = next(f for f in again.frames if f["type"] == "welcome")
        assert welcome["name"] == "Ana Z" and welcome["tag"] is None
        assert await server.store.identity(str(people[0].player_id)) == Known(0, None, None)
        # Asking how it stands keeps the identity: a random tag from then on.
        mine = await profile(again)
    assert len(mine["tag"]) == TAG_LENGTH and set(mine["tag"]) <= set(TAG_ALPHABET)
    kept = await server.store.identity(str(people[0].player_id))
    assert kept == Known(0, "Ana Z", mine["tag"])
    async with connected(people[0].url, "Whoever", people[0].player) as back:
        [welcome] = [f for f in back.frames if f["type"] == "welcome"]
        assert (welcome["name"], welcome["tag"]) == ("Ana Z", mine["tag"])


async def test_the_tag_does_not_follow_from_the_token(
    server: GameServer, client: ClientFactory
) -> None:
    # The attack: pick tokens offline until one hashes to the victim's tag. Now the same
    # token on two fresh stores is the same player id with two unrelated tags.
    token = "a-token-the-attacker-chose-0001"
    seen = []
    async with fresh_server(server) as other:
        for game in (server, other):
            async with connected(url_of(game), "Ana", token) as c:
                seen.append((c.player_id, (await profile(c))["tag"]))
    (id_here, tag_here), (id_there, tag_there) = seen
    assert id_here == id_there and tag_here != tag_there


async def test_two_players_of_one_name_never_share_a_tag(
    server: GameServer, client: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every store draws the same candidates: only the one-holder rule keeps tags apart.
    fixed_tags(monkeypatch, "GQJX", "4F7K", "ZZZZ", "7777")
    ana = await client("Ana")
    assert (await profile(ana))["tag"] == "GQJX"
    # Someone else takes the name, in any case or width, to pass for Ana#GQJX: not that tag.
    for name, tag in (("ANA", "4F7K"), ("\uff41\uff4e\uff41", "ZZZZ")):
        impostor = await client(name)
        shown = await profile(impostor)
        assert shown["tag"] == tag and shown["player_id"] != ana.player_id
    # Another name may hold the same tag: "Ben#GQJX" is not "Ana#GQJX".
    ben = await client("Ben")
    assert (await profile(ben))["tag"] == "GQJX"
    # Renamed into a name whose holder of that tag is someone else: a new tag.
    assert (await ben.request({"type": "rename", "name": "ana"}, "profile"))["tag"] == "7777"
    assert (await profile(ana))["tag"] == "GQJX"
    # Ben's old tag is free again for his old name: Ana takes "Ben" and keeps her own.
    assert (await ana.request({"type": "rename", "name": "Ben"}, "profile"))["tag"] == "GQJX"
    tags = await server.store.tags([str(ana.player_id), str(ben.player_id)])
    assert tags == {ana.player_id: "GQJX", ben.player_id: "7777"}


async def test_every_seat_shows_its_persons_tag(
    server: GameServer, client: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    fixed_tags(monkeypatch, "GQJX", "4F7K", "ZZZZ", "7777")
    host = await client("Rho")
    assert (await profile(host))["tag"] == "GQJX"
    code = await host.create(seats=4, bots=[None, None, None, "random"])
    # Another Rho the server kept nothing of yet is given a tag as it sits; then one it keeps.
    bare = await client("Rho")
    await bare.join(code)
    kept = await client("Rho")
    assert (await profile(kept))["tag"] == "ZZZZ"
    await kept.join(code)

    def seated(c: GameClient) -> bool:
        return c.doc is not None and all(c.doc["room"]["seats"])

    await host.until(seated)
    assert host.doc is not None
    shown = [(seat["name"], seat["tag"]) for seat in host.doc["room"]["seats"]]
    assert shown == [("Rho", "GQJX"), ("Rho", "4F7K"), ("Rho", "ZZZZ"), ("Bot 4", None)]
    assert (await profile(bare))["tag"] == "4F7K"
    # Folded from the stored events: the room read again from its log shows the same.
    events = await server.store.read(code)
    sat = [e.get("tag") for e in events if e["e"] == "sit" and e["kind"] == "human"]
    assert sat == ["GQJX", "4F7K", "ZZZZ"]

    # Quick play carries the tag through the queue's ticket.
    one, two = await client("Ana"), await client("Ben")
    tags = [(await profile(one))["tag"], (await profile(two))["tag"]]
    for c in (one, two):
        await c.request({"type": "quick_play", "seats": 2}, "queued")
    for c in (one, two):
        await c.until(lambda c: c.doc is not None)
    assert one.doc is not None
    assert [seat["tag"] for seat in one.doc["room"]["seats"]] == tags


# --- 4: a new recovery code signs every other device out ---------------------------------


async def test_a_new_recovery_code_revokes_every_device_that_redeemed_the_old_one(
    server: GameServer, client: ClientFactory
) -> None:
    ana = await client("Ana")
    first = ana.player
    code = await ana.recovery_code()
    assert ana.player != first  # the asking device got a new token (and keeps it)
    reply = next(f for f in reversed(ana.frames) if f["type"] == "recovery_code")
    assert reply["player"] == ana.player
    phone, tablet = await client("Player"), await client("Player")
    by_phone, by_tablet = await phone.recover(code), await tablet.recover(code)
    # Two redemptions, two different tokens, one identity.
    assert by_phone["player"] != by_tablet["player"]
    assert by_phone["player_id"] == by_tablet["player_id"] == ana.player_id
    assert len(str(by_phone["player"])) <= 64
    for token in (by_phone["player"], by_tablet["player"], ana.player):
        async with connected(ana.url, "Ana", str(token)) as device:
            assert device.player_id == ana.player_id
    # Ana makes a new code (her device was stolen): every other device is out.
    await ana.recovery_code()
    for token in (first, by_phone["player"], by_tablet["player"]):
        device, refused = await refused_hello(ana.url, "Ana", str(token))
        try:
            assert refused.code == "identity_revoked"
            # The connection stays open: a hello without a token is a new identity.
            fresh = await hello(device, "Ana")
            assert fresh["player_id"] != ana.player_id and fresh["player"] != token
        finally:
            await device.close()
    # The phone's open connection cannot sign Ana out in turn, nor rename her...
    for message, answer in (
        ({"type": "recovery_code"}, "recovery_code"),
        ({"type": "rename", "name": "Mallory"}, "profile"),
    ):
        with pytest.raises(ServerError) as denied:
            await phone.request(message, answer)
        assert denied.value.code == "identity_revoked"
    # ...and its next hello is refused: then it is nobody (not Ana, whose name it would
    # change), until a hello without a token makes it a new identity.
    with pytest.raises(ServerError) as denied:
        await hello(phone, "Ana")
    assert denied.value.code == "identity_revoked"
    with pytest.raises(ServerError) as denied:
        await phone.request({"type": "rename", "name": "Mallory"}, "profile")
    assert denied.value.code == "hello_first"
    assert (await hello(phone, "Ana"))["player_id"] != ana.player_id
    # The old code is gone too; Ana's own device goes on.
    with pytest.raises(ServerError) as wrong:
        await tablet.recover(code)
    assert wrong.value.code == "bad_recovery_code"
    async with connected(ana.url, "Ana", ana.player) as device:
        assert device.player_id == ana.player_id
    assert (await profile(ana))["name"] == "Ana"


async def test_tokens_signed_before_generations_work_until_a_new_code(
    server: GameServer, client: ClientFactory
) -> None:
    ana = await client("Ana")
    await profile(ana)
    player = str(ana.player_id)
    # A token a redemption gave before generations (r1-ID-MAC): generation 0.
    key = (await server.store.secret("identity")).encode()
    mac = hmac.new(key, player.encode(), hashlib.sha256).hexdigest()[:32]
    legacy = f"r1-{player}-{mac}"
    async with connected(ana.url, "Someone", legacy) as old:
        assert old.player_id == player
        [welcome] = [f for f in old.frames if f["type"] == "welcome"]
        assert welcome["name"] == "Ana"
    # Forged signed tokens are just other players.
    for forged in (f"r1-{player}-{'0' * 32}", f"r2-{player}-0-AAAAAAAAAA-{'A' * 22}"):
        async with connected(ana.url, "Eve", forged) as eve:
            assert eve.player_id != player
    await ana.recovery_code()
    device, refused = await refused_hello(ana.url, "Ana", legacy)
    await device.close()
    assert refused.code == "identity_revoked"


# --- 8: names that cannot pass for nothing, a bot or a tag, and that stick ----------------

BAD_NAMES = [
    (" ", "empty"),
    ("\u3000", "empty"),
    ("\u3164", "invisible"),
    ("\uffa0", "invisible"),
    ("\u115f\u1160", "invisible"),
    ("\u2800", "invisible"),
    ("\u200b\u200d\u2060", "invisible"),
    ("\u0301", "invisible"),
    ("Ana\u0007", "control"),
    ("Ana\nB", "control"),
    ("Ana\u202eB", "control"),
    ("Ana#4F7K", "hash"),
    ("Ana\uff034F7K", "hash"),
    ("Bot", "reserved"),
    ("Bot 2", "reserved"),
    ("bOT  17", "reserved"),
    ("\uff22\uff4f\uff54\uff13", "reserved"),
    ("Bot\u200b2", "reserved"),
    ("\ufdfa\ufdfa", "too_long"),
]


async def test_every_bad_name_is_refused_with_its_reason(
    server: GameServer, client: ClientFactory
) -> None:
    ana = await client("Ana")
    for name, reason in BAD_NAMES:
        device, refused = await refused_hello(ana.url, name, None)
        await device.close()
        assert (refused.code, refused.params.get("reason")) == ("bad_name", reason), name
        with pytest.raises(ServerError) as renamed:
            await ana.request({"type": "rename", "name": name}, "profile")
        assert renamed.value.code == "bad_name", name
        assert renamed.value.params["reason"] == reason, name
    assert renamed.value.params["limit"] == 24
    # The connection is still Ana's, and a refused hello leaves one open for a good one.
    assert (await profile(ana))["name"] == "Ana"
    device, _ = await refused_hello(ana.url, "Bot 1", None)
    try:
        assert (await hello(device, "Ben"))["name"] == "Ben"
    finally:
        await device.close()
    # Good names, normalised: NFKC, blanks collapsed; emoji sequences are kept whole.
    for name, shown in (
        ("  \uff21na   Mar\u00eda ", "Ana María"),
        ("\U0001f469\u200d\U0001f4bb Bo", "\U0001f469\u200d\U0001f4bb Bo"),
        ("Botany", "Botany"),
        # A zero-width space inside a visible name is kept as sent (docs/limits.md); names
        # compare without it when tags are given.
        ("A\u200bna", "A\u200bna"),
    ):
        async with connected(ana.url, name, None) as c:
            [welcome] = [f for f in c.frames if f["type"] == "welcome"]
            assert welcome["name"] == shown


async def test_a_rename_sticks_across_a_new_hello_and_into_the_records(
    server: GameServer, client: ClientFactory
) -> None:
    ana = await client("Ana")
    named = await ana.request({"type": "rename", "name": "Ana B"}, "profile")
    # Another device of Ana says hello with another name: it goes by the kept one.
    async with connected(ana.url, "Someone", ana.player) as device:
        [welcome] = [f for f in device.frames if f["type"] == "welcome"]
        assert (welcome["name"], welcome["tag"]) == ("Ana B", named["tag"])
        await device.create(seats=2, target=1, bots=[None, "random"])
        await device.start()
        assert device.doc is not None and device.doc["room"]["seats"][0]["name"] == "Ana B"
        # Renamed on the first device while this one plays: the end of the match does not
        # put the name back.
        await ana.request({"type": "rename", "name": "Ana C"}, "profile")
        await play_until_finished([device], random.Random(5))
        [match] = await recorded(device, 1)
    assert match["seats"][0]["name"] == "Ana B"  # the seat as it was played
    assert match["seats"][0]["tag"] == named["tag"]
    assert await server.store.names([str(ana.player_id)]) == {ana.player_id: "Ana C"}
    assert (await profile(ana))["name"] == "Ana C"


async def test_a_recovery_with_no_name_keeps_the_kept_name(
    server: GameServer, client: ClientFactory
) -> None:
    ana = await client("Ana")
    code = await ana.recovery_code()  # keeps the identity, name and tag with it
    mine = await profile(ana)
    other = await client()  # no name given: "Player"
    welcome = await other.recover(code)
    assert (welcome["name"], welcome["tag"]) == ("Ana", mine["tag"])
    # The recovered device comes back later, still without a name of its own.
    async with connected(other.url, "Player", other.player) as again:
        [back] = [f for f in again.frames if f["type"] == "welcome"]
        assert back["name"] == "Ana" and again.player_id == ana.player_id
        doc = await quick_match(again)
        assert doc["room"]["seats"][0]["name"] == "Ana"
        [match] = await recorded(again, 1)
    assert match["seats"][0]["name"] == "Ana"
    assert await server.store.names([str(ana.player_id)]) == {ana.player_id: "Ana"}


# --- a connection says hello once (issue 48) --------------------------------------------


async def test_a_second_hello_is_refused_and_changes_nothing(
    server: GameServer, client: ClientFactory
) -> None:
    ana = await client("Ana")
    first = next(f for f in ana.frames if f["type"] == "welcome")
    await ana.create(seats=2)
    for again in (
        {"type": "hello", "version": 1, "name": "Ana"},  # would switch the version
        {"type": "hello", "version": PROTOCOL_VERSION, "name": "Eve"},
        {"type": "hello", "version": 99},
    ):
        with pytest.raises(ServerError) as refused:
            await ana.request(again, "welcome")
        assert refused.value.code == "bad_phase", again
        assert refused.value.params == {"command": "hello", "reason": "greeted"}
    # Nothing changed: the same identity and name, the room kept, the version still served.
    assert [conn.protocol for conn in server.connections] == [PROTOCOL_VERSION]
    me = await profile(ana)
    assert (me["player_id"], me["name"]) == (first["player_id"], "Ana")
    assert ana.doc is not None and ana.doc["room"]["code"] == ana.room
    assert ana.protocol == first["version"] == PROTOCOL_VERSION
    assert [f for f in ana.frames if f["type"] == "welcome"] == [first]
