"""What an idle room costs the store each second: Redis commands and Redis CPU.

Starts a private ``redis-server`` on a free port and, in this process, a game server on it
(``tick`` 1 s, as shipped). ``--rooms`` rooms are created, each with its host connected and
nobody moving (a waiting room, or a table where people think). After a warm-up, Redis's
counters are reset and read again ``--seconds`` later. Two configurations in one run:

* ``read_every_tick``: every maintenance tick reads every room's log (as before the store
  counted announcement gaps);
* ``read_on_gaps``: a tick reads a room only when an announcement may have been missed, or
  every ``CATCH_UP_EVERY`` ticks (server/room_driver.py).

Prints one JSON line: per configuration, Redis commands per idle room per second (total
and by command) and Redis CPU per idle room per second::

    python -m benchmarks.idle_store --rooms 300 --seconds 20

``redis-server``: ``$REDIS_SERVER``, else the one on the PATH.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import socket
import subprocess
import tempfile
import time
from typing import Any

import redis.asyncio as aioredis

from clients.net import GameClient
from server import room_driver
from server.app import port_of, start_server
from server.config import Settings

from ._common import emit, machine, rounded


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def counters(db: aioredis.Redis) -> tuple[dict[str, int], float]:
    stats = await db.info("commandstats")
    calls = {k.removeprefix("cmdstat_"): int(v["calls"]) for k, v in stats.items()}
    cpu = await db.info("cpu")
    return calls, float(cpu["used_cpu_sys"]) + float(cpu["used_cpu_user"])


async def measure(url: str, rooms: int, seconds: float, every_tick: bool) -> dict[str, Any]:
    room_driver.CATCH_UP_EVERY = 0 if every_tick else 30
    prefix = f"kc-idle-{os.getpid()}-{int(every_tick)}"
    game = await start_server(
        Settings(host="127.0.0.1", port=0, redis_url=url, redis_prefix=prefix)
    )
    hosts: list[GameClient] = []
    db = aioredis.Redis.from_url(url)
    try:
        address = f"ws://127.0.0.1:{port_of(game)}/"
        for n in range(rooms):
            host = GameClient(address, f"Host{n}")
            await host.connect()
            await host.create(seats=4)
            hosts.append(host)
        await asyncio.sleep(3.0)  # every room has ticked
        await db.config_resetstat()
        before, cpu_before = await counters(db)
        started = time.monotonic()
        await asyncio.sleep(seconds)
        after, cpu_after = await counters(db)
        elapsed = time.monotonic() - started
    finally:
        for host in hosts:
            await host.close()
        await game.shutdown()
        await db.flushall()
        await db.aclose()
    per = rooms * elapsed
    delta = {k: after[k] - before.get(k, 0) for k in after if after[k] - before.get(k, 0) > 0}
    delta.pop("config|resetstat", None)
    delta.pop("info", None)
    return {
        "commands_per_room_s": rounded(sum(delta.values()) / per),
        "by_command_per_room_s": {k: rounded(v / per) for k, v in sorted(delta.items())},
        "redis_cpu_us_per_room_s": rounded((cpu_after - cpu_before) / per * 1e6),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rooms", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    binary = os.environ.get("REDIS_SERVER") or shutil.which("redis-server") or "redis-server"
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="kc-idle-") as directory:
        redis_server = subprocess.Popen(
            [binary, "--port", str(port), "--save", "", "--appendonly", "no", "--dir", directory],
            stdout=subprocess.DEVNULL,
        )
        try:
            url = f"redis://127.0.0.1:{port}/0"
            db = aioredis.Redis.from_url(url)
            for _ in range(100):
                try:
                    await db.ping()
                    break
                except Exception:
                    await asyncio.sleep(0.05)
            await db.aclose()
            results = {
                "read_every_tick": await measure(url, args.rooms, args.seconds, True),
                "read_on_gaps": await measure(url, args.rooms, args.seconds, False),
            }
        finally:
            redis_server.terminate()
            redis_server.wait()
    emit({"rooms": args.rooms, "seconds": args.seconds, "machine": machine(), **results})


if __name__ == "__main__":
    asyncio.run(main())
