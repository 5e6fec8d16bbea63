"""Contract: display names, tags, recovery codes and generations, ratings and the board."""

from __future__ import annotations

import pytest

import server.store.memory
import server.store.redis.identities
from protocol.errors import KingsCornerError
from server.store import IdentityStore, MemoryStore, StandingStore
from server.store.base import TAG_ALPHABET, TAG_LENGTH, Known
from server.store.redis_store import RedisStore


def fixed_tags(monkeypatch: pytest.MonkeyPatch, *tags: str) -> None:
    """Make every store draw ``tags``, in that order, as its random candidates."""
    for module in (server.store.memory, server.store.redis.identities):
        monkeypatch.setattr(module, "tag_candidates", lambda: list(tags))


async def keep_old_name(store: IdentityStore, player: str, name: str) -> None:
    """A name kept as the store kept names before tags were (no tag with it)."""
    if isinstance(store, MemoryStore):
        store._names[player] = name
    else:
        assert isinstance(store, RedisStore)
        await store._redis.hset(store._ident("names"), player, name)


class TestIdentityStore:
    """IdentityStore: display names, tags, recovery codes and their generations."""

    async def test_names_are_kept_per_player_and_the_last_one_counts(
        self, store: IdentityStore
    ) -> None:
        assert await store.names([]) == {}
        await store.set_name("a", "Ana")
        await store.set_name("b", "Ben")
        await store.set_name("a", "Ana María ♠")
        assert await store.names(["a", "b", "c"]) == {"a": "Ana María ♠", "b": "Ben"}

    async def test_an_unknown_identity_reads_as_nothing_kept(self, store: IdentityStore) -> None:
        assert await store.identity("nobody") == Known(0, None, None)
        assert await store.tags([]) == {} and await store.tags(["nobody"]) == {}

    async def test_a_tag_is_random_and_kept_with_the_name(self, store: IdentityStore) -> None:
        tag = await store.set_name("a", "Ana")
        assert len(tag) == TAG_LENGTH and set(tag) <= set(TAG_ALPHABET)
        assert await store.identity("a") == Known(0, "Ana", tag)
        assert await store.tags(["a", "b"]) == {"a": tag}
        assert await store.set_name("a", "ANA") == tag  # the same name: the same tag

    async def test_no_two_players_of_one_name_hold_one_tag(
        self, store: IdentityStore, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        fixed_tags(monkeypatch, "AAAA", "BBBB")
        assert await store.set_name("a", "Ana") == "AAAA"
        # Names compare case-insensitively, after NFKC and without invisible characters.
        assert await store.set_name("b", "\uff21\uff2e\uff21") == "BBBB"
        assert await store.set_name("c", "Ben") == "AAAA"  # another name: the tag is free
        # Renamed to a name whose holder of its tag is someone else: a new tag; Ana's is free.
        assert await store.set_name("a", "ben") == "BBBB"
        assert await store.set_name("d", "ana\u200b") == "AAAA"
        assert await store.set_name("b", "Ana María") == "BBBB"  # free there: kept
        assert await store.tags(["a", "b", "c", "d", "e"]) == {
            "a": "BBBB",
            "b": "BBBB",
            "c": "AAAA",
            "d": "AAAA",
        }
        # Every candidate held by someone of that name: refused, and nothing changed.
        with pytest.raises(KingsCornerError):
            await store.set_name("e", "BEN")
        assert await store.identity("e") == Known(0, None, None)
        with pytest.raises(KingsCornerError):
            await store.set_name("d", "Ben")
        assert await store.identity("d") == Known(0, "ana\u200b", "AAAA")

    async def test_name_and_tag_keeps_a_kept_name_and_gives_a_missing_tag(
        self, store: IdentityStore, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        fixed_tags(monkeypatch, "AAAA", "BBBB")
        assert await store.name_and_tag("a", "Ana") == ("Ana", "AAAA")  # kept now
        assert await store.name_and_tag("a", "Eve") == ("Ana", "AAAA")  # the kept one wins
        assert await store.names(["a"]) == {"a": "Ana"}
        # A name kept before tags were gets its tag for that name, not for the one offered.
        await keep_old_name(store, "b", "ana")
        assert await store.identity("b") == Known(0, "ana", None)
        assert await store.name_and_tag("b", "Zed") == ("ana", "BBBB")
        assert await store.identity("b") == Known(0, "ana", "BBBB")

    async def test_a_recovery_code_names_its_player_until_a_new_one_replaces_it(
        self,
        store: IdentityStore,
    ) -> None:
        assert await store.recover("h1") is None
        assert await store.set_recovery("a", "h1", 0) == 1
        assert await store.set_recovery("b", "h2", 0) == 1
        assert await store.recover("h1") == "a"
        assert await store.set_recovery("a", "h3", 1) == 2
        assert await store.recover("h1") is None
        assert await store.recover("h3") == "a"
        assert await store.recover("h2") == "b"
        assert (await store.identity("a")).generation == 2

    async def test_a_recovery_code_from_an_earlier_generation_changes_nothing(
        self,
        store: IdentityStore,
    ) -> None:
        assert await store.set_recovery("a", "h1", 0) == 1
        # A device still at generation 0 (signed out by h1) cannot replace the code.
        assert await store.set_recovery("a", "h2", 0) is None
        assert await store.set_recovery("a", "h2", 5) is None
        assert await store.recover("h2") is None and await store.recover("h1") == "a"
        assert await store.identity("a") == Known(1, None, None)


class TestStandingStore:
    """StandingStore: ratings, updated together or not at all, and the rating board."""

    async def test_ratings_update_together_only_from_the_expected_matches(
        self, store: StandingStore
    ) -> None:
        assert await store.ratings(["a"]) == {}
        first = {
            "a": {"mu": 27.0, "sigma": 8.0, "matches": 1},
            "b": {"mu": 23.0, "sigma": 8.0, "matches": 1},
        }
        assert await store.update_ratings({"a": 0, "b": 0}, first, {})
        assert await store.ratings(["a", "b", "c"]) == first
        # Another match rated "a" meanwhile: nothing of this one is stored.
        stale = {
            "a": {"mu": 1.0, "sigma": 1.0, "matches": 1},
            "c": {"mu": 2.0, "sigma": 1.0, "matches": 1},
        }
        assert not await store.update_ratings({"a": 0, "c": 0}, stale, {"c": 5.0})
        assert await store.ratings(["a", "c"]) == {"a": first["a"]}
        assert await store.rating_board() == []

    async def test_the_rating_board_lists_the_players_put_on_it_best_first(
        self, store: StandingStore
    ) -> None:
        ratings = {
            p: {"mu": mu, "sigma": 2.0, "matches": 3}
            for p, mu in (("a", 20.0), ("b", 30.0), ("c", 25.0), ("d", 40.0))
        }
        expected = dict.fromkeys(ratings, 0)
        board = {"a": 14.0, "b": 24.0, "c": 19.0}  # "d" is not on the board (too few matches)
        assert await store.update_ratings(expected, ratings, board)
        rows = await store.rating_board()
        assert [r["player"] for r in rows] == ["b", "c", "a"]
        assert rows[0] == {"player": "b", "mu": 30.0, "sigma": 2.0, "matches": 3}
        assert [r["player"] for r in await store.rating_board(limit=2)] == ["b", "c"]
