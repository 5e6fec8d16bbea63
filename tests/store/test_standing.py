"""Contract: display names, recovery codes, ratings and the rating board."""

from __future__ import annotations

from server.store import Store


async def test_names_are_kept_per_player_and_the_last_one_counts(store: Store) -> None:
    assert await store.names([]) == {}
    await store.set_name("a", "Ana")
    await store.set_name("b", "Ben")
    await store.set_name("a", "Ana María ♠")
    assert await store.names(["a", "b", "c"]) == {"a": "Ana María ♠", "b": "Ben"}


async def test_a_recovery_code_names_its_player_until_a_new_one_replaces_it(
    store: Store,
) -> None:
    assert await store.recover("h1") is None
    await store.set_recovery("a", "h1")
    await store.set_recovery("b", "h2")
    assert await store.recover("h1") == "a"
    await store.set_recovery("a", "h3")
    assert await store.recover("h1") is None
    assert await store.recover("h3") == "a"
    assert await store.recover("h2") == "b"


async def test_ratings_update_together_only_from_the_expected_matches(store: Store) -> None:
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


async def test_the_rating_board_lists_the_players_put_on_it_best_first(store: Store) -> None:
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
