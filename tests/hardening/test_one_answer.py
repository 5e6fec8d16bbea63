"""Every request gets exactly one answer, including requests that change nothing.

``ready`` as you already are, ``lock`` to the current state, ``back`` while not away, a
second ``rematch`` vote: each is answered with an empty patch (``from`` = ``to``, no
operations). ``cancel_quick_play`` is answered with ``queued`` with ``seats`` null, whether
or not a ticket was waiting. Every other client message type is sent here too, in a state
where the server accepts it (or refuses it), and its documented answer must be all that
arrives.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any, get_args

from clients.net import GameClient
from protocol.engine import action_from_text
from protocol.messages import ClientMessage

from .helpers import UNIT, Clients, clients_of, eventually, fast_settings, serving, settle

Frame = dict[str, Any]


def client_types() -> set[str]:
    union = get_args(ClientMessage)[0]
    return {get_args(model.model_fields["type"].annotation)[0] for model in get_args(union)}


class Answers:
    """Sends requests and checks what comes back to the sender."""

    def __init__(self) -> None:
        self.covered: set[str] = set()

    async def check(
        self, c: GameClient, message: Frame, expected: list[str], *, exact: bool = True
    ) -> list[Frame]:
        """Send ``message``; the frames that answer it must be of types ``expected`` and,
        when ``exact``, nothing else may follow (the room's later changes may, otherwise)."""
        self.covered.add(message["type"])
        start = len(c.frames)
        await c.send(message)
        await c.until(lambda cl: len(cl.frames) >= start + len(expected), timeout=50 * UNIT)
        if exact:
            await asyncio.sleep(UNIT)
        got = c.frames[start:]
        types = [f["type"] for f in got]
        assert (types if exact else types[: len(expected)]) == expected, (message, got)
        return got

    async def unchanged(self, c: GameClient, message: Frame) -> None:
        """A request that changes nothing: one empty patch at the client's version."""
        version = c.version
        [patch] = await self.check(c, message, ["patch"])
        assert patch["ops"] == [] and "log" not in patch, patch
        assert patch["from"] == patch["to"] == version == c.version
        assert patch.get("seq") is None


async def play_until(players: list[GameClient], phase: str, rng: random.Random) -> None:
    """Play random legal actions until the room reaches ``phase``."""

    def reached(c: GameClient) -> bool:
        return c.game is not None and c.game["phase"] == phase

    while True:
        await eventually(lambda: all(map(reached, players)) or any(p.my_turn for p in players))
        if all(map(reached, players)):
            await settle(players, players[0].version)
            return
        mover = next(p for p in players if p.my_turn)
        reply = await mover.act(rng.choice(mover.game["legal"]))  # type: ignore[index]
        assert reply["type"] == "patch", reply
        await settle(players, mover.version)


async def test_every_request_gets_exactly_one_answer() -> None:
    rng = random.Random(7)
    answers = Answers()
    # The rate limit is another matter; the random play below sends many actions quickly.
    settings = fast_settings(hand_pause=3600.0, rate=1e6, burst=10**6)
    async with serving(settings) as game, clients_of(game) as pool:
        await outside_a_room(pool, answers)
        await in_the_lobby_and_playing(pool, answers, rng)
        await after_the_match(pool, answers, rng)
    assert answers.covered == client_types()


async def outside_a_room(pool: Clients, answers: Answers) -> None:
    lone = await pool.new("Lone")
    # A connection says hello once: a second one is refused (bad_phase, reason greeted).
    await answers.check(lone, {"type": "hello", "version": 1, "name": "Lone"}, ["error"])
    await answers.check(lone, {"type": "list_rooms"}, ["rooms"])
    await answers.check(lone, {"type": "leaderboard", "board": "alltime"}, ["leaderboard"])
    await answers.check(lone, {"type": "my_matches"}, ["matches"])
    await answers.check(lone, {"type": "profile"}, ["profile"])
    await answers.check(lone, {"type": "rename", "name": "Lone B"}, ["profile"])
    [code] = await answers.check(lone, {"type": "recovery_code"}, ["recovery_code"])
    await answers.check(lone, {"type": "recover", "code": "AAAA-AAAA-AAAA-AAAA"}, ["error"])
    await answers.check(lone, {"type": "recover", "code": code["code"]}, ["welcome"])
    # Not waiting: cancelling changes nothing, and says so.
    [queued] = await answers.check(lone, {"type": "cancel_quick_play"}, ["queued"])
    assert queued["seats"] is None
    [queued] = await answers.check(lone, {"type": "quick_play", "seats": 4}, ["queued"])
    assert queued["seats"] == 4
    [queued] = await answers.check(lone, {"type": "cancel_quick_play"}, ["queued"])
    assert queued["seats"] is None
    # A daily room fills with bots that play at once: its changes follow the answer.
    daily = await pool.new("Daily")
    await answers.check(daily, {"type": "daily"}, ["joined", "snapshot"], exact=False)


async def in_the_lobby_and_playing(pool: Clients, answers: Answers, rng: random.Random) -> None:
    host = await pool.new("Host")
    await answers.check(
        host, {"type": "create", "options": {"seats": 3}}, ["joined", "snapshot"], exact=False
    )
    assert host.room is not None
    code = host.room
    guest = await pool.new("Guest")
    await guest.join(code)
    people = [host, guest]
    await settle(people, guest.version)
    # Requests that change nothing.
    await answers.unchanged(host, {"type": "ready", "ready": False})
    await answers.unchanged(host, {"type": "lock", "locked": False})
    await answers.check(guest, {"type": "ready", "ready": True}, ["patch"])
    await settle(people, guest.version)
    await answers.unchanged(guest, {"type": "ready", "ready": True})
    # Requests that change something, or are refused: one answer each too.
    await answers.check(host, {"type": "lock", "locked": True}, ["patch"])
    await answers.check(host, {"type": "lock", "locked": False}, ["patch"])
    await answers.check(host, {"type": "sit", "seat": 0}, ["error"])
    await answers.check(host, {"type": "hint"}, ["error"])
    await answers.check(host, {"type": "next_hand"}, ["error"])
    await answers.check(host, {"type": "chat", "text": "hi"}, ["chat"])
    await answers.check(host, {"type": "resync"}, ["snapshot"])
    await settle(people, host.version)
    await answers.check(host, {"type": "add_bot", "seat": 2, "level": "random"}, ["patch"])
    await answers.check(host, {"type": "remove_bot", "seat": 2}, ["patch"])
    await settle(people, host.version)
    third = await pool.new("Third")
    await third.join(code)
    await settle([*people, third], third.version)
    await answers.check(host, {"type": "kick", "seat": third.seat}, ["patch"])
    await answers.check(host, {"type": "configure", "options": {"seats": 2}}, ["patch"])
    await settle(people, host.version)
    await guest.ready()
    await settle(people, guest.version)
    watcher = await pool.new("Watcher")
    # The room kept its chat (the host said hi): the history follows the join's answer.
    await answers.check(
        watcher,
        {"type": "join", "room": code, "spectate": True},
        ["joined", "snapshot", "chat_history"],
    )
    await answers.check(host, {"type": "start", "fill": None}, ["patch"])
    await settle([*people, watcher], host.version)
    # Playing, two people and no bots: nothing moves unless someone does.
    await answers.unchanged(host, {"type": "back"})
    await answers.unchanged(guest, {"type": "back"})
    mover = host if host.my_turn else guest
    waiting = guest if mover is host else host
    [refused] = await answers.check(waiting, {"type": "hint"}, ["error"])
    assert refused["code"] == "not_your_turn"
    await answers.check(mover, {"type": "hint"}, ["hint"])
    action = action_from_text(rng.choice(mover.game["legal"])).wire()  # type: ignore[index]
    [patch] = await answers.check(mover, {"type": "act", "seq": 41, "action": action}, ["patch"])
    assert patch["seq"] == 41
    await settle([*people, watcher], mover.version)
    await play_until(people, "hand_over", rng)
    await settle([*people, watcher], host.version)
    await answers.check(host, {"type": "next_hand"}, ["patch"])


async def after_the_match(pool: Clients, answers: Answers, rng: random.Random) -> None:
    ana = await pool.new("Ana")
    code = await ana.create(seats=2, target=1)
    ben = await pool.new("Ben")
    await ben.join(code)
    await ben.ready()
    await ana.start()
    people = [ana, ben]
    await play_until(people, "finished", rng)
    await answers.check(ana, {"type": "rematch"}, ["patch"])
    await settle(people, ana.version)
    await answers.unchanged(ana, {"type": "rematch"})
    await answers.check(ana, {"type": "leave"}, ["left"])


async def test_quick_play_cancelled_by_a_client_that_is_not_waiting() -> None:
    async with serving(fast_settings()) as game, clients_of(game) as pool:
        c = await pool.new("Ana")
        for _ in range(3):
            reply = await c.request({"type": "cancel_quick_play"}, "queued")
            assert reply["seats"] is None
        assert game.lobby.waiting_by_size() == {}
