"""Rooms with the variants ``opening_refill`` and ``scoring: corners`` (RULES.md, *Variants*),
over real WebSockets on both stores, clause by clause where the server is involved:

- the refill is public: ``moved.refill`` names the card, the patch puts it on the emptied
  side space, every viewer's ``refill_open`` follows the window;
- each seat's corners collected are in every viewer's document, spectators' too, and a
  ``collected`` line follows the action that completed a corner;
- a corners match is one hand; its places (1, 2, 2, 4) are in the document, on
  ``match_over``, in the finished record, and the ratings order the seats by them;
- the stored log: the new options only off their defaults, ``"v": 3`` on the events a reader
  of format 2 must not fold (which leaves such a room: ``upgrade_needed``);
- bots of every level finish such matches, and no frame carries a card its viewer may not
  see (the stock's order never; a refilled card once it is on the table).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

import server.room as room_module
from clients.net import GameClient
from protocol.engine import Effects, action_from_text, effects, shuffled_deck
from protocol.errors import UpgradeNeeded
from protocol.messages import RoomOptions
from server.app import GameServer
from server.room import VARIANTS_FORMAT, Room, create_event, needs_reader

from .audit import Recorder, audit
from .conftest import ClientFactory, room_logs
from .test_match_flow import next_mover
from .test_ratings import establish, person, record

VARIANTS: dict[str, dict[str, Any]] = {
    "refill": {"opening_refill": True},
    "corners": {"scoring": "corners"},
    "both": {"opening_refill": True, "scoring": "corners"},
}
#: Every bot level, three to a table (a person takes the fourth seat).
TABLES = (("random", "easy", "heuristic"), ("medium", "hard", "expert"))
SIDES = ("N", "E", "S", "W")
CORNERS = ("NE", "SE", "SW", "NW")
#: A deck with which :func:`policy`, played by both seats of a two-seat room with both
#: variants (seat 1 dealing), refills side spaces and collects corners (searched offline
#: with the engine; the test checks that it still does).
DECK_SEED = "v46-4"


def places_of(collected: list[int], totals: list[int]) -> list[int]:
    """RULES.md, *Variants*, ``scoring`` (c), written out again: more corners first, then the
    lower penalty; seats still tied share the place, the next counts them."""
    keys = [(-c, t) for c, t in zip(collected, totals, strict=True)]
    return [1 + sum(other < key for other in keys) for key in keys]


def policy(game: dict[str, Any]) -> str:
    """A deterministic player that takes every refill it can and builds corners."""
    legal: list[str] = game["legal"]
    side_moves = [t for t in legal if t.split(">")[0] in SIDES]
    if game.get("refill_open") and side_moves:
        return side_moves[0]
    to_corner = [t for t in legal if ">" in t and t.split(">")[1] in CORNERS]
    if to_corner:
        return max(to_corner, key=lambda t: (len(game["piles"][t.split(">")[1]]), t))
    plays = [t for t in legal if ">" in t and t.split(">")[0] not in SIDES]
    return (plays or side_moves or legal[-1:])[0]


def at(version: int) -> Callable[[GameClient], bool]:
    return lambda c: c.version == version


def finished(c: GameClient) -> bool:
    return c.game is not None and c.game["phase"] == "finished"


def check_marks(events: list[dict[str, Any]]) -> int:
    """The stored log marks exactly what a reader of format 2 must not fold: a ``create``
    or ``configure`` storing a variant, and each ``act`` that refilled or collected (a
    ``draw`` keeps format 2). Returns how many acts are marked."""
    room = Room(events[0])
    options = events[0]["options"]
    on = options.get("opening_refill", False) or options.get("scoring", "penalty") != "penalty"
    assert events[0].get("v") == (VARIANTS_FORMAT if on else None), events[0]
    marked = 0
    for event in events[1:]:
        if event["e"] != "act":
            room.apply(event)
            continue
        assert room.match is not None
        before = room.match.position
        room.apply(event)
        did = effects(before, action_from_text(event["a"]), room.match.position)
        if event["a"] == "draw":
            assert event["v"] == 2
        elif did != Effects():
            assert event["v"] == VARIANTS_FORMAT, event
            marked += 1
        else:
            assert "v" not in event, event
    return marked


def public(game: dict[str, Any] | None) -> dict[str, Any]:
    """The part of a game document every viewer shares (a seat's own keys taken out)."""
    assert game is not None
    return {k: v for k, v in game.items() if k not in ("you", "hand", "legal")}


def check_document(game: dict[str, Any], rules: dict[str, Any], seat: int | None) -> None:
    """The variant keys are there exactly when their variant is on; a spectator's game has
    no hand."""
    assert ("refill_open" in game) == bool(rules.get("opening_refill"))
    corners = rules.get("scoring") == "corners"
    assert ("collected" in game) == corners and ("places" in game) == corners
    assert ("hand" in game) == (seat is not None) and ("legal" in game) == (seat is not None)


def check_log(viewer: GameClient, rules: dict[str, Any]) -> tuple[int, int]:
    """What a viewer's table log says of the variants agrees with its document: the
    ``collected`` lines count up per seat to ``game.collected``; a ``moved`` names a
    ``refill`` only in a refill room. Returns (refills, collections) seen."""
    game = viewer.game
    assert game is not None
    counts = [0] * game["seats"]
    refills = 0
    for line in viewer.log:
        if line["ev"] == "moved" and "refill" in line:
            assert rules.get("opening_refill"), line
            refills += 1
        if line["ev"] == "collected":
            assert rules.get("scoring") == "corners", line
            counts[line["seat"]] += 1
            assert line["total"] == counts[line["seat"]] and line["corner"] in CORNERS
    if rules.get("scoring") == "corners":
        assert game["collected"] == counts
    return refills, sum(counts)


def check_finish(viewer: GameClient, rules: dict[str, Any]) -> None:
    game = viewer.game
    assert game is not None and game["phase"] == "finished"
    over = [line for line in viewer.log if line["ev"] == "match_over"]
    assert over and over[-1]["winners"] == game["winners"]
    if rules.get("scoring") != "corners":
        assert "places" not in over[-1]
        assert max(game["totals"]) >= game["target"]
        return
    # One hand, placed by corners, then penalty; winners are the seats placed first.
    assert game["hand_no"] == 1 and len(game["scores"]) == 1
    places = places_of(game["collected"], game["totals"])
    assert game["places"] == places == over[-1]["places"]
    assert game["winners"] == [seat for seat, place in enumerate(places) if place == 1]


@pytest.mark.parametrize("variant", list(VARIANTS))
async def test_bots_of_every_level_finish_a_variant_match(
    server: GameServer, client: ClientFactory, recorder: Recorder, variant: str
) -> None:
    rules = VARIANTS[variant]
    rng = random.Random(variant)
    for levels in TABLES:
        ana, watcher = await client("Ana"), await client("Cy")
        code = await ana.create(seats=4, target=3, bots=[None, *levels], pace="fast", **rules)
        await watcher.join(code, spectate=True)
        assert ana.doc is not None
        options = ana.doc["room"]["options"]
        assert options["opening_refill"] == rules.get("opening_refill", False)
        assert options["scoring"] == rules.get("scoring", "penalty")
        await ana.start()
        for _ in range(3000):
            mover = await next_mover([ana], timeout=30)
            if mover is None:
                break
            assert mover.game is not None
            check_document(mover.game, rules, 0)
            text = policy(mover.game) if rng.random() < 0.5 else rng.choice(mover.game["legal"])
            reply = await mover.act(text)
            assert reply["type"] == "patch", reply
        for viewer in (ana, watcher):
            await viewer.until(finished, 30)
            await viewer.until(at(ana.version), 10)
            assert viewer.game is not None
            check_document(viewer.game, rules, viewer.seat)
            check_log(viewer, rules)
            check_finish(viewer, rules)
        assert watcher.game == public(ana.game)
        check_marks(await server.store.read(code))
    assert audit(recorder, await room_logs(server)) > 0


async def test_a_refill_and_a_collection_reach_every_viewer(
    server: GameServer, client: ClientFactory, recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = VARIANTS["both"]
    ana, ben, cy = await client("Ana"), await client("Ben"), await client("Cy")
    deck = list(shuffled_deck(DECK_SEED, 0))
    code = await ana.create(seats=2, decks=[deck], dealer=1, **rules)
    await ben.join(code)
    await cy.join(code, spectate=True)
    await ben.ready()
    await ana.start()
    people = [ana, ben]
    for viewer in (ana, ben, cy):
        await viewer.until(lambda c: c.game is not None)
        assert viewer.game is not None
        assert viewer.game["refill_open"] is True
        assert viewer.game["collected"] == [0, 0] and viewer.game["places"] is None
    refills = collections = 0
    for _ in range(3000):
        mover = await next_mover(people)
        if mover is None:
            break
        game = mover.game
        assert game is not None
        text = policy(game)
        stock, window = game["stock"], game["refill_open"]
        reply = await mover.act(text)
        assert reply["type"] == "patch", reply
        log = reply.get("log", [])
        for viewer in (ana, ben, cy):
            await viewer.until(at(mover.version))
        # Every viewer, the spectator too, sees the same table, collected counts included.
        shared = public(ana.game)
        assert public(ben.game) == shared == cy.game
        moved = [line for line in log if line["ev"] == "moved"]
        if moved and "refill" in moved[0]:
            # (a), (b): the stock's top card, face up on the emptied side space, for all.
            refills += 1
            assert window and moved[0]["from"] in SIDES
            assert shared["piles"][moved[0]["from"]] == [moved[0]["refill"]]
            assert shared["stock"] == stock - 1
            assert shared["refill_open"] is True
        elif moved:
            assert not window or moved[0]["from"] not in SIDES or stock == 0
        if window and any(line["ev"] == "played" for line in log):
            assert shared["refill_open"] is False  # (c): a card played closes the window
        if any(line["ev"] == "ended" or line["ev"] == "drew" for line in log):
            assert shared["refill_open"] is False  # every later turn is standard
        got = [line for line in log if line["ev"] == "collected"]
        if got:
            collections += 1
            line = got[0]
            assert log.index(line) == 1  # right after the play or move that completed it
            assert line["seat"] == mover.seat and shared["piles"][line["corner"]] == []
            assert shared["collected"][line["seat"]] == line["total"]
    assert refills >= 1 and collections >= 1, (refills, collections)
    for viewer in (ana, ben, cy):
        await viewer.until(finished)
        check_document(viewer.game, rules, viewer.seat)  # type: ignore[arg-type]
        assert check_log(viewer, rules) == (refills, collections)
        check_finish(viewer, rules)
    assert ana.doc is not None and ana.doc["room"]["unrated"] == "chosen_deal"

    # The stored log: format 3 where a reader of format 2 must not fold it.
    stored = await server.store.read(code)
    assert check_marks(stored) >= refills + collections - 1  # one act may do both
    marked = [e for e in stored if e.get("v") == VARIANTS_FORMAT]
    assert marked[0]["e"] == "create" and len(marked) > 1
    # No frame carried a hidden card: the refill is public once on the table, and what a
    # collected corner held was played or moved in view.
    assert audit(recorder, await room_logs(server)) > 0
    # A process of the release before (format 2) leaves such a room, at any of its marks.
    monkeypatch.setattr(room_module, "EVENT_FORMAT", 2)
    for event in marked:
        with pytest.raises(UpgradeNeeded) as refused:
            needs_reader(event, code)
        assert refused.value.params == {"room": code, "format": VARIANTS_FORMAT}
    with pytest.raises(UpgradeNeeded):
        Room.from_events(stored)


async def test_a_rated_corners_match_rates_by_places(
    server: GameServer, client: ClientFactory
) -> None:
    ana = await client("Ana")
    code = await ana.create(seats=2, bots=[None, "expert"], scoring="corners", pace="fast")
    await ana.start()
    for _ in range(3000):
        mover = await next_mover([ana], timeout=30)
        if mover is None:
            break
        assert mover.game is not None
        reply = await mover.act(policy(mover.game))
        assert reply["type"] == "patch", reply
    await ana.until(finished, 30)
    await ana.until(lambda c: c.doc is not None and c.doc["room"]["ratings"] is not None, 10)
    game, room = ana.game, ana.doc["room"]  # type: ignore[index]
    assert game is not None and room["rated"] is True
    check_finish(ana, VARIANTS["corners"])
    mine = room["ratings"][0]
    assert room["ratings"][1] is None  # a bot's rating never changes
    assert mine["reason"] == "placed" and mine["of"] == 2
    # Ana's place against the bot is the match's place between the two.
    assert mine["place"] == (1 if game["places"][0] <= game["places"][1] else 2)
    kept = await server.records.get_match(f"{code}-1")
    assert kept is not None
    assert kept["places"] == game["places"] and kept["collected"] == game["collected"]
    assert kept["winners"] == game["winners"] and kept["totals"] == game["totals"]
    assert kept["options"]["scoring"] == "corners"
    assert "opening_refill" not in kept["options"]  # a default left out of the record


async def test_ratings_follow_the_places_not_the_penalties(server: GameServer) -> None:
    """Under corners the seat with more corners is first whatever the penalties say."""
    await establish(server, "pa")
    await establish(server, "pb")
    seats = [person("Ana"), person("Ben")]
    people = [("pa", "Ana", 0), ("pb", "Ben", 1)]
    # Ana kept the lower penalty, Ben collected more corners: Ben is first.
    corners = record(
        seats,
        [3, 20],
        players=["pa", "pb"],
        collected=[0, 1],
        places=[2, 1],
    )
    corners["winners"] = [1]
    changes = await server.records.record_finished(corners, people, None)
    assert changes is not None and changes[0] is not None and changes[1] is not None
    assert (changes[0]["place"], changes[1]["place"]) == (2, 1)
    assert changes[0]["after"] < changes[0]["before"] < changes[1]["after"]
    # A tie in places is shared, whatever the penalties (1, 1 of 2).
    tied = record(
        seats, [3, 20], id="ROOM01-2", players=["pa", "pb"], collected=[1, 1], places=[1, 1]
    )
    tied["winners"] = [0, 1]
    changes = await server.records.record_finished(tied, people, None)
    assert changes is not None and changes[0] is not None and changes[1] is not None
    assert changes[0]["place"] == changes[1]["place"] == 1


async def test_default_rules_are_stored_as_before_and_a_variant_is_marked(
    server: GameServer, client: ClientFactory
) -> None:
    """A room of the standard rules stores what the release before stored (no new key in
    ``options``, no ``v``); its document lists the new options at their defaults."""
    plain = create_event("AAAAAA", RoomOptions(seats=2))
    assert "v" not in plain
    assert set(plain["options"]) == set(RoomOptions().model_dump(exclude={"pace"})) - {
        "opening_refill",
        "scoring",
    }
    for rules in VARIANTS.values():
        event = create_event("BBBBBB", RoomOptions(seats=2, **rules))
        assert event["v"] == VARIANTS_FORMAT
        assert {k: event["options"][k] for k in rules} == rules
    # until_playable alone stays format 2; with a variant it is format 3.
    assert create_event("C", RoomOptions(draw="until_playable"))["v"] == 2
    both = RoomOptions(draw="until_playable", scoring="corners")
    assert create_event("C", both)["v"] == VARIANTS_FORMAT

    ana = await client("Ana")
    code = await ana.create(seats=2)
    assert ana.doc is not None
    options = ana.doc["room"]["options"]
    assert options["opening_refill"] is False and options["scoring"] == "penalty"
    await ana.send({"type": "configure", "options": {"seats": 2, "scoring": "corners"}})
    await ana.until(
        lambda c: c.doc is not None and c.doc["room"]["options"]["scoring"] == "corners"
    )
    await ana.send({"type": "configure", "options": {"seats": 2}})
    await ana.until(
        lambda c: c.doc is not None and c.doc["room"]["options"]["scoring"] == "penalty"
    )
    stored = await server.store.read(code)
    configures = [e for e in stored if e["e"] == "configure"]
    assert [e.get("v") for e in configures] == [VARIANTS_FORMAT, None]
    assert configures[0]["options"]["scoring"] == "corners"
    assert "scoring" not in configures[1]["options"]
    assert "v" not in stored[0] and "scoring" not in stored[0]["options"]
