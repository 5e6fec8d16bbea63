"""A person's wait for the bots: quiet machine, and beside busy processes.

Each repeat runs two measurements, each on a fresh server subprocess (memory store):

* ``quiet``: ``--rooms`` rooms, each of one person (a client that ends its turn at once)
  against three ``--level`` bots, played with the server's pacing (``--bot-delay``);
* ``busy``: the same, while ``--burners`` CPU-bound processes (``while 1: pass``, started
  here and killed by their pids) run beside the server.

A wait runs from the person's action to their next turn, minus the pacing of the bot
actions in between (``--bot-delay`` each): what thinking and waiting for a CPU cost. Waits
that span the end of a hand are left out (the next deal has a pause of its own). Prints one
JSON line with each measurement's p50, p99 and max (medians over ``--repeat`` runs), the same
over every run's waits pooled, with their p95 (with ~100 waits a run, one run's p99 is nearly
its longest wait), and the ratio of the busy p99 to the quiet one, both ways, and of the
pooled p95 (target: at most 1.5 for the p99)::

    python -m benchmarks.bot_wait --rooms 10 --seconds 10 --burners 2 --repeat 3
    python -m benchmarks.bot_wait --rooms 10 --seconds 10 --burners 2 --server-commit <sha>

``--server-commit`` measures another commit (say, the one before the normal-priority bot
workers); ``--server-flag`` passes a flag to the servers.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from clients.net import GameClient

from ._common import (
    add_server_flags,
    emit,
    game_server_argv,
    machine,
    median_of,
    note,
    percentile,
    rounded,
    server_root,
    start_process,
)

#: The target: the busy p99 at most this many times the quiet one.
TARGET_RATIO = 1.5
#: Log lines of a seat's action.
ACTIONS = frozenset({"played", "moved", "drew", "ended"})


class _Run:
    measuring = False
    waits: list[float]
    moves = 0
    errors = 0

    def __init__(self) -> None:
        self.waits = []


def _bot_actions(c: GameClient, since: int) -> int:
    return sum(
        1 for line in c.log[since:] if line.get("ev") in ACTIONS and line.get("seat") != c.seat
    )


async def _person(url: str, level: str, bot_delay: float, run: _Run, stop: asyncio.Event) -> None:
    """One room: a person against three bots, ending each turn at once."""
    c = await GameClient(url, "Person").connect()
    try:
        await c.create(seats=4, target=500, bots=[None, level, level, level])
        await c.start()
        while not stop.is_set():
            await c.until(lambda cl: cl.my_turn or stop.is_set(), timeout=120)
            if stop.is_set():
                return
            game = c.game
            assert game is not None
            legal = game["legal"]
            hand, since = game.get("hand_no"), len(c.log)
            sent = time.perf_counter()
            await c.act("end" if "end" in legal else legal[0])
            await c.until(lambda cl: cl.my_turn or stop.is_set(), timeout=120)
            waited = time.perf_counter() - sent
            if c.game is None or not run.measuring or c.game.get("hand_no") != hand:
                continue
            actions = _bot_actions(c, since)
            run.moves += actions
            run.waits.append(max(0.0, waited - actions * bot_delay))
    except Exception as exc:  # a refused action or a timeout: counted, the room stops
        run.errors += 1
        note(f"room failed: {exc!r}")
    finally:
        await c.close()


async def _measure_rooms(url: str, args: argparse.Namespace) -> _Run:
    run, stop = _Run(), asyncio.Event()
    rooms = [
        asyncio.create_task(_person(url, args.level, args.bot_delay, run, stop))
        for _ in range(args.rooms)
    ]
    await asyncio.sleep(args.warmup)
    run.measuring = True
    await asyncio.sleep(args.seconds)
    run.measuring = False
    stop.set()
    await asyncio.gather(*rooms, return_exceptions=True)
    return run


def measure(args: argparse.Namespace, burners: int, root: Path) -> dict[str, Any]:
    """One server, ``burners`` busy processes beside it."""
    flags = ["--bot-delay", str(args.bot_delay), "--hand-pause", str(args.hand_pause)]
    server = start_process(game_server_argv(extra=[*flags, *args.server_flag]), root=root)
    busy: list[subprocess.Popen[bytes]] = []
    try:
        busy = [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(burners)]
        run = asyncio.run(_measure_rooms(server.url, args))
    finally:
        for proc in busy:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            proc.wait()
        server.stop()
    waits = sorted(run.waits)
    return {
        "all_waits": waits,
        "waits": len(waits),
        "bot_moves": run.moves,
        "errors": run.errors,
        "wait_ms": {
            "p50": rounded(1000 * (percentile(waits, 50) or 0), 1),
            "p99": rounded(1000 * (percentile(waits, 99) or 0), 1),
            "max": rounded(1000 * (waits[-1] if waits else 0), 1),
        },
    }


def _pooled(waits: list[float]) -> dict[str, Any]:
    """p50, p95 and p99 (ms) of every run's waits together."""
    waits = sorted(waits)
    return {
        "waits": len(waits),
        **{f"p{q}": rounded(1000 * (percentile(waits, q) or 0), 1) for q in (50, 95, 99)},
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=10)
    parser.add_argument("--level", default="expert")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--burners", type=int, default=2, help="busy processes beside it")
    parser.add_argument("--bot-delay", type=float, default=0.7, help="the server's pacing")
    parser.add_argument("--hand-pause", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--server-flag", action="append", default=[])
    add_server_flags(parser)
    args = parser.parse_args(argv)
    with server_root(args) as root:
        info = machine(root)
        quiet: list[dict[str, Any]] = []
        busy: list[dict[str, Any]] = []
        for repeat in range(args.repeat):
            note(f"run {repeat + 1}/{args.repeat}: quiet")
            quiet.append(measure(args, 0, root))
            note(f"run {repeat + 1}/{args.repeat}: {args.burners} busy processes beside")
            busy.append(measure(args, args.burners, root))
    figures: dict[str, Any] = {}
    for name, runs in (("quiet", quiet), ("busy", busy)):
        figures[name] = {
            "waits": median_of(runs, "waits"),
            "bot_moves": median_of(runs, "bot_moves"),
            "errors": sum(r["errors"] for r in runs),
            "wait_ms": {q: median_of(runs, "wait_ms", q) for q in ("p50", "p99", "max")},
            "pooled_wait_ms": _pooled([w for r in runs for w in r.pop("all_waits")]),
        }

    def busy_over_quiet(kind: str, q: str) -> float | None:
        quiet_ms, busy_ms = figures["quiet"][kind][q], figures["busy"][kind][q]
        return rounded(busy_ms / quiet_ms) if quiet_ms and busy_ms is not None else None

    emit(
        {
            "benchmark": "bot_wait",
            "machine": info,
            "config": {
                "rooms": args.rooms,
                "level": args.level,
                "seconds": args.seconds,
                "burners": args.burners,
                "bot_delay": args.bot_delay,
                "repeat": args.repeat,
                "server_flags": args.server_flag,
            },
            **figures,
            "busy_over_quiet_p99": busy_over_quiet("wait_ms", "p99"),
            "busy_over_quiet_pooled_p99": busy_over_quiet("pooled_wait_ms", "p99"),
            "busy_over_quiet_pooled_p95": busy_over_quiet("pooled_wait_ms", "p95"),
            "target_ratio": TARGET_RATIO,
            "runs": {"quiet": quiet, "busy": busy},
        }
    )


if __name__ == "__main__":
    main()
