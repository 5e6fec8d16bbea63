"""People beside bots: does bot thinking hold up people's moves?

Each repeat runs two measurements, each on a fresh server subprocess (memory store):

* ``alone``: ``--rooms`` rooms of people (4 seats and a spectator each, the load generator of
  :mod:`benchmarks.load` in its paced mode: a pause of 0.5-1.5 x ``--think`` seconds before
  every action);
* ``beside_bots``: the same people, while ``--bot-rooms`` rooms of bots play on the same
  server. Each bot room is created by a client of its own (``--bot-level`` bots in three
  seats), started, left (a ``heuristic`` bot takes the creator's seat) and then watched by
  that client as a spectator, so the server does not pause it. The bots play with the
  server's default pace (``--bot-delay``, ``--hand-pause``).

Latency is the people's, from sending ``act`` to receiving the patch answering it. Prints one
JSON line with both runs' p50 and p99, their ratios (target: p99 beside bots at most twice
the p99 alone), the bot rooms' changes per second, and the CPU of the server, its bot worker
processes, the load generator and the bot rooms' clients::

    python -m benchmarks.bot_rooms --rooms 300 --bot-rooms 200 --seconds 30 --think 1
    python -m benchmarks.bot_rooms --rooms 300 --bot-rooms 200 --server-flag=--bot-workers=0

``--server-flag`` passes a flag to both servers (``--bot-workers=0``: bots in threads of the
server process, as before worker processes); ``--server-commit`` measures another commit.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
from websockets.asyncio.client import ClientConnection, connect

from ._common import (
    ROOT,
    add_server_flags,
    emit,
    game_server_argv,
    machine,
    median,
    median_of,
    note,
    python_env,
    raise_nofile,
    rounded,
    server_root,
    start_process,
)
from .load import LoadShape, drive

#: The target: people's p99 beside the bot rooms at most this many times their p99 alone.
TARGET_RATIO = 2.0


# --- the bot rooms' client process ---------------------------------------------------------


async def _until(ws: ClientConnection, *kinds: str) -> dict[str, Any]:
    """The next frame of one of ``kinds`` (an ``error`` instead raises)."""
    while True:
        frame: dict[str, Any] = orjson.loads(await ws.recv(decode=False))
        if frame["type"] in kinds:
            return frame
        if frame["type"] == "error":
            raise ConnectionError(f"refused: {frame['code']}")


async def _send(ws: ClientConnection, message: dict[str, Any]) -> None:
    await ws.send(orjson.dumps(message), text=True)


async def _bot_room(url: str, level: str, gate: asyncio.Semaphore) -> ClientConnection:
    """Create a room of bots, start it, leave the seat and stay on as its spectator."""
    async with gate:
        ws = await connect(url, max_size=2**20, compression=None, ping_interval=None)
        await _send(ws, {"type": "hello", "version": 1, "name": "Watcher"})
        await _until(ws, "welcome")
        options = {"seats": 4, "target": 500, "bots": [None, level, level, level]}
        await _send(ws, {"type": "create", "options": options})
        code = (await _until(ws, "joined"))["room"]
        await _until(ws, "snapshot")
        await _send(ws, {"type": "start", "fill": None})
        await _until(ws, "patch")
        await _send(ws, {"type": "leave"})
        await _until(ws, "left")
        await _send(ws, {"type": "join", "room": code, "spectate": True})
        await _until(ws, "snapshot")
        return ws


class _Count:
    measuring = False
    patches = 0
    errors = 0


async def _watch(ws: ClientConnection, count: _Count) -> None:
    with contextlib.suppress(Exception):
        async for data in ws:
            if count.measuring:
                kind = orjson.loads(data)["type"]
                count.patches += kind == "patch"
                count.errors += kind == "error"


async def client(config: dict[str, Any]) -> None:
    """Set up the bot rooms, say ready, count their changes between ``go`` and ``stop``."""
    gate = asyncio.Semaphore(16)
    began = time.perf_counter()
    results = await asyncio.gather(
        *(_bot_room(config["url"], config["level"], gate) for _ in range(config["rooms"])),
        return_exceptions=True,
    )
    conns = [ws for ws in results if isinstance(ws, ClientConnection)]
    for failure in (r for r in results if isinstance(r, BaseException)):
        sys.stderr.write(f"bot room failed: {failure!r}\n")
    count = _Count()
    readers = [asyncio.create_task(_watch(ws, count)) for ws in conns]
    say = {"ready": True, "rooms": len(conns), "setup_s": round(time.perf_counter() - began, 2)}
    sys.stdout.write(orjson.dumps(say).decode() + "\n")
    sys.stdout.flush()
    loop = asyncio.get_running_loop()
    started = time.perf_counter()
    while line := (await loop.run_in_executor(None, sys.stdin.readline)).strip():
        if line == "go":
            count.measuring, started = True, time.perf_counter()
        elif line == "stop":
            count.measuring = False
            window = time.perf_counter() - started
            result = {"patches": count.patches, "errors": count.errors, "window_s": window}
            sys.stdout.write(orjson.dumps({"result": result}).decode() + "\n")
            sys.stdout.flush()
            break
    for task in readers:
        task.cancel()
    for ws in conns:
        ws.transport.abort()


# --- the orchestrator ----------------------------------------------------------------------


def _line(proc: subprocess.Popen[bytes]) -> dict[str, Any]:
    assert proc.stdout is not None
    while True:
        raw = proc.stdout.readline()
        if not raw:
            raise RuntimeError(f"bot rooms' client exited ({proc.poll()})")
        if raw.startswith(b"{"):
            record: dict[str, Any] = orjson.loads(raw)
            return record


def _tell(proc: subprocess.Popen[bytes], word: str) -> None:
    assert proc.stdin is not None
    proc.stdin.write(word.encode() + b"\n")
    proc.stdin.flush()


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            found += [int(c) for c in (task / "children").read_text().split()]
    return found


def bot_workers(pid: int) -> tuple[bool, list[int]]:
    """Whether server ``pid`` started a fork server, and the bot workers it forked."""
    for child in _children(pid):
        with contextlib.suppress(OSError):
            if b"multiprocessing.forkserver" in Path(f"/proc/{child}/cmdline").read_bytes():
                return True, _children(child)
    return False, []


def measure(
    shape: LoadShape, bot_rooms: int, level: str, flags: Sequence[str], root: Path, warmup: float
) -> dict[str, Any]:
    """One server: the people's load, beside ``bot_rooms`` rooms of bots if any."""
    server = start_process(game_server_argv(extra=flags), root=root)
    bots: subprocess.Popen[bytes] | None = None
    try:
        others: dict[str, int] = {}
        ready: dict[str, Any] = {}
        if bot_rooms:
            config = {"url": server.url, "rooms": bot_rooms, "level": level}
            bots = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "benchmarks.bot_rooms",
                    "--client",
                    orjson.dumps(config).decode(),
                ],
                cwd=ROOT,
                env=python_env(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )
            ready = _line(bots)
            time.sleep(warmup)  # the bots are well into their matches before people come
            # A fork server without workers yet: they are starting. No fork server: the bots
            # think in threads of the server (--bot-workers=0, or an older commit).
            deadline = time.monotonic() + 10
            forking, workers = bot_workers(server.pid)
            while forking and not workers and time.monotonic() < deadline:
                time.sleep(0.05)
                forking, workers = bot_workers(server.pid)
            others = {f"bot_worker_{i}": p for i, p in enumerate(workers)}
            others["bot_clients"] = bots.pid
            _tell(bots, "go")
        summary = drive([server.url], [server.pid], shape, others)
        if bots is not None:
            _tell(bots, "stop")
            counted = _line(bots)["result"]
            summary["bot_rooms"] = ready["rooms"]
            summary["bot_rooms_setup_s"] = ready["setup_s"]
            summary["bot_changes_per_s"] = round(counted["patches"] / counted["window_s"], 1)
            summary["bot_errors"] = counted["errors"]
            names = [n for n in others if n.startswith("bot_worker_") and n in summary]
            used = [summary[name]["cpu_pct"] for name in names]
            summary["bot_workers_cpu_pct"] = round(sum(used), 1)
            summary["bot_workers"] = len(used)
    finally:
        if bots is not None:
            try:
                bots.wait(10)
            except subprocess.TimeoutExpired:
                bots.kill()
                bots.wait()
        server.stop()
    summary.pop("codes", None)
    return summary


def _brief(run: dict[str, Any]) -> dict[str, Any]:
    keep: tuple[str, ...] = ("rooms", "rooms_failed", "window_s", "moves", "moves_per_s")
    keep += ("latency_ms", "errors")
    keep += ("refused", "gaps", "server", "loadgen", "bot_rooms", "bot_rooms_setup_s")
    keep += ("bot_changes_per_s", "bot_errors", "bot_workers", "bot_workers_cpu_pct")
    keep += ("bot_clients",)
    return {k: run[k] for k in keep if k in run}


def _ratio(a: float | None, b: float | None) -> float | None:
    return rounded(a / b, 2) if a is not None and b else None


def main(argv: Sequence[str] | None = None) -> int:
    """Parse flags, run the repeats, print one JSON line."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bot_rooms", description=__doc__)
    parser.add_argument("--rooms", type=int, default=300, help="rooms of people")
    parser.add_argument("--bot-rooms", type=int, default=200)
    parser.add_argument("--bot-level", default="expert")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--think", type=float, default=1.0, help="people's mean pause, s")
    parser.add_argument("--bot-delay", type=float, default=0.7, help="the server's bot delay")
    parser.add_argument("--hand-pause", type=float, default=8.0, help="the server's hand pause")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument(
        "--server-flag", action="append", default=[], help="one more server flag (repeatable)"
    )
    parser.add_argument("--client", help=argparse.SUPPRESS)
    add_server_flags(parser)
    args = parser.parse_args(argv)
    if args.client:
        raise_nofile(int(orjson.loads(args.client)["rooms"]) + 1024)
        asyncio.run(client(orjson.loads(args.client)))
        return 0
    with server_root(args) as root:
        return _main(args, root, argv)


def _main(args: argparse.Namespace, root: Path, argv: Sequence[str] | None) -> int:
    raise_nofile(max(4096, (args.rooms * 5 + args.bot_rooms) * 2 + 1024))
    shape = LoadShape(rooms=args.rooms, seconds=args.seconds, warmup=args.warmup, think=args.think)
    flags = ["--bot-delay", str(args.bot_delay), "--hand-pause", str(args.hand_pause)]
    flags += [f for flag in args.server_flag for f in shlex.split(flag.replace("=", " ", 1))]
    info = machine(root)
    alone: list[dict[str, Any]] = []
    beside: list[dict[str, Any]] = []
    for i in range(args.repeats):
        note(f"repeat {i + 1}/{args.repeats}: {args.rooms} rooms of people alone")
        alone.append(measure(shape, 0, args.bot_level, flags, root, args.warmup))
        note(f"p99 {alone[-1]['latency_ms']['p99']} ms; now beside {args.bot_rooms} bot rooms")
        beside.append(measure(shape, args.bot_rooms, args.bot_level, flags, root, args.warmup))
        note(
            f"p99 {beside[-1]['latency_ms']['p99']} ms, "
            f"bots {beside[-1].get('bot_changes_per_s')} changes/s"
        )
    ratios = [
        b["latency_ms"]["p99"] / a["latency_ms"]["p99"]
        for a, b in zip(alone, beside, strict=True)
        if a["latency_ms"]["p99"] and b["latency_ms"]["p99"] is not None
    ]
    figures: dict[str, dict[str, Any]] = {}
    for name, runs in (("alone", alone), ("beside_bots", beside)):
        figures[name] = {
            "latency_ms": {q: median_of(runs, "latency_ms", q) for q in ("p50", "p95", "p99")},
            "moves_per_s": median_of(runs, "moves_per_s"),
            "server_cpu_pct": median_of(runs, "server", "cpu_pct"),
            "loadgen_cpu_pct": median_of(runs, "loadgen", "cpu_pct"),
        }
    figures["beside_bots"]["bot_changes_per_s"] = median_of(beside, "bot_changes_per_s")
    figures["beside_bots"]["bot_workers_cpu_pct"] = median_of(beside, "bot_workers_cpu_pct")
    figures["beside_bots"]["bot_clients_cpu_pct"] = median_of(beside, "bot_clients", "cpu_pct")
    ratio = rounded(median(ratios), 2)
    record: dict[str, Any] = {
        "bench": "bot_rooms",
        "command": "python -m benchmarks.bot_rooms "
        + shlex.join(sys.argv[1:] if argv is None else argv),
        "rooms": args.rooms,
        "bot_rooms": args.bot_rooms,
        "bot_level": args.bot_level,
        "think_s": args.think,
        "seconds": args.seconds,
        "repeats": args.repeats,
        "server_flags": flags,
        "machine": info,
        **figures,
        "ratio_p50": _ratio(
            figures["beside_bots"]["latency_ms"]["p50"], figures["alone"]["latency_ms"]["p50"]
        ),
        "ratio_p99": ratio,
        "ratio_p99_each": [round(r, 2) for r in ratios],
        "target_ratio_le_2": None if ratio is None else ratio <= TARGET_RATIO,
        "runs": {"alone": [_brief(r) for r in alone], "beside_bots": [_brief(r) for r in beside]},
    }
    emit(record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
