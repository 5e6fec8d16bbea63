"""What an honest newcomer is shown and what the rules cost them (issue 49, item 9).

One match moves a rating by at most :data:`~server.ratings.MOVE` shown points, so a new
player who loses once to three easy bots is not shown 563 (-437); a better place still
shows a higher number; and a newcomer is established (and listed) after ten rated matches
in which a bot counted, whatever they play with people meanwhile.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.bots.calibration import LEVEL_RATINGS
from server.app import GameServer
from server.ratings import DEFAULT, MOVE, PROVISIONAL_MATCHES, display, outcomes

from .test_ratings import bot, person, rated, record


async def test_a_newcomer_who_loses_to_three_easy_bots_loses_at_most_100(
    server: GameServer,
) -> None:
    seats = [person("Nia"), bot("easy"), bot("easy"), bot("easy")]
    match = record(seats, [40, 0, 10, 20], players=["pn", None, None, None])
    changes = await server.records.record_finished(match, [("pn", "Nia", 0)], None)
    assert changes is not None and changes[0] is not None
    change = changes[0]
    # A loss to outclassed opponents still counts, but one match is not a verdict.
    assert change["reason"] == "placed" and change["place"] == change["of"] == 4
    assert 1000 - MOVE <= change["after"] < change["before"] == 1000
    assert change["provisional"] is True
    easy = LEVEL_RATINGS["easy"]
    assert change["after"] == display(rated(DEFAULT, [easy] * 3, [4, 1, 2, 3]))
    profile = await server.records.profile("pn", "Nia")
    assert profile["rating"] == change["after"] and profile["matches"] == 1


skill = st.tuples(st.floats(-5, 45), st.floats(0.5, 9))


@settings(max_examples=400, deadline=None)
@given(skills=st.lists(skill, min_size=2, max_size=4), data=st.data())
def test_no_match_moves_a_shown_rating_by_more_than_100(
    skills: list[tuple[float, float]], data: st.DataObject
) -> None:
    n = len(skills)
    totals = data.draw(st.lists(st.integers(0, 60), min_size=n, max_size=n))
    people = data.draw(st.sets(st.integers(0, n - 1), min_size=1))
    abandoned = data.draw(st.sets(st.sampled_from(sorted(people))))
    provisional = data.draw(st.sets(st.sampled_from(sorted(people))))
    for seat, outcome in outcomes(skills, totals, people, abandoned, provisional).items():
        assert abs(display(outcome.skill) - display(skills[seat])) <= MOVE


def test_a_better_place_still_shows_a_higher_number_against_any_bots() -> None:
    for level, bots in LEVEL_RATINGS.items():
        after = []
        for mine in (5, 15, 25, 35):
            seats = [DEFAULT, bots, bots, bots]
            outcome = outcomes(seats, [mine, 10, 20, 30], {0}, set(), {0})[0]
            after.append(display(outcome.skill))
        moved = [a for a in after if a != 1000]  # wins over a far weaker bot do not count
        assert moved == sorted(moved, reverse=True), level
        if bots[0] > DEFAULT[0]:  # bots above 1000: each place shows its own number
            assert len(set(after)) == 4, (level, after)
        assert all(abs(a - 1000) <= MOVE for a in after), (level, after)
        assert after[3] < 1000  # a last place costs something, even to the weakest bots


async def test_a_newcomer_is_listed_after_ten_rated_matches_with_a_bot(
    server: GameServer,
) -> None:
    records = server.records
    for n in range(PROVISIONAL_MATCHES):
        # Between bot matches, Nia beats a friend as new as she is: rated for neither.
        friends = record([person("Nia"), person("Ola")], [0, 30], players=["pn", "po"], id=f"F-{n}")
        changes = await records.record_finished(friends, [("pn", "Nia", 0), ("po", "Ola", 1)], None)
        assert changes is not None and [c["reason"] for c in changes if c] == ["no_opponents"] * 2
        profile = await records.profile("pn", "Nia")
        assert profile["matches"] == n and not profile["listed"]
        # Win and lose in turn against a medium bot: each counts.
        totals = [0, 20] if n % 2 else [20, 0]
        match = record([person("Nia"), bot("medium")], totals, players=["pn", None], id=f"B-{n}")
        await records.record_finished(match, [("pn", "Nia", 0)], None)
    profile = await records.profile("pn", "Nia")
    assert profile["matches"] == PROVISIONAL_MATCHES and profile["listed"]
    rows, _ = await records.leaderboard("rating", None)
    assert [row["player"] for row in rows] == ["pn"]
    assert (await records.profile("po", "Ola"))["matches"] == 0
