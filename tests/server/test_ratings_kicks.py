"""A kick never raises the kicked person's rating (issue 49, item 2), on both stores.

A person kicked after three turns of their own keeps their seat's result, which the bot
that replaced them earns: a loss still counts, a better result is kept at what they had.
And the seat that bot finished is a win nobody played for: it counts for nobody else.
"""

from __future__ import annotations

import random
from typing import Any

from protocol.bots.calibration import LEVEL_RATINGS
from server.app import GameServer
from server.ratings import DEFAULT, display

from .conftest import ClientFactory
from .test_fair_play import END, end_turns, recorded
from .test_match_flow import next_mover
from .test_ratings import bot, establish, person, rated, record

#: The seat of a kicked person as the finished record shows it: a bot finished it.
REPLACED = {"name": "Bot 2", "kind": "bot", "level": "heuristic"}


def kicked_match(totals: list[int], **extra: Any) -> dict[str, Any]:
    """Host (seat 0), Main kicked out of seat 1, a heuristic bot in seat 2."""
    seats = [person("Host"), REPLACED, bot("heuristic")]
    return record(seats, totals, players=["ph", "pm", None], kicked=[1], **extra)


PEOPLE = [("ph", "Host", 0), ("pm", "Main", 1)]


async def test_a_kicked_new_player_whose_bot_wins_keeps_the_rating_they_had(
    server: GameServer,
) -> None:
    # The case: kicked at 1,000, the bot wins the seat (it was rated 1,042).
    changes = await server.records.record_finished(kicked_match([20, 0, 10]), PEOPLE, None)
    assert changes is not None
    assert changes[1] is not None
    assert changes[1]["reason"] == "placed" and changes[1]["place"] == 1
    assert changes[1]["before"] == changes[1]["after"] == 1000
    stored = (await server.store.ratings(["pm"]))["pm"]
    assert stored["mu"] == DEFAULT[0] and stored["matches"] == 1  # it is a rated match
    assert stored["bot_mu"] == DEFAULT[0]  # the bot rating is not raised either


async def test_a_kicked_established_player_whose_bot_wins_is_not_raised(
    server: GameServer,
) -> None:
    await establish(server, "ph", 27.0)
    await establish(server, "pm", 25.0)
    changes = await server.records.record_finished(kicked_match([20, 0, 10]), PEOPLE, None)
    assert changes is not None and changes[1] is not None
    assert changes[1]["after"] == changes[1]["before"] == 1000
    assert (await server.store.ratings(["pm"]))["pm"]["mu"] == 25.0


async def test_a_kicked_persons_loss_still_counts(server: GameServer) -> None:
    changes = await server.records.record_finished(kicked_match([0, 30, 10]), PEOPLE, None)
    assert changes is not None and changes[1] is not None
    # Rated against the bot only (the host is as new as Main), and the seat lost to it.
    expected = rated(DEFAULT, [LEVEL_RATINGS["heuristic"]], [2, 1])
    assert changes[1]["place"] == changes[1]["of"] == 2
    assert changes[1]["after"] == display(expected) < 1000
    assert (await server.store.ratings(["pm"]))["pm"]["mu"] == expected[0]


async def test_the_seat_a_bot_finished_for_a_kicked_person_counts_for_nobody_else(
    server: GameServer,
) -> None:
    # A host kicks a strong player, then beats the bot that finishes the seat: no win.
    await establish(server, "ph", 25.0)
    await establish(server, "pm", 35.0)
    match = record([person("Host"), REPLACED], [0, 30], players=["ph", "pm"], kicked=[1])
    changes = await server.records.record_finished(match, PEOPLE, None)
    assert changes is not None and changes[0] is not None and changes[1] is not None
    assert changes[0]["reason"] == "no_opponents" and changes[0]["after"] == 1000
    assert (await server.store.ratings(["ph"]))["ph"]["mu"] == 25.0
    assert changes[1]["after"] < changes[1]["before"]  # the kicked seat's loss counts


async def test_a_person_kicked_at_a_real_table_is_never_raised(
    server: GameServer, client: ClientFactory
) -> None:
    # Over WebSockets, a second identity as host: Main ends three turns, is kicked, and a
    # bot plays the seat out while the host only ever draws (so the seat beats the host).
    host, main = await client("Second"), await client("Main")
    code = await host.create(seats=3, target=30, bots=[None, None, "heuristic"])
    await main.join(code)
    await main.ready()
    await host.start()
    await end_turns([host, main], 3)
    main_id, main_seat = str(main.player_id), main.seat
    await host.send({"type": "kick", "seat": main_seat})
    await main.wait_for(lambda f: f["type"] == "kicked")
    assert host.doc is not None and host.doc["room"]["rated"] is True
    rng = random.Random(49)
    while (mover := await next_mover([host], 60)) is not None:
        legal = mover.game["legal"]  # type: ignore[index]
        reply = await mover.act(END if END in legal else rng.choice(legal))
        assert reply["type"] == "patch", reply
    [summary] = await recorded(server, main_id)
    change = summary["ratings"][main_seat]
    assert change is not None and change["reason"] == "placed"
    assert change["after"] <= change["before"] == 1000
    stored = (await server.store.ratings([main_id]))[main_id]
    assert stored["matches"] == 1 and display((stored["mu"], stored["sigma"])) <= 1000
