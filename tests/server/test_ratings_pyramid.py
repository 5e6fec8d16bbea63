"""A pyramid of identities one person scripts (issue 49, item 1), against the rules of
docs/ratings.md, on both stores.

The attack: throwaway identities join, draw every turn and lose, to give colluder
identities ratings; the colluders lose on purpose to a farmer. Built in any order and any
size, and with every identity first established by throwing its matches against bots, it
must leave the farmer no higher than the 1000 everyone starts at, and off the top of "Top
players". Everything goes through :meth:`Records.record_finished`, as a finished room does.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import random
import uuid
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clients.net import GameClient
from protocol.bots.calibration import LEVEL_RATINGS
from server import ratings
from server.app import GameServer
from server.ratings import PROVISIONAL_MATCHES, display
from server.records import Records
from server.store import MemoryStore, StandingStore
from server.store.redis.store import RedisStore
from tests.redis_helpers import DEFAULT_REDIS_URL, delete_prefix

from .conftest import ClientFactory, make_settings
from .test_match_flow import play_until_finished
from .test_ratings import bot, establish, person, record

#: The bot levels a person may throw matches to, and the weakest level above 1000.
LEVELS = sorted(LEVEL_RATINGS)
STRONG = min(display(skill) for skill in LEVEL_RATINGS.values() if skill[0] > ratings.DEFAULT[0])

#: One match of the plan: ("bots", who, level, bots at the table) — ``who`` comes last
#: against that many bots of that level; ("beat", winner, losers) — people only, the
#: winner first and the losers after in their order, each drawing every turn.
Match = tuple[Any, ...]


@dataclass
class Farm:
    """One person's identities (``P0``, ``P1``...) rated through ``records``."""

    records: Records
    store: StandingStore
    tag: str = field(default_factory=lambda: uuid.uuid4().hex[:8])
    played: int = 0

    def who(self, n: int) -> str:
        return f"{self.tag}-P{n}"

    async def play(self, match: Match) -> None:
        self.played += 1
        match_id = f"{self.tag}-{self.played}"
        if match[0] == "bots":
            _, n, level, count = match
            seats = [person(f"P{n}"), *(bot(level) for _ in range(count))]
            totals = [60, *range(0, 10 * count, 10)]  # every bot ahead of the person
            players: list[str | None] = [self.who(n), *([None] * count)]
        else:
            _, winner, losers = match
            seats = [person(f"P{n}") for n in (winner, *losers)]
            totals = [0, *(30 + 10 * i for i in range(len(losers)))]
            players = [self.who(n) for n in (winner, *losers)]
        low = min(totals)
        record = {
            "id": match_id,
            "room": "FARM01",
            "finished_at": 0.0,
            "seats": seats,
            "players": players,
            "results": [totals],
            "totals": totals,
            "winners": [i for i, t in enumerate(totals) if t == low],
            "daily": None,
            "rated": True,
            "abandoned": [],
            "kicked": [],
        }
        people = [(p, str(seats[s]["name"]), s) for s, p in enumerate(players) if p]
        await self.records.record_finished(record, people, None)

    async def ratings(self, count: int) -> dict[int, dict[str, Any]]:
        """Each identity's stored rating (a new player's where none is stored)."""
        found = await self.store.ratings([self.who(n) for n in range(count)])
        new = {"mu": ratings.DEFAULT[0], "sigma": ratings.DEFAULT[1], "matches": 0}
        return {n: found.get(self.who(n), new) for n in range(count)}


def issue_pyramid(colluders: int, feeds: int, farms: int, fresh: bool = True) -> list[Match]:
    """The pyramid of the issue: identity 0 is the farmer, 1..``colluders`` the colluders,
    the rest throwaways. Each colluder beats three throwaways ``feeds`` times (new ones
    each time when ``fresh``), then the farmer beats three colluders ``farms`` times."""
    plan: list[Match] = []
    throwaway = itertools.count(colluders + 1)
    reused = [next(throwaway) for _ in range(3)]
    for c in range(1, colluders + 1):
        for _ in range(feeds):
            losers = [next(throwaway) for _ in range(3)] if fresh else reused
            plan.append(("beat", c, tuple(losers)))
    ring = itertools.cycle(range(1, colluders + 1))
    for _ in range(farms):
        plan.append(("beat", 0, tuple(next(ring) for _ in range(min(3, colluders)))))
    return plan


def identities(plan: list[Match]) -> int:
    """How many identities ``plan`` uses."""
    used = {0}
    for match in plan:
        used |= {match[1]} if match[0] == "bots" else {match[1], *match[2]}
    return max(used) + 1


def thrown(who: range, level: str = "hard", count: int = 1) -> list[Match]:
    """Enough matches thrown to bots to establish each of ``who``."""
    return [("bots", n, level, count) for n in who for _ in range(PROVISIONAL_MATCHES)]


def layered(leaders: int, base: int, farms: int) -> list[Match]:
    """A pyramid of established identities, the strongest shape (docs/ratings.md): every
    identity is first established by losing to bots, then each of ``leaders`` (1..) beats
    its own ``base`` identities one after another until they are far below it, and the
    farmer (0) beats the leaders, three at a time, ``farms`` times."""
    count = 1 + leaders + leaders * base
    plan = thrown(range(count))
    for lead in range(1, leaders + 1):
        first = 1 + leaders + (lead - 1) * base
        for _ in range(3):
            plan += [("beat", lead, (b,)) for b in range(first, first + base)]
    ring = itertools.cycle(range(1, leaders + 1))
    for _ in range(farms):
        plan.append(("beat", 0, tuple(next(ring) for _ in range(min(3, leaders)))))
    return plan


async def run(records: Records, store: StandingStore, plan: list[Match]) -> Farm:
    farm = Farm(records, store)
    for match in plan:
        await farm.play(match)
    return farm


async def check_worthless(farm: Farm, plan: list[Match]) -> dict[int, dict[str, Any]]:
    """What every shape must leave: nobody above the 1000 they started at, so nobody
    listed above the bots; with no match against bots, nothing moved at all."""
    stored = await farm.ratings(identities(plan))
    for n, rating in stored.items():
        assert display((rating["mu"], rating["sigma"])) <= ratings.BASE, (n, rating)
    if not any(match[0] == "bots" for match in plan):
        assert all(r["mu"] == ratings.DEFAULT[0] and r["matches"] == 0 for r in stored.values())
    rows, _ = await farm.records.leaderboard("rating", None)
    mine = [row for row in rows if row["player"].startswith(farm.tag)]
    assert all(row["rating"] <= ratings.BASE < STRONG for row in mine)
    return stored


# --- the shapes of the issue, on both stores ---------------------------------------------


@pytest.mark.parametrize(
    ("colluders", "feeds", "farms", "fresh"),
    [
        (12, 1, 10, True),  # 51 identities, the farmer's 10 rated matches (43 s in the issue)
        (4, 3, 12, False),  # three throwaways reused for every feed
        (49, 4, 60, True),  # 638 identities, the farmer rated 60 times
    ],
    ids=["issue-51", "reused", "issue-600"],
)
async def test_a_pyramid_of_new_identities_moves_nobody(
    server: GameServer, colluders: int, feeds: int, farms: int, fresh: bool
) -> None:
    plan = issue_pyramid(colluders, feeds, farms, fresh)
    farm = await run(server.records, server.store, plan)
    stored = await check_worthless(farm, plan)
    assert stored[0]["matches"] == 0 and stored[0]["mu"] == ratings.DEFAULT[0]
    profile = await server.records.profile(farm.who(0), "P0")
    assert profile["rating"] == 1000 and profile["provisional"] and not profile["listed"]
    assert (await server.records.leaderboard("rating", None))[0] == []


async def test_the_pyramid_built_the_other_way_round_moves_nobody(server: GameServer) -> None:
    # The farmer first plays the colluders, then they are fed, then the farmer again;
    # a second farmer plays the first one as well.
    plan = issue_pyramid(6, 2, 12)
    farming = [m for m in plan if m[1] == 0]
    feeding = [m for m in plan if m[1] != 0]
    again = [*farming[:6], *feeding, *farming[6:], ("beat", 7, (0, 1, 2))]
    farm = await run(server.records, server.store, again)
    await check_worthless(farm, again)


async def test_a_layered_pyramid_of_identities_established_against_bots_stays_down(
    server: GameServer,
) -> None:
    # 91 identities, each established by losing ten matches to a hard bot (the cheapest
    # loss), then the strongest shape: leaders beat their own base, the farmer the leaders.
    plan = layered(leaders=9, base=9, farms=40)
    farm = await run(server.records, server.store, plan)
    stored = await check_worthless(farm, plan)
    farmer = stored[0]
    assert farmer["matches"] > PROVISIONAL_MATCHES  # established, and the leaders counted
    bots = (farmer["bot_mu"], farmer["bot_sigma"])
    assert display((farmer["mu"], farmer["sigma"])) <= display(bots) + ratings.LIFT


async def test_new_identities_at_a_real_table_count_for_nobody(
    server: GameServer, client: ClientFactory
) -> None:
    # Over WebSockets: a farmer and three fresh identities of the same person play a rated
    # room to the end (the colluders' moves random): nobody is rated against anybody.
    farmer = await client("Farmer")
    code = await farmer.create(seats=4, target=1)
    colluders: list[GameClient] = []
    for name in ("C1", "C2", "C3"):
        c = await client(name)
        await c.join(code)
        await c.ready()
        colluders.append(c)
    await farmer.start()
    await play_until_finished([farmer, *colluders], random.Random(49))
    await farmer.until(lambda c: c.doc is not None and c.doc["room"]["ratings"] is not None)
    assert farmer.doc is not None and farmer.doc["room"]["rated"] is True
    changes = farmer.doc["room"]["ratings"]
    assert [c["reason"] for c in changes] == ["no_opponents"] * 4
    assert all(c["before"] == c["after"] == 1000 and c["matches"] == 0 for c in changes)


# --- any order, any size: a property over the order of the matches ------------------------


@st.composite
def plans(draw: st.DrawFn) -> list[Match]:
    """A pyramid in any order: feeds, farms and colluders beating each other (layers),
    some identities also throwing matches to bots (perhaps enough to be established)."""
    colluders = draw(st.integers(1, 6))
    plan = issue_pyramid(colluders, draw(st.integers(0, 3)), draw(st.integers(1, 12)))
    people = list(range(colluders + 1))
    for _ in range(draw(st.integers(0, 8))):
        winner = draw(st.sampled_from(people))
        rest = [p for p in people if p != winner]
        if rest:
            losers = draw(st.lists(st.sampled_from(rest), min_size=1, max_size=3, unique=True))
            plan.append(("beat", winner, tuple(losers)))
    for who in draw(st.lists(st.sampled_from(people), max_size=4, unique=True)):
        level = draw(st.sampled_from(LEVELS))
        count = draw(st.integers(1, 3))
        plan += [("bots", who, level, count)] * draw(st.integers(1, PROVISIONAL_MATCHES + 2))
    return list(draw(st.permutations(plan)))


async def run_on(kind: str, plan: list[Match]) -> None:
    if kind == "memory":
        memory = MemoryStore()
        await check_worthless(await run(Records(make_settings(), memory), memory, plan), plan)
        return
    url = os.environ.get("REDIS_URL", DEFAULT_REDIS_URL)
    prefix = f"kc-test-{uuid.uuid4().hex[:12]}"
    store = await RedisStore.connect(url, prefix)
    try:
        await check_worthless(await run(Records(make_settings(), store), store, plan), plan)
    finally:
        await store.close()
        await delete_prefix(url, prefix)


@pytest.mark.parametrize("kind", ["memory", "redis"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=plans())
def test_a_pyramid_in_any_order_leaves_everyone_at_most_where_they_started(
    kind: str, plan: list[Match]
) -> None:
    asyncio.run(run_on(kind, plan))


async def test_people_lift_no_one_past_their_bot_rating_and_200(server: GameServer) -> None:
    # Ana showed 1000 against bots and is rated 1150; Ben, established at 1150, loses to
    # her again and again: she stops at 1200, and losing to a bot still lowers her.
    await establish(server, "pa", 28.75, bot_mu=25.0, bot_sigma=3.0)
    for n in range(8):
        await establish(server, f"pb{n}", 28.75)
        match = record([person("Ana"), person("Ben")], [0, 30], players=["pa", f"pb{n}"])
        match["id"] = f"ROOM01-{n}"
        await server.records.record_finished(match, [("pa", "Ana", 0), (f"pb{n}", "Ben", 1)], None)
    ana = (await server.store.ratings(["pa"]))["pa"]
    assert display((ana["mu"], ana["sigma"])) == 1000 + ratings.LIFT
    assert ana["bot_mu"] == 25.0  # no bot counted: the bot rating did not move
    lost = record([person("Ana"), bot("hard")], [30, 0], players=["pa", None], id="ROOM02-1")
    await server.records.record_finished(lost, [("pa", "Ana", 0)], None)
    after = (await server.store.ratings(["pa"]))["pa"]
    assert after["mu"] < ana["mu"] and after["bot_mu"] < 25.0
