"""The deployment of docker-compose.yml, proven with the same processes natively.

docker compose does not run on every machine the tests run on, so this starts what the
compose file starts, without containers, from the shipped files themselves:
:mod:`tests.deploy.compose` reads docker-compose.yml (services, commands, environment,
health checks, ``depends_on``), the Dockerfile (its ``HEALTHCHECK``, entrypoint and
environment) and the nginx.conf the compose file mounts, and translates only what must
change natively (service names to ``127.0.0.1`` and free ports, files to a temporary
directory); :mod:`tests.deploy.topology` starts the result in compose's order, each
service once what it depends on passes its own health check. Players connect through
nginx only (``ws://127.0.0.1:PORT/ws``). docs/deploy.md, "The same topology without
Docker", lists the translation and what is checked.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import itertools
import random
import signal
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import jsonpatch
import orjson
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from clients.net import Frame, GameClient
from protocol import errors
from protocol.engine import action_from_text
from protocol.messages import PROTOCOL_VERSION
from server.config import Settings
from server.room import Room
from server.store.redis_store import RedisStore
from tests.invariants import replay
from tests.redis_helpers import UNIT

from .topology import GUESSING, Deployment, Server, answers, http_get, tail, wait_until

pytestmark = pytest.mark.topology

#: Seconds a person thinks before each action (keeps two cores from being saturated).
THINK = 0.02
#: Actions every room must have acknowledged between two failures: the games go on.
PROGRESS = 3
#: The tables: seats, and the bots' levels (None: a person's seat).
TABLES: list[list[str | None]] = [
    [None, None],
    [None, None, "random"],
    [None, None, "random", "heuristic"],
]
#: Each match ends when a total reaches this; short matches, and a rematch until the end.
TARGET = 5


def hello(name: str) -> Frame:
    return {"type": "hello", "version": PROTOCOL_VERSION, "name": name}


@dataclass
class Ack:
    """An action the server acknowledged: a patch carrying the client's ``seq``."""

    room: str
    seat: int
    action: str
    start: int
    end: int


class Player(GameClient):
    """A person at a table: a reconnecting client that remembers where each drop happened."""

    def __init__(self, url: str | list[str], name: str) -> None:
        super().__init__(url, name, reconnect=True)
        self.drops = 0
        #: Index in ``frames`` of the first frame after the latest drop.
        self.dropped_at = 0
        self.seat_at_start: int | None = None
        self.room_at_start: str | None = None
        self.counter = itertools.count(1)

    async def _reconnect(self) -> None:
        self.drops += 1
        self.dropped_at = len(self.frames)
        await super()._reconnect()

    async def poke(self) -> None:
        """Wake whoever waits in :meth:`until` (something outside the frames changed)."""
        async with self._changed:
            self._changed.notify_all()

    @property
    def fresh(self) -> bool:
        """Connected, and holding a snapshot received on the current connection."""
        return self.close_code is None and any(
            f["type"] == "snapshot" for f in self.frames[self.dropped_at :]
        )

    @property
    def resumed(self) -> bool:
        """Fresh, in the room and the seat it started in."""
        return (
            self.fresh
            and self.room == self.room_at_start
            and self.seat == self.seat_at_start
            and self.role == "player"
        )

    def describe(self) -> str:
        phase = self.doc["room"]["phase"] if self.doc else None
        return (
            f"{self.name} room={self.room} seat={self.seat} close={self.close_code} "
            f"drops={self.drops} fresh={self.fresh} phase={phase} v={self.version} "
            f"since the drop: {self.frames[self.dropped_at :][:4]}"
        )


@dataclass
class Tables:
    """Every player, what they were acknowledged, and the phase of the test."""

    players: list[Player]
    rooms: list[str]
    acks: list[Ack] = field(default_factory=list)
    errors: list[Frame] = field(default_factory=list)
    #: Actions sent whose answer a dropped connection took with it (acknowledged or not).
    unanswered: int = 0
    #: Set for the last stretch: matches finish and no rematch is asked for.
    final: bool = False
    #: Error codes expected for now (while Redis restarts), and those received meanwhile.
    tolerating: frozenset[str] = frozenset()
    tolerated: list[Frame] = field(default_factory=list)
    #: Actions answered ``store_unavailable`` whose next action was refused by the rules:
    #: Redis carried out the append as it stopped but its answer was lost, so the move
    #: happened (the player's document shows it at the room's next catch-up). Each must be
    #: in the stored log (:func:`check_stored`).
    doubtful: list[Ack] = field(default_factory=list)

    def refused(self, error: Frame) -> None:
        """Keep a refusal: expected for now (:attr:`tolerating`), or one to fail on."""
        (self.tolerated if error.get("code") in self.tolerating else self.errors).append(error)

    def acked(self, room: str) -> int:
        return sum(1 for a in self.acks if a.room == room)

    async def finish(self) -> None:
        self.final = True
        for p in self.players:
            await p.poke()


def step_of(p: Player, tables: Tables) -> str:
    """What ``p`` does next: wait, act, vote (for a rematch) or done."""
    if not p.resumed or p.doc is None or p.game is None:
        return "wait"
    if p.doc["room"]["phase"] == "finished":
        if tables.final:
            return "done"
        return "wait" if p.seat in p.doc["room"]["rematch"] else "vote"
    return "act" if p.my_turn else "wait"


async def act(p: Player, text: str) -> Frame | None:
    """Send an action with a fresh ``seq``; its answer (the patch or error carrying that
    ``seq``), or None when the connection dropped first (it may or may not be done)."""
    seq = next(p.counter)
    start, drops = len(p.frames), p.drops
    try:
        await p.send({"type": "act", "seq": seq, "action": action_from_text(text).wire()})
    except ConnectionClosed:
        return None

    def found() -> Frame | None:
        return next((f for f in p.frames[start:] if f.get("seq") == seq), None)

    try:
        await p.until(lambda _: found() is not None or p.drops != drops or not p.fresh, 30)
    except TimeoutError:
        raise AssertionError(f"no answer to {text} in 30s: {p.describe()}") from None
    return found()


async def vote(p: Player, tables: Tables) -> None:
    """Ask for a rematch; wait until the vote shows, the rematch began, or the line dropped."""
    start, drops = len(p.frames), p.drops
    try:
        await p.send({"type": "rematch", "force": False})
    except ConnectionClosed:
        return

    def settled() -> bool:
        error = next((f for f in p.frames[start:] if f["type"] == "error"), None)
        if error is not None:
            tables.refused(error)
            return True
        return p.drops != drops or step_of(p, tables) != "vote"

    try:
        await p.until(lambda _: settled(), 30)
    except TimeoutError:
        raise AssertionError(f"a rematch vote was not answered in 30s: {p.describe()}") from None


#: The rules' refusals (a move on a document the store has moved past).
ILLEGAL = frozenset(
    cls.code
    for cls in vars(errors).values()
    if isinstance(cls, type) and issubclass(cls, errors.IllegalAction)
)


async def play(p: Player, tables: Tables, rng: random.Random) -> None:
    """Play random legal actions until the last match of the table is over."""
    maybe_stored: Ack | None = None
    while True:
        step = step_of(p, tables)
        if step == "done":
            return
        if step == "wait":
            try:
                await p.until(lambda _: step_of(p, tables) != "wait", 60)
            except TimeoutError:
                raise AssertionError(f"stuck for 60s: {p.describe()}") from None
            continue
        if step == "vote":
            await vote(p, tables)
            continue
        await asyncio.sleep(THINK)
        if step_of(p, tables) != "act":
            continue
        assert p.game is not None and p.room is not None and p.seat is not None
        text = rng.choice(p.game["legal"])
        room, seat, version = p.room, p.seat, p.version
        reply = await act(p, text)
        if reply is None:
            tables.unanswered += 1
        elif reply["type"] == "patch":
            tables.acks.append(Ack(room, seat, text, reply["from"], reply["to"]))
        elif maybe_stored is not None and reply.get("code") in ILLEGAL:
            tables.doubtful.append(maybe_stored)
        else:
            tables.refused(reply)
        maybe_stored = None
        if reply is not None and reply.get("code") == "store_unavailable":
            maybe_stored = Ack(room, seat, text, version, version)


async def seat_tables(url: str) -> Tables:
    """The rooms of :data:`TABLES`, started, every person connected through ``url``."""
    players: list[Player] = []
    rooms: list[str] = []
    for t, bots in enumerate(TABLES):
        people = [Player(url, f"T{t}P{i}") for i, level in enumerate(bots) if level is None]
        for p in people:
            await p.connect()
        host, *others = people
        code = await host.create(seats=len(bots), target=TARGET, bots=bots)
        for p in others:
            await p.join(code)
            await p.ready()
        await host.start()
        for p in people:
            await p.until(lambda c: c.game is not None)
            p.room_at_start, p.seat_at_start = p.room, p.seat
        players += people
        rooms.append(code)
    return Tables(players, rooms)


@contextlib.asynccontextmanager
async def playing(tables: Tables) -> AsyncIterator[list[asyncio.Task[None]]]:
    tasks = [
        asyncio.create_task(play(p, tables, random.Random(i)), name=p.name)
        for i, p in enumerate(tables.players)
    ]
    try:
        yield tasks
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for p in tables.players:
            with contextlib.suppress(Exception):
                await p.close()


def check_tasks(tasks: list[asyncio.Task[None]]) -> None:
    """Raise the failure of any player task that ended with one."""
    for task in tasks:
        if task.done() and not task.cancelled():
            error = task.exception()
            if error is not None:
                raise error


async def games_go_on(tables: Tables, tasks: list[asyncio.Task[None]], what: str) -> None:
    """Wait until every room has :data:`PROGRESS` more acknowledged actions."""
    start = {room: tables.acked(room) for room in tables.rooms}

    async def progressed() -> bool:
        check_tasks(tasks)
        return all(tables.acked(r) >= start[r] + PROGRESS for r in tables.rooms)

    def stalled() -> str:
        done = {r: tables.acked(r) - start[r] for r in tables.rooms}
        states = "\n  ".join(p.describe() for p in tables.players)
        return f"every room to play on {what}: acknowledged {done}\n  {states}"

    await wait_until(progressed, 600 * UNIT, stalled)


async def everyone_resumed(tables: Tables, tasks: list[asyncio.Task[None]], what: str) -> None:
    async def resumed() -> bool:
        check_tasks(tasks)
        return all(p.resumed for p in tables.players)

    def missing() -> str:
        late = [p.describe() for p in tables.players if not p.resumed]
        return f"every player back in their seat {what}: " + "; ".join(late)

    await wait_until(resumed, 600 * UNIT, missing)


def told(tables: Tables) -> int:
    """The ``closing`` notices the players got."""
    return sum(1 for p in tables.players for f in p.frames if f["type"] == "closing")


async def players_on(server: Server) -> int:
    return int(await server.sample("kc_connections", role="player"))


async def nginx_sends_to(deployment: Deployment, server: Server) -> None:
    """Wait until nginx sends new connections to ``server`` again.

    nginx's passive health checks rest a replica for ``fail_timeout`` (10 s) after
    ``max_fails`` (2) failed connections; before the next failure the test waits until a
    new connection (which ``least_conn`` gives to the emptier replica) lands on it.
    """

    async def lands() -> bool:
        try:
            async with connect(deployment.nginx.url, open_timeout=10) as ws:
                await ws.send(orjson.dumps(hello("Probe")).decode())
                welcome = orjson.loads(await asyncio.wait_for(ws.recv(), 10))
                assert welcome["type"] == "welcome", welcome
                return await server.sample("kc_connections", role="none") >= 1
        except (OSError, InvalidHandshake, ConnectionClosed, TimeoutError):
            return False

    await wait_until(lands, 400 * UNIT, f"nginx to send a connection to {server.name}")


async def handshake(deployment: Deployment, hold: asyncio.Event) -> str:
    """A new player through nginx: the type of the server's first answer to ``hello``,
    once ``hold`` is set (the connection stays open until then)."""
    async with connect(deployment.nginx.url, open_timeout=300 * UNIT) as ws:
        await ws.send(orjson.dumps(hello("Newcomer")).decode())
        first = orjson.loads(await asyncio.wait_for(ws.recv(), 100 * UNIT))
        await hold.wait()
        return str(first["type"])


async def requests_in_flight(
    deployment: Deployment, server: Server, hold: asyncio.Event
) -> list[asyncio.Task[str]]:
    """Stop ``server`` (SIGSTOP: its kernel still accepts connections) and open new
    connections through nginx until nginx has sent one to it; their handshakes are then in
    flight there, waiting for an answer that never comes. Returns them, still waiting (each
    stays open until ``hold`` is set).

    least_conn sends each new connection to the replica with fewer: the new ones stay open
    on the other replica, so one lands on the stopped one once that has fewer.
    """
    before = server.connections_from_nginx()
    server.send_signal(signal.SIGSTOP)
    waiting: list[asyncio.Task[str]] = []
    for _ in range(30):
        waiting.append(asyncio.create_task(handshake(deployment, hold)))
        await asyncio.sleep(2 * UNIT)
        if server.connections_from_nginx() > before:
            break
    assert server.connections_from_nginx() > before, (
        f"nginx sent none of {len(waiting)} new connections to the stopped {server.name}"
    )
    return waiting


async def restart_redis(
    deployment: Deployment, tables: Tables, tasks: list[asyncio.Task[None]]
) -> None:
    """Redis gets SIGTERM and is started again on its data while every table plays: the
    servers' health checks fail meanwhile (moves are refused with ``store_unavailable``),
    pass again without restarting a server, and the games go on. What was acknowledged
    before is in the append-only file (checked at the end with every other action)."""
    redis = deployment.redis
    tables.tolerating = frozenset({"store_unavailable"})
    redis.send_signal(signal.SIGTERM)
    assert await redis.exited(200 * UNIT) == 0, tail(redis.log)
    assert not await redis.healthy()
    for server in deployment.servers:
        # compose's health check and the image's: both say the server cannot serve now.
        assert await server.check() != 0, server.name
        assert await server.check(server.image_health) != 0, server.name
    await redis.start()

    async def servers_healthy() -> bool:
        return all([await server.healthy() for server in deployment.servers])

    await wait_until(servers_healthy, 300 * UNIT, "the servers to be healthy with Redis back")
    await games_go_on(tables, tasks, "after Redis restarted")
    tables.tolerating = frozenset()


async def fail_and_recover(
    deployment: Deployment,
    tables: Tables,
    tasks: list[asyncio.Task[None]],
    server: Server,
    sig: signal.Signals,
) -> None:
    """Stop ``server`` with ``sig`` while every game runs, start it again, and check that
    every player it held came back in their seat through nginx and the games go on."""
    what = f"after {sig.name} of {server.name}"
    held = await players_on(server)
    assert held > 0, f"{server.name} holds no player before its {sig.name}: nothing to prove"
    drops = sum(p.drops for p in tables.players)
    closings = told(tables)
    before = time.monotonic()
    retried: list[asyncio.Task[str]] = []
    hold = asyncio.Event()
    if sig is signal.SIGKILL:
        # New players' handshakes wait on the stopped server when it is killed.
        retried = await requests_in_flight(deployment, server, hold)
    server.send_signal(sig)
    status = await server.exited(200 * UNIT)
    if sig is signal.SIGTERM:
        # A graceful exit within the compose file's stop_grace_period (15 s).
        assert status == 0, f"{server.name} exited with {status}:\n{tail(server.log)}"
        took = time.monotonic() - before
        assert took < 15, f"{server.name}'s graceful shutdown took {took:.1f}s"
    else:
        assert status == -signal.SIGKILL, status

        async def nothing_left() -> bool:
            return server.session_empty()

        # Bot workers a killed server leaves behind exit by themselves.
        await wait_until(nothing_left, 200 * UNIT, f"the processes of {server.name} to end")
        # nginx passed every request in flight on the killed server to the other one.
        hold.set()
        welcomed = await asyncio.gather(*retried)
        assert welcomed == ["welcome"] * len(retried), welcomed
        failed_there = deployment.nginx.upstream_errors(server.port)
        assert failed_there, f"nginx logged no request failing on {server.name}"
    await server.start()
    await everyone_resumed(tables, tasks, what)
    assert sum(p.drops for p in tables.players) >= drops + held, what
    if sig is signal.SIGTERM:
        # Every player it held was told first.
        assert told(tables) >= closings + held, (told(tables), closings, held)
    await nginx_sends_to(deployment, server)
    await games_go_on(tables, tasks, what)


async def test_games_survive_restarts_kills_and_a_redis_restart_behind_nginx(
    deployment: Deployment,
) -> None:
    """Three tables play through nginx while the servers are stopped, killed (with new
    players' requests in flight, which nginx passes to the other replica) and restarted,
    and Redis restarts; every game resumes in its seats and finishes, and nothing
    acknowledged is lost."""
    server_1, server_2 = deployment.servers
    for server in deployment.servers:
        # The image's own HEALTHCHECK answers, as compose's did to start the servers.
        assert await server.check(server.image_health) == 0, server.name
    assert await answers("127.0.0.1", deployment.nginx.port, "/healthz")
    if deployment.nginx.ipv6:
        assert await answers("::1", deployment.nginx.port, "/nginx-health")
    tables = await seat_tables(deployment.nginx.url)
    start = time.monotonic()
    async with playing(tables) as tasks:
        await games_go_on(tables, tasks, "at the start")
        # 1. A graceful stop (SIGTERM) of one server, and back.
        await fail_and_recover(deployment, tables, tasks, server_1, signal.SIGTERM)
        # 2. kill -9 of the other while requests wait on it (nginx retries them), and back.
        await fail_and_recover(deployment, tables, tasks, server_2, signal.SIGKILL)
        # 3. Redis restarts (append-only file on, as compose runs it) while everyone plays.
        await restart_redis(deployment, tables, tasks)
        # 4. A rolling restart: both, one after the other.
        await fail_and_recover(deployment, tables, tasks, server_1, signal.SIGTERM)
        await fail_and_recover(deployment, tables, tasks, server_2, signal.SIGTERM)
        await tables.finish()
        try:
            async with asyncio.timeout(900 * UNIT):
                await asyncio.gather(*tasks)
        except TimeoutError:
            states = "\n  ".join(p.describe() for p in tables.players)
            raise AssertionError(f"the last matches did not finish:\n  {states}") from None
        played = time.monotonic() - start
        await check_stored(deployment, tables)
    assert not tables.errors, f"refused requests: {tables.errors[:5]}"
    print(
        f"{len(tables.acks)} actions acknowledged, {tables.unanswered} cut off by a failure, "
        f"{len(tables.tolerated)} refused while Redis restarted "
        f"({len(tables.doubtful)} of them stored as Redis stopped), "
        f"{sum(p.drops for p in tables.players)} reconnections, {played:.1f}s of play"
    )


async def check_stored(deployment: Deployment, tables: Tables) -> None:
    """Every stored log replays legally, holds every acknowledged action, and each player's
    document is the one the stored log gives their seat."""
    prefix = deployment.servers[0].env.get("KC_REDIS_PREFIX", Settings().redis_prefix)
    store = RedisStore(deployment.redis.url, prefix)
    try:
        # A rated match's last event (its rating changes) is stored a moment after the
        # match ends, by the process that finished it: read until every log holds all its
        # players were shown (nothing else changes by then).
        for _ in range(100):
            logs = {code: await store.read(code) for code in tables.rooms}
            behind = [p.name for p in tables.players if p.version > len(logs[p.room or ""])]
            if not behind:
                # What each player holds now, read before the next await: a frame arriving
                # meanwhile (the rating event, stored a moment after the logs were read)
                # would otherwise be compared against a log read before it.
                shown = {p.name: (p.version, copy.deepcopy(p.doc)) for p in tables.players}
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError(f"players were shown more than the store holds: {behind}")
    finally:
        await store.close()
    for code, events in logs.items():
        room = replay(events)
        assert room.phase == "finished", (code, room.phase)
        assert not any(e["e"] == "away" and e["away"] for e in events), (
            f"{code}: a bot took a person's seat (the reconnection took longer than the grace)"
        )
        assert not [p for p in tables.players if p.room == code and not p.resumed]
        assert not any(f["type"] == "rewound" for p in tables.players for f in p.frames)
    for ack in tables.acks:
        events = logs[ack.room]
        wanted = {"e": "act", "seat": ack.seat, "a": action_from_text(ack.action).text()}
        stored = [
            {k: e.get(k) for k in wanted} for e in events[ack.start : ack.end] if e["e"] == "act"
        ]
        assert wanted in stored, f"acknowledged but not stored: {ack} (stored there: {stored})"
    for doubt in tables.doubtful:
        wanted = {"e": "act", "seat": doubt.seat, "a": action_from_text(doubt.action).text()}
        later = [{k: e.get(k) for k in wanted} for e in logs[doubt.room][doubt.start :]]
        assert wanted in later, f"refused, then the next move refused, yet not stored: {doubt}"
    for p in tables.players:
        assert p.room is not None and p.seat is not None
        version, doc = shown[p.name]
        stored = Room.from_events(logs[p.room][:version]).doc(p.seat)
        assert doc == stored, (
            f"{p.name}'s document (v{version}) differs from the stored log's: "
            f"{jsonpatch.make_patch(stored, doc).patch}"
        )


# --- client addresses through nginx ------------------------------------------------------


class Prober:
    """A bare WebSocket client from a chosen loopback address, through nginx."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws

    async def recv(self) -> dict[str, Any]:
        frame: dict[str, Any] = orjson.loads(await asyncio.wait_for(self.ws.recv(), 100 * UNIT))
        return frame

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        await self.ws.send(orjson.dumps(message).decode())
        return await self.recv()

    async def join(self, room: str, **fields: Any) -> dict[str, Any]:
        return await self.request({"type": "join", "room": room, **fields})

    async def limited(self, room: str) -> None:
        """The next join, of a right code even, is refused with ``rate_limited`` (the
        address's budget is spent: wait ``retry_after`` seconds), nothing looked up; the
        connection stays open, since others at that address did nothing wrong."""
        reply = await self.join(room)
        assert reply["type"] == "error" and reply["code"] == "rate_limited", reply
        assert reply["params"]["reason"] == "failed_joins", reply
        assert reply["params"]["retry_after"] > 0, reply
        assert self.ws.close_code is None

    async def misses_until_limited(self, most: int) -> int:
        """Join codes that name no room until refused; how many missed first."""
        for missed, code in enumerate(MISSES[: most + 1]):
            reply = await self.join(code)
            if reply["type"] == "error" and reply["code"] == "rate_limited":
                assert reply["params"]["reason"] == "failed_joins", reply
                return missed
            assert reply["type"] == "error" and reply["code"] == "room_not_found", reply
        raise AssertionError(f"{most + 1} failed joins and still not limited")


#: Codes that name no room (creating a room picks random ones; these stay unused).
MISSES = ["AAAAAA", "CCCCCC", "DDDDDD", "EEEEEE", "FFFFFF", "GGGGGG", "HHHHHH", "JJJJJJ"]


@contextlib.asynccontextmanager
async def probers(
    deployment: Deployment,
) -> AsyncIterator[Callable[..., Any]]:
    made: list[ClientConnection] = []

    async def new(source: str, forwarded: str | None = None) -> Prober:
        headers = {"X-Forwarded-For": forwarded} if forwarded is not None else None
        ws = await connect(
            deployment.nginx.url,
            additional_headers=headers,
            open_timeout=10,
            local_addr=(source, 0),
        )
        made.append(ws)
        prober = Prober(ws)
        welcome = await prober.request(hello("Pat"))
        assert welcome["type"] == "welcome", welcome
        return prober

    try:
        yield new
    finally:
        for ws in made:
            with contextlib.suppress(Exception):
                await ws.close()


async def limited_on(server: Server) -> float:
    return await server.sample("kc_join_limited_total", limit="address")


@pytest.mark.deploy_env(**GUESSING)
async def test_the_servers_see_each_client_address_through_nginx(
    deployment: Deployment,
) -> None:
    """nginx appends the address it saw to X-Forwarded-For and the servers trust nginx
    alone: a client guessing room codes from one address is limited on both replicas,
    forging the header does not help it, and a client on another address plays on."""
    burst = int(deployment.servers[0].env["KC_JOIN_ADDRESS_BURST"])
    guesser, other, host_address = "127.0.0.2", "127.0.0.3", "127.0.0.4"
    async with probers(deployment) as new:
        host = await new(host_address)
        joined = await host.request({"type": "create", "options": {"seats": 2}, "spectate": False})
        assert joined["type"] == "joined", joined
        code = joined["room"]
        await host.ws.close()

        # The guesser misses until refused, on each replica (its budget is per process):
        # two connections open at once go to different replicas (least_conn).
        for _ in range(4):
            pair = [await new(guesser), await new(guesser)]
            misses = await asyncio.gather(*(p.misses_until_limited(burst) for p in pair))
            assert all(m <= burst for m in misses), misses
            limited = [await limited_on(s) for s in deployment.servers]
            if all(limited):
                break
        assert all(limited), f"the guesser was not limited on both replicas: {limited}"

        # Forging X-Forwarded-For does not give it a new budget: nginx appends the real
        # address and the servers take the rightmost address that is not nginx's.
        for forged in ("203.0.113.77", "198.51.100.1, 203.0.113.77", other):
            pair = [await new(guesser, forged), await new(guesser, forged)]
            for prober in pair:
                await prober.limited(code)
        after_forging = sum([await limited_on(s) for s in deployment.servers])
        assert after_forging == sum(limited) + 6, (after_forging, limited)

        # Another address has its own budget on both replicas, with or without the header.
        pair = [await new(other), await new(other, guesser)]
        for prober in pair:
            reply = await prober.join(MISSES[0])
            assert reply["code"] == "room_not_found", reply
        assert (await pair[0].join(code))["type"] == "joined"
        assert (await pair[1].join(code, spectate=True))["type"] == "joined"
        assert sum([await limited_on(s) for s in deployment.servers]) == after_forging

    # What the servers logged as each connection's address: the clients', never nginx's
    # and never a forged one.
    seen = {address for s in deployment.servers for address in s.addresses()}
    assert seen == {guesser, other, host_address}, seen
    status, _ = await http_get("127.0.0.1", deployment.nginx.port, "/healthz")
    assert status == 200
    await metrics_stay_inside(deployment)


#: Ways of spelling /metrics that nginx normalises before it picks a location (the server
#: itself serves the exact path, its query aside, and nothing else).
METRICS_PATHS = [
    "/metrics",
    "/metrics?x=1",
    "//metrics",
    "/./metrics",
    "/a/../metrics",
    "/%6Detrics",
]


async def metrics_stay_inside(deployment: Deployment) -> None:
    """/metrics answers each server's own port (where Prometheus scrapes it on the compose
    network) and is refused through nginx, however the path is spelled."""
    for server in deployment.servers:
        assert await server.sample("kc_store_up") == 1.0, server.name
    for path in METRICS_PATHS:
        status, body = await http_get("127.0.0.1", deployment.nginx.port, path)
        assert status == 404 and "kc_" not in body, (path, status, body[:200])
