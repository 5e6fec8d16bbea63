"""Contract: shared secrets, match history, the daily board and the all-time board."""

from __future__ import annotations

from server.store import RecordStore, SecretStore


class TestSecretStore:
    """SecretStore: named secrets shared by every process."""

    async def test_a_secret_is_created_once_and_then_kept(self, store: SecretStore) -> None:
        first = await store.secret("daily")
        assert len(first) >= 32
        assert await store.secret("daily") == first
        assert await store.secret("other") != first


class TestRecordStore:
    """RecordStore: finished matches per player, the daily board and the all-time board."""

    async def test_finished_matches_are_kept_and_listed_per_player_newest_first(
        self, store: RecordStore
    ) -> None:
        assert await store.get_match("nope") is None
        await store.save_match("ROOM01-1", {"log": ["end"], "n": 1}, ["p1", "p2"])
        await store.save_match("ROOM01-2", {"log": [], "n": 2}, ["p1"])
        assert await store.get_match("ROOM01-1") == {"log": ["end"], "n": 1}
        assert await store.player_matches("p1") == ["ROOM01-2", "ROOM01-1"]
        assert await store.player_matches("p2") == ["ROOM01-1"]
        assert await store.player_matches("p1", limit=1) == ["ROOM01-2"]
        assert await store.player_matches("nobody") == []

    async def test_a_review_is_kept_beside_its_match(self, store: RecordStore) -> None:
        assert await store.get_review("ROOM01-1") is None
        review = {"match": "ROOM01-1", "seats": [None, {"seat": 1, "costliest": []}]}
        await store.save_review("ROOM01-1", review)
        assert await store.get_review("ROOM01-1") == review
        assert await store.get_review("ROOM01-2") is None
        assert await store.get_match("ROOM01-1") is None  # a review is not a match

    async def test_hands_judged_ahead_are_kept_until_the_review_is(
        self, store: RecordStore
    ) -> None:
        assert await store.get_review_hands("ROOM02-1") == {}
        first = {"0": [{"step": 3, "cost": 1.5}], "2": []}
        await store.save_review_hand("ROOM02-1", 0, first)
        await store.save_review_hand("ROOM02-1", 1, {"0": [], "2": [{"step": 40}]})
        await store.save_review_hand("ROOM02-2", 0, {"1": []})
        hands = await store.get_review_hands("ROOM02-1")
        assert hands == {0: first, 1: {"0": [], "2": [{"step": 40}]}}
        await store.save_review("ROOM02-1", {"match": "ROOM02-1", "seats": []})
        assert await store.get_review_hands("ROOM02-1") == {}  # the review replaces them
        assert await store.get_review_hands("ROOM02-2") == {0: {"1": []}}

    async def test_the_ranked_daily_is_claimed_once_per_player_and_day(
        self, store: RecordStore
    ) -> None:
        assert await store.claim_daily("2026-11-29", "p1")
        assert not await store.claim_daily("2026-11-29", "p1")
        assert await store.claim_daily("2026-11-29", "p2")
        assert await store.claim_daily("2026-11-30", "p1")

    async def test_the_daily_board_ranks_lowest_penalty_then_fewest_hands(
        self, store: RecordStore
    ) -> None:
        day = "2026-11-29"
        entries = [
            {"player": "a", "name": "Ana", "penalty": 20, "hands": 3},
            {"player": "b", "name": "Ben", "penalty": 12, "hands": 5},
            {"player": "c", "name": "Cai", "penalty": 12, "hands": 4},
        ]
        for entry in entries:
            await store.record_daily(day, entry)
        # A second result for the same player never replaces the first (ranked once a day).
        await store.record_daily(day, {"player": "a", "name": "Ana", "penalty": 0, "hands": 1})
        board = await store.daily_board(day)
        assert [e["name"] for e in board] == ["Cai", "Ben", "Ana"]
        assert board[2]["penalty"] == 20
        assert await store.daily_board("2000-01-01") == []
        assert len(await store.daily_board(day, limit=2)) == 2

    async def test_the_all_time_board_counts_wins_matches_and_penalty_per_hand(
        self, store: RecordStore
    ) -> None:
        await store.record_result("a", "Ana", won=True, penalty=3, hands=3)
        await store.record_result("a", "Ana", won=False, penalty=30, hands=3)
        await store.record_result("b", "Ben", won=True, penalty=10, hands=4)
        await store.record_result("c", "Cai", won=False, penalty=40, hands=4)
        board = await store.alltime_board()
        assert [r["name"] for r in board] == ["Ana", "Ben", "Cai"]
        assert board[0] == {"player": "a", "name": "Ana", "won": 1, "played": 2, "avg_penalty": 5.5}
        assert board[1]["avg_penalty"] == 2.5 and board[2]["won"] == 0
