"""A stateful property test: several people, each with several connections, doing anything.

Hypothesis drives three people (each with up to two connections, sharing the person's
identity and seat tokens) through create, join, rejoin with a token, sit, leave, ready,
configure, bots added and removed, kick, start, act, hint, rematch, disconnects, renames
(good and refused names), recovery codes made (each one signs the identity's other devices
out) and redeemed by another person's connection, against a real server on both stores.
After every step, with the room settled (no change under way or due: no commit in flight,
no bot turn, no disconnect's grace timer, every frame delivered):

- every snapshot and patch a connection was sent went to a connection whose proven token
  held the seat at that version, and showed only cards that seat may see;
- every accepted action came from a connection of the person holding the seat on turn;
- the stored log replays legally through the rules engine, its hash chain intact;
- every connection's document equals a fresh snapshot of what it may see now.
"""

from __future__ import annotations

import asyncio
import os
import threading
import uuid
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from clients.net import GameClient
from server.app import GameServer, port_of, start_server
from server.live_room import LiveRoom
from server.room import Room, hash_token
from server.store.base import Event
from tests.invariants import replay
from tests.redis_helpers import DEFAULT_REDIS_URL, delete_prefix
from tests.server.audit import cards_in, visible
from tests.server.conftest import make_settings

T = TypeVar("T")
PEOPLE = 3
CONNECTIONS_PER_PERSON = 2
#: Seconds the room gets to settle before a check looks anyway (and then fails if it moved).
SETTLE_DEADLINE = 20.0
#: Polls in a row (10 ms apart) the room must stay idle at one version to count as still.
STILL_POLLS = 3
#: Commands by weight: enough joins, readies and starts that matches begin often.
KINDS = (
    *["create"] * 2,
    *["join"] * 3,
    "join_seat",
    "spectate",
    *["rejoin"] * 2,
    "sit",
    "leave",
    *["ready"] * 3,
    "unready",
    "configure",
    "add_bot",
    "remove_bot",
    "kick",
    *["start"] * 3,
    *["act"] * 8,
    "hint",
    *["rematch"] * 2,
    "next_hand",
    "back",
    "disconnect",
    "rename",
    "recovery_code",
    *["recover"] * 2,
)
#: Names a rename asks for: one that is fine, a bot's name and one with a tag in it.
RENAMES = ("Renamed", "Bot 2", "Ana#4F7K")


@dataclass
class Binding:
    """What a client's own frames say it is bound to: the seat, the token it proved."""

    seat: int | None = None
    token: str | None = None
    #: The room its frames are about (patches do not name it).
    room: str | None = None
    checked: int = 0


@dataclass
class Person:
    player: str | None = None
    tokens: set[str] = field(default_factory=set)
    conns: list[GameClient] = field(default_factory=list)
    #: Closed connections, still audited for what they were sent before closing.
    gone: list[GameClient] = field(default_factory=list)


class Loop:
    """An event loop in a thread: the server and the clients live there."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 300) -> T:
        # A bound on a stuck step, not a speed test: a check settles the room (up to
        # SETTLE_DEADLINE) and replays the log for every frame; on a 2-core machine with
        # load 15 that took over a minute.
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()


class SeatMachine(RuleBasedStateMachine):
    store = "memory"

    def __init__(self) -> None:
        super().__init__()
        self.loop = Loop()
        self.prefix = f"kc-test-{uuid.uuid4().hex[:12]}"
        self.url = os.environ.get("REDIS_URL", DEFAULT_REDIS_URL)
        extra: dict[str, object] = {}
        if self.store == "redis":
            extra = {"redis_url": self.url, "redis_prefix": self.prefix, "tick": 0.2}
        self.server: GameServer = self.loop.run(
            start_server(make_settings(grace=0.05, rooms_per_connection=1000, **extra))
        )
        self.people = [Person() for _ in range(PEOPLE)]
        self.code: str | None = None
        self.names = 0
        self.bindings: dict[str, Binding] = {}
        #: Recovery codes made so far (the newest of an identity is the one that works).
        self.codes: list[str] = []
        #: Every step taken, for the failure messages.
        self.steps: list[tuple[int, int, str, int, bool]] = []

    def teardown(self) -> None:
        async def end() -> None:
            for person in self.people:
                for c in person.conns:
                    await c.close()
            await self.server.shutdown()
            if self.store == "redis":
                await delete_prefix(self.url, self.prefix)

        try:
            self.loop.run(end())
        finally:
            self.loop.stop()

    # --- helpers -----------------------------------------------------------------------

    def _audit_frames(self, c: GameClient, code: str, at: Callable[[int], Room]) -> None:
        """Walk the frames ``c`` received since the last check, as its binding changed."""
        binding = self.bindings.setdefault(c.name, Binding())
        for frame in c.frames[binding.checked :]:
            kind = frame["type"]
            if kind in ("joined", "snapshot"):
                binding.room = frame["room"]
            if kind == "joined":
                binding.seat = frame["seat"]
                if frame["token"] is not None:
                    binding.token = frame["token"]
                elif frame["role"] == "spectator":
                    binding.token = None
            elif kind in ("left", "kicked"):
                binding.seat = binding.token = binding.room = None
            elif kind in ("snapshot", "patch") and binding.room == code:
                version = frame["version"] if kind == "snapshot" else frame["to"]
                room = at(version)
                seat = binding.seat
                if seat is not None:
                    held = room.seats[seat] if seat < len(room.seats) else None
                    assert binding.token is not None and held is not None, c.name
                    assert held.token_hash == hash_token(binding.token), (
                        f"{c.name} was sent seat {seat}'s view at v{version} without holding it"
                    )
                allowed = visible(room, seat)
                if kind == "patch":
                    allowed |= visible(at(frame["from"]), seat)
                leaked = cards_in(frame) - allowed
                assert not leaked, f"{c.name} (seat {seat}) was sent {sorted(leaked)}"
                REACHED["frames"] += 1
            elif kind == "hint" and binding.seat is not None:
                assert binding.token is not None
        binding.checked = len(c.frames)

    def _conn(self, person: int, which: int) -> GameClient | None:
        conns = self.people[person].conns
        return conns[which % len(conns)] if conns else None

    async def _connect(self, person: Person) -> GameClient:
        self.names += 1
        c = GameClient(
            f"ws://127.0.0.1:{port_of(self.server)}/", f"p{id(person) % 97}c{self.names}"
        )
        c.player = person.player
        await c.connect()
        person.player = c.player
        person.conns.append(c)
        return c

    async def _probe(self, c: GameClient) -> None:
        """Wait until everything the server sent ``c`` before now has arrived."""
        if c.close_code is None:
            start = len(c.frames)
            await c.send({"type": "list_rooms"})
            await c.until(lambda c: any(f["type"] == "rooms" for f in c.frames[start:]), 10)

    def _idle(self, live: LiveRoom) -> bool:
        """Nothing under way or due will change the room: no commit holds its lock (a
        commit stores its events first and applies them after, so the store is ahead
        meanwhile), no bot turn or next deal is being driven, no disconnect's grace timer
        is pending (it marks the seat away, and may hand the host on), and no background
        task (a finished match being recorded, then rated) is running."""
        return not (live.lock.locked() or live.driver.busy() or len(self.server.tasks))

    async def _still(self, live: LiveRoom | None, deadline: float) -> int:
        """Poll until ``live`` stays idle at one version for a few polls; that version."""
        if live is None:
            return -1
        loop = asyncio.get_running_loop()
        stable, last = 0, -1
        while loop.time() < deadline:
            version = live.room.version
            stable = stable + 1 if version == last and self._idle(live) else 0
            last = version
            if stable >= STILL_POLLS:
                break
            await asyncio.sleep(0.01)
        return live.room.version

    async def _settle(self) -> list[Event]:
        """Wait until the room is settled and every connection has what it was sent; the
        stored log, read at that moment (empty before there is a room).

        Should the room move meanwhile (a tick, a timer), all of it is done again, until
        the deadline: past that the log is returned as it is, and the checks judge it.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + SETTLE_DEADLINE
        while True:
            code = self.code
            live = self.server.lobby.rooms.get(code or "")
            version = await self._still(live, deadline)
            for person in self.people:
                for c in person.conns:
                    await self._probe(c)
            events = await self.server.store.read(code) if code is not None else []
            moved = live is not None and (
                self.server.lobby.rooms.get(code or "") is not live
                or live.room.version != version
                or not self._idle(live)
            )
            if not moved or loop.time() >= deadline:
                return events

    async def _step(self, person_no: int, which: int, kind: str, seat: int, flag: bool) -> None:
        self.steps.append((person_no, which, kind, seat, flag))
        if kind == "act" and flag:
            # Half the actions come from a connection that believes it is on turn.
            movers = [
                (i, j)
                for i, p in enumerate(self.people)
                for j, c in enumerate(p.conns)
                if c.my_turn
            ]
            if movers:
                person_no, which = movers[seat % len(movers)]
        person = self.people[person_no]
        c = self._conn(person_no, which)
        if kind == "create" or c is None:
            if len(person.conns) < CONNECTIONS_PER_PERSON:
                c = await self._connect(person)
            if c is None:
                return
        if c.close_code is not None:
            person.conns.remove(c)
            person.gone.append(c)
            return
        code = self.code
        message: dict[str, Any] | None = None
        if kind == "create":
            if code is None:
                message = {"type": "create", "options": {"seats": 3, "target": 3}}
        elif kind in ("join", "join_seat", "spectate") and code is not None:
            message = {"type": "join", "room": code, "spectate": kind == "spectate"}
            if kind == "join_seat":
                message["seat"] = seat % 4
        elif kind == "rejoin" and code is not None and person.tokens:
            token = sorted(person.tokens)[seat % len(person.tokens)]
            message = {"type": "join", "room": code, "token": token}
        elif kind == "sit":
            message = {"type": "sit", "seat": seat % 4}
        elif kind == "leave":
            message = {"type": "leave"}
        elif kind in ("ready", "unready"):
            message = {"type": "ready", "ready": kind == "ready"}
        elif kind == "configure":
            message = {"type": "configure", "options": {"seats": 2 + seat % 3}}
        elif kind == "add_bot":
            message = {"type": "add_bot", "seat": seat % 4, "level": "random"}
        elif kind == "remove_bot":
            message = {"type": "remove_bot", "seat": seat % 4}
        elif kind == "kick":
            message = {"type": "kick", "seat": seat % 4}
        elif kind == "start":
            message = {"type": "start", "fill": "random"}
        elif kind == "act":
            legal = (c.game or {}).get("legal") or ["end"]
            from protocol.engine import action_from_text

            wire = action_from_text(legal[seat % len(legal)]).wire()
            message = {"type": "act", "seq": 1000 + self.names * 100 + seat, "action": wire}
        elif kind == "hint":
            message = {"type": "hint"}
        elif kind == "rematch":
            message = {"type": "rematch", "force": flag}
        elif kind == "next_hand":
            message = {"type": "next_hand"}
        elif kind == "back":
            message = {"type": "back"}
        elif kind == "rename":
            message = {"type": "rename", "name": RENAMES[seat % len(RENAMES)]}
        elif kind == "recovery_code":
            message = {"type": "recovery_code"}
        elif kind == "recover" and self.codes:
            message = {"type": "recover", "code": self.codes[seat % len(self.codes)]}
        elif kind == "disconnect":
            await c.close()
            person.conns.remove(c)
            person.gone.append(c)
        if message is not None:
            start = len(c.frames)
            await c.send(message)
            await self._probe(c)
            for f in c.frames[start:]:
                if f["type"] == "joined" and f["token"]:
                    person.tokens.add(f["token"])
                if f["type"] == "joined" and self.code is None:
                    self.code = f["room"]
                if f["type"] == "recovery_code":
                    self.codes.append(f["code"])
                    # The new token: the identity's older ones are signed out.
                    c.player = person.player = f.get("player") or c.player
                if kind == "act" and f["type"] == "patch" and f.get("seq") == message.get("seq"):
                    await self._check_act_was_theirs(person, f["to"])
        # What the step set off (bot turns, grace timers) settles in the check that follows.

    async def _check_act_was_theirs(self, person: Person, version: int) -> None:
        assert self.code is not None
        events = await self.server.store.read(self.code)
        acts = [e for e in events[:version] if e["e"] == "act" and e.get("by") != "bot"]
        seat = acts[-1]["seat"]
        before = replay(events[: events.index(acts[-1])])
        held = before.seats[seat]
        assert held is not None and held.token_hash in {hash_token(t) for t in person.tokens}, (
            "an action was accepted from a connection that did not hold the seat on turn"
        )
        REACHED["accepted"] += 1

    async def _check(self) -> None:
        code = self.code
        if code is None:
            return
        # Run after every step (and after the set-up): the next step starts from a settled
        # room too. From here on nothing awaits: the room, the store's log and the clients
        # hold still while they are compared.
        events = await self._settle()
        replay(events)  # legal, chain intact
        history: dict[int, Room] = {}

        def at(version: int) -> Room:
            if version not in history:
                history[version] = replay(events[:version])
            return history[version]

        for person in self.people:
            for c in person.conns + person.gone:
                self._audit_frames(c, code, at)
        live = self.server.lobby.rooms.get(code)
        if live is None:
            return
        REACHED["playing"] += live.room.phase != "lobby"
        assert live.room.version == len(events)
        # Each client's server side, by the socket's port (a name would not do: a person's
        # connections go by the name its identity keeps once one of them sits).
        by_port = {conn.ws.remote_address[1]: conn for conn in self.server.connections}
        for person in self.people:
            for c in person.conns:
                conn = by_port.get(c.ws.local_address[1]) if c.ws is not None else None
                if conn is None or conn.room is not live:
                    continue
                assert c.version == live.room.version, c.name
                assert c.doc == live.room.doc(conn.seat), f"{c.name} holds a stale document"
                binding = self.bindings[c.name]
                assert conn.seat == binding.seat, (
                    f"{c.name}: server and client disagree",
                    self.steps[-8:],
                    [(f["type"], f.get("seat"), f.get("code")) for f in c.frames[-12:]],
                )
                if conn.seat is not None:
                    held = live.room.seats[conn.seat]
                    assert binding.token is not None and held is not None
                    assert held.token_hash == hash_token(binding.token)

    # --- the rules -----------------------------------------------------------------------

    @initialize()
    def a_room_with_two_people(self) -> None:
        async def setup() -> None:
            host = await self._connect(self.people[0])
            self.code = await host.create(seats=3, target=3)
            assert host.token is not None
            self.people[0].tokens.add(host.token)
            guest = await self._connect(self.people[1])
            await guest.join(self.code)
            assert guest.token is not None
            self.people[1].tokens.add(guest.token)
            await guest.ready()

        self.loop.run(setup())

    @rule(
        person=st.integers(0, PEOPLE - 1),
        which=st.integers(0, CONNECTIONS_PER_PERSON - 1),
        kind=st.sampled_from(KINDS),
        seat=st.integers(0, 11),
        flag=st.booleans(),
    )
    def command(self, person: int, which: int, kind: str, seat: int, flag: bool) -> None:
        self.loop.run(self._step(person, which, kind, seat, flag))

    @invariant()
    def bindings_hold(self) -> None:
        self.loop.run(self._check())


#: What the examples reached, summed over a run: the test fails if they reached too little.
REACHED: dict[str, int] = {"accepted": 0, "frames": 0, "playing": 0}


class RedisSeatMachine(SeatMachine):
    store = "redis"


@pytest.mark.parametrize("machine", [SeatMachine, RedisSeatMachine], ids=["memory", "redis"])
def test_connections_act_and_see_only_as_their_seat(machine: type[SeatMachine]) -> None:
    for key in REACHED:
        REACHED[key] = 0
    run_state_machine_as_test(
        machine,
        settings=settings(
            max_examples=int(os.environ.get("KC_MACHINE_EXAMPLES", "25")),
            stateful_step_count=40,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
        ),
    )
    # The examples must have reached matches and accepted actions, or they proved little.
    assert REACHED["playing"] > 0 and REACHED["accepted"] > 0, REACHED
    print(machine.store, REACHED)
