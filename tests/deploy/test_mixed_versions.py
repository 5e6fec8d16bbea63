"""A rolling upgrade's middle: the previous release and this one on one Redis, players moving.

During a rolling upgrade (docs/deploy.md, "Upgrading") processes of two releases serve the
same rooms. Here the previous release (:data:`PREVIOUS`, exported from git into a temporary
directory and run from there with this environment's packages) and this checkout run side by
side on one redis-server of our own, on free ports, ended by pid. One room is created on
each; every room has a person on each process from the start and a bot, and while they play
(with rematches) people keep moving to the other process: their connection drops and the
client reconnects to the next address with its seat token. Then:

- every player came back in their seat each time, nobody was refused anything, and neither
  process logged an error;
- each process acknowledged moves (so each folded events the other wrote);
- every player's release lists the room's finished matches in their history, whichever
  release recorded them;
- the stored logs replay legally through this release's rules and hash chain, hold every
  acknowledged move, and every player's document is the one the release that served them
  last folds from the stored log: this one's in process, the previous one's in a process of
  its own.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import random
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from server.room import Room
from server.store.redis_store import RedisStore
from tests.invariants import replay
from tests.redis_helpers import UNIT, PrivateRedis

from .test_compose_topology import (
    PROGRESS,
    Player,
    Tables,
    check_tasks,
    everyone_resumed,
    games_go_on,
    playing,
)
from .topology import ROOT, Process, answers, free_ports, http_get, tail, wait_until

pytestmark = pytest.mark.topology

#: The previous release: the commit before this release's changes to the server.
PREVIOUS = "4d3b38d"
#: Moves of a person to the other process, one after another, while everyone plays.
HOPS = 8
#: The same speed-ups as the deploy test (tests/deploy/topology.FAST).
FAST = ["--bot-delay", "0.05", "--hand-pause", "0.3", "--tick", "0.5"]

#: Run by the previous release (in its own tree): each view's document from the log.
FOLD = """
import json, sys
from server.room import Room
asked = json.load(sys.stdin)
out = []
for code, version, seat in asked["views"]:
    out.append(Room.from_events(asked["logs"][code][:version]).doc(seat))
json.dump(out, sys.stdout)
"""


@dataclass
class Release:
    """One release's server process on the shared Redis."""

    name: str
    tree: Path
    port: int
    process: Process

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("KC_")}
        env.pop("REDIS_URL", None)
        env["PYTHONPATH"] = str(self.tree)
        return env

    async def start(self, redis_url: str) -> None:
        args = [sys.executable, "-m", "server", "serve", "--host", "127.0.0.1"]
        args += ["--port", str(self.port), "--redis-url", redis_url]
        args += ["--process-id", self.name, "--log-format", "json", *FAST]
        self.process.spawn(args, self.env(), cwd=self.tree)

        async def ready() -> bool:
            if not self.process.running:
                raise AssertionError(f"{self.name} exited:\n{tail(self.process.log)}")
            return await answers("127.0.0.1", self.port, "/readyz")

        await wait_until(ready, 300 * UNIT, f"{self.name} to answer /readyz")

    def errors(self) -> list[str]:
        """The process's log lines at ERROR or above, and tracebacks."""
        lines = self.process.log.read_text(errors="replace").splitlines()
        return [
            line
            for line in lines
            if '"level": "ERROR"' in line or '"level": "CRITICAL"' in line or "Traceback" in line
        ]


def export(commit: str, into: Path) -> Path:
    """The tree of ``commit`` (``git archive``), unpacked in ``into``."""
    into.mkdir()
    archive = subprocess.run(
        ["git", "archive", "--format=tar", commit],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into


@pytest.fixture
async def releases() -> AsyncIterator[tuple[Release, Release, PrivateRedis]]:
    """The previous release and this one, on one private Redis; ended by pid afterwards."""
    with tempfile.TemporaryDirectory(prefix="kc-mixed-") as root:
        directory = Path(root)
        (directory / "redis").mkdir()
        redis = PrivateRedis(directory / "redis")
        redis.start()
        old_port, new_port = free_ports(2)
        old = Release(
            "previous",
            export(PREVIOUS, directory / "previous"),
            old_port,
            Process("previous", directory / "previous.log"),
        )
        new = Release("current", ROOT, new_port, Process("current", directory / "current.log"))
        try:
            await asyncio.gather(old.start(redis.url), new.start(redis.url))
            yield old, new, redis
        except BaseException:
            for release in (old, new):
                print(f"--- {release.name} ---\n{tail(release.process.log, 3000)}")
            raise
        finally:
            for release in (old, new):
                release.process.stop()
            redis.stop()


async def seat(old: Release, new: Release) -> Tables:
    """A room created on each release: its host there, a guest on the other, and a bot."""
    players: list[Player] = []
    rooms: list[str] = []
    for t, (home, away) in enumerate(((old, new), (new, old))):
        host = Player([home.url, away.url], f"M{t}Host")
        guest = Player([away.url, home.url], f"M{t}Guest")
        for p in (host, guest):
            await p.connect()
        code = await host.create(seats=3, target=5, bots=[None, None, "random"])
        await guest.join(code)
        await guest.ready()
        await host.start()
        for p in (host, guest):
            await p.until(lambda c: c.game is not None)
            p.room_at_start, p.seat_at_start = p.room, p.seat
        players += [host, guest]
        rooms.append(code)
    return Tables(players, rooms)


async def accepted(release: Release) -> float:
    """Moves ``release`` acknowledged (its own /metrics)."""
    status, body = await http_get("127.0.0.1", release.port, "/metrics")
    assert status == 200, status
    total = 0.0
    for line in body.splitlines():
        if line.startswith("kc_actions_total{") and 'outcome="accepted"' in line:
            total += float(line.rsplit(" ", 1)[1])
    return total


async def test_two_releases_serve_the_same_rooms_while_players_move_between_them(
    releases: tuple[Release, Release, PrivateRedis],
) -> None:
    old, new, redis = releases
    tables = await seat(old, new)
    rng = random.Random(30)
    started = time.monotonic()
    async with playing(tables) as tasks:
        await games_go_on(tables, tasks, "at the start")
        for hop in range(HOPS):
            mover = rng.choice(tables.players)
            before = mover.drops
            assert mover.ws is not None
            await mover.ws.close()  # the client reconnects to its next address
            await wait_until(
                _moved(mover, before), 300 * UNIT, f"{mover.name} to reconnect (hop {hop})"
            )
            await everyone_resumed(tables, tasks, f"after hop {hop}")
            await games_go_on(tables, tasks, f"after hop {hop}")
        await tables.finish()
        async with asyncio.timeout(900 * UNIT):
            await asyncio.gather(*tasks)
        check_tasks(tasks)
        played = time.monotonic() - started
        await histories_list_every_match(tables, redis)
    assert not tables.errors, f"refused requests: {tables.errors[:5]}"
    for release in (old, new):
        assert not release.errors(), (release.name, release.errors()[:3])
        assert await accepted(release) >= PROGRESS, f"{release.name} acknowledged no move"
    await check_logs(tables, redis, old)
    print(
        f"{len(tables.acks)} moves acknowledged, {sum(p.drops for p in tables.players)} "
        f"moves between releases, {played:.1f}s of play"
    )


async def histories_list_every_match(tables: Tables, redis: PrivateRedis) -> None:
    """Each player's release lists every finished match of the player's room in their
    history, whichever release recorded it (a match is recorded a moment after its end)."""
    store = RedisStore(redis.url)
    try:
        finished = {
            c: len(Room.from_events(await store.read(c)).finished) + 1 for c in tables.rooms
        }
    finally:
        await store.close()

    async def listed() -> bool:
        for p in tables.players:
            reply = await p.request({"type": "my_matches"}, "matches")
            if sum(1 for m in reply["matches"] if m["room"] == p.room) != finished[p.room or ""]:
                return False
        return True

    await wait_until(listed, 100 * UNIT, f"every history to list the matches {finished}")


def _moved(p: Player, before: int) -> object:
    async def check() -> bool:
        return p.drops > before and p.fresh

    return check


async def check_logs(tables: Tables, redis: PrivateRedis, old: Release) -> None:
    """Check the stored logs (see the module docstring)."""
    store = RedisStore(redis.url)
    try:
        for _ in range(100):
            logs = {code: await store.read(code) for code in tables.rooms}
            if all(p.version <= len(logs[p.room or ""]) for p in tables.players):
                break
            await asyncio.sleep(0.1)
    finally:
        await store.close()
    for code, events in logs.items():
        room = replay(events)
        assert room.phase == "finished", (code, room.phase)
        assert not any(e["e"] == "away" and e["away"] for e in events), code
    for ack in tables.acks:
        stored = [
            (e["seat"], e["a"]) for e in logs[ack.room][ack.start : ack.end] if e["e"] == "act"
        ]
        assert stored, f"acknowledged but not stored: {ack}"
    # Each player's document is the one the release that served it last folds.
    on_old = [p for p in tables.players if p.url.endswith(f":{old.port}/")]
    on_new = [p for p in tables.players if p not in on_old]
    assert on_old and on_new, "every player ended on one release: nothing compared"
    # Each release served its own documents: this one's tell why a match is unrated.
    assert all(p.doc is not None and "unrated" not in p.doc["room"] for p in on_old)
    assert all(p.doc is not None and "unrated" in p.doc["room"] for p in on_new)
    for p in on_new:
        assert p.room is not None
        assert p.doc == Room.from_events(logs[p.room][: p.version]).doc(p.seat), p.name
    asked = {"logs": logs, "views": [[p.room, p.version, p.seat] for p in on_old]}
    folded = subprocess.run(
        [sys.executable, "-c", FOLD],
        input=json.dumps(asked),
        capture_output=True,
        text=True,
        cwd=old.tree,
        env=old.env(),
        check=True,
    )
    for p, doc in zip(on_old, json.loads(folded.stdout), strict=True):
        assert p.doc == doc, f"{p.name}'s document differs from the previous release's fold"
