"""Memory per idle connection: our server against a bare ``websockets`` server.

Starts the server as a subprocess, reads its resident memory (``VmRSS`` in ``/proc``), opens
``--connections`` WebSocket connections from separate client processes, each saying
``hello`` (and, in ``spectator`` mode, joining a room as a spectator: one connection in 50
creates a room to watch, the others join it), waits for them to settle, reads the memory
again and reports the growth per connection. Then the same against
:mod:`benchmarks.baseline_server`, which uses the same connection settings (``max_size``,
no compression, the same keepalive pings) and answers the same messages without any game
state::

    python -m benchmarks.idle --connections 1000 5000 10000
    python -m benchmarks.idle --connections 10000 --mode hello

Prints one JSON line per connection count. The open-files soft limit is raised as needed
(up to the hard limit) before any process starts.
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
    ServerProcess,
    add_server_flags,
    baseline_server_argv,
    emit,
    listen_overflows,
    machine,
    median,
    note,
    proc_sample,
    python_env,
    raise_nofile,
    rounded,
    server_root,
    start_process,
)

TARGET_KIB = 20.0
#: Spectators per room in ``spectator`` mode (the server allows 100).
PER_ROOM = 50


# --- the client process --------------------------------------------------------------------


async def _open(url: str, timeout: float, deflate: bool = False) -> ClientConnection:
    ws = await connect(
        url,
        max_size=2**20,
        compression="deflate" if deflate else None,
        ping_interval=None,
        open_timeout=timeout,
    )
    await ws.send(orjson.dumps({"type": "hello", "version": 1, "name": "idle"}), text=True)
    while orjson.loads(await ws.recv(decode=False))["type"] != "welcome":
        pass
    return ws


async def _until(ws: ClientConnection, kind: str) -> dict[str, Any]:
    while True:
        frame: dict[str, Any] = orjson.loads(await ws.recv(decode=False))
        if frame["type"] == kind:
            return frame


async def _group(
    url: str, size: int, spectate: bool, gate: asyncio.Semaphore, deflate: bool
) -> list[Any]:
    """Open ``size`` connections; with ``spectate`` they all watch one new room."""
    async with gate:
        first = await _open(url, 120, deflate)
        conns = [first]
        code = None
        if spectate:
            await first.send(orjson.dumps({"type": "create", "spectate": True}), text=True)
            code = (await _until(first, "joined"))["room"]
            await _until(first, "snapshot")
        for _ in range(size - 1):
            ws = await _open(url, 120, deflate)
            if code is not None:
                join = {"type": "join", "room": code, "spectate": True}
                await ws.send(orjson.dumps(join), text=True)
                await _until(ws, "snapshot")
            conns.append(ws)
        return conns


async def _drain(ws: ClientConnection) -> None:
    """Keep reading (pings are answered while reading; frames are dropped)."""
    with contextlib.suppress(Exception):
        async for _ in ws:
            pass


async def client(config: dict[str, Any]) -> None:
    """Open the connections, say ready, keep them open until told to stop."""
    count, spectate = int(config["connections"]), config["mode"] == "spectator"
    gate = asyncio.Semaphore(int(config.get("concurrency", 32)))
    sizes = [PER_ROOM] * (count // PER_ROOM) + ([count % PER_ROOM] if count % PER_ROOM else [])
    began = time.perf_counter()
    deflate = bool(config.get("compression"))
    groups = await asyncio.gather(
        *(_group(config["url"], n, spectate, gate, deflate) for n in sizes)
    )
    conns = [ws for group in groups for ws in group]
    readers = [asyncio.create_task(_drain(ws)) for ws in conns]
    ready = {"ready": True, "connections": len(conns), "setup_s": time.perf_counter() - began}
    sys.stdout.write(orjson.dumps(ready).decode() + "\n")
    sys.stdout.flush()
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    for task in readers:
        task.cancel()
    for ws in conns:
        ws.transport.abort()


# --- the orchestrator ----------------------------------------------------------------------


def _clients(
    url: str, connections: int, mode: str, workers: int, deflate: bool
) -> list[subprocess.Popen[bytes]]:
    procs = []
    per, extra = divmod(connections, workers)
    for i in range(workers):
        config = {
            "url": url,
            "connections": per + (i < extra),
            "mode": mode,
            "compression": deflate,
        }
        procs.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "benchmarks.idle",
                    "--client",
                    orjson.dumps(config).decode(),
                ],
                cwd=ROOT,
                env=python_env(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )
        )
    return procs


def measure(
    server: ServerProcess,
    connections: int,
    mode: str,
    workers: int,
    settle: float = 3.0,
    deflate: bool = False,
) -> dict[str, Any]:
    """Memory of ``server`` before and after ``connections`` idle connections.

    ``settle`` seconds pass before the first reading and after the last connection opened.
    """
    time.sleep(settle / 3)
    before = proc_sample(server.pid)
    overflows = listen_overflows()
    procs = _clients(server.url, connections, mode, workers, deflate)
    try:
        setup = 0.0
        opened = 0
        for proc in procs:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError(f"idle client exited with {proc.wait()}:\n{server.log_tail()}")
            ready = orjson.loads(line)
            setup = max(setup, ready["setup_s"])
            opened += ready["connections"]
        time.sleep(settle)
        after = proc_sample(server.pid)
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write(b"stop\n")
            proc.stdin.flush()
        for proc in procs:
            proc.wait(60)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    grown = after.rss_kib - before.rss_kib
    return {
        "opened": opened,
        "setup_s": round(setup, 2),
        "rss_before_mib": round(before.rss_kib / 1024, 1),
        "rss_after_mib": round(after.rss_kib / 1024, 1),
        "peak_rss_mib": round(after.hwm_kib / 1024, 1),
        "kib_per_connection": round(grown / opened, 2) if opened else None,
        "listen_overflows": listen_overflows() - overflows,
    }


def run(
    connections: int,
    mode: str,
    workers: int,
    repeats: int,
    baseline: bool,
    settle: float = 3.0,
    root: Path = ROOT,
    deflate: bool = False,
) -> dict[str, Any]:
    """Measure ours and (interleaved) the baseline ``repeats`` times; medians and ratio."""
    ours: list[dict[str, Any]] = []
    bare: list[dict[str, Any]] = []
    ours_argv = [sys.executable, "-m", "server", "serve", "--host", "127.0.0.1", "--port", "0"]
    # Our flag takes a value, the baseline's does not.
    servers = [("our server", ours_argv + (["--compression", "on"] if deflate else []), root, ours)]
    if baseline:
        bare_argv = baseline_server_argv(0, ["--compression"] if deflate else [])
        servers.append(("bare websockets", bare_argv, ROOT, bare))
    for i in range(repeats):
        for label, argv, where, runs in servers:
            note(f"idle {connections} ({mode}) repeat {i + 1}/{repeats}: {label}")
            server = start_process(argv, root=where)
            try:
                runs.append(measure(server, connections, mode, workers, settle, deflate))
            finally:
                server.stop()

    def med(runs: list[dict[str, Any]], key: str) -> float | None:
        return rounded(median([r[key] for r in runs if r[key] is not None]))

    record: dict[str, Any] = {
        "ours": {"kib_per_connection": med(ours, "kib_per_connection"), "runs": ours},
    }
    kib = record["ours"]["kib_per_connection"]
    if bare:
        base_kib = med(bare, "kib_per_connection")
        record["baseline"] = {"kib_per_connection": base_kib, "runs": bare}
        record["ratio"] = rounded(kib / base_kib, 2) if kib and base_kib else None
        record["extra_kib_over_baseline"] = rounded(kib - base_kib) if kib and base_kib else None
    record["target_le_20kib"] = None if kib is None else kib <= TARGET_KIB
    return record


def main(argv: Sequence[str] | None = None) -> int:
    """Parse flags and print one JSON line per connection count."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.idle", description=__doc__)
    parser.add_argument("--connections", type=int, nargs="+", default=[1000])
    parser.add_argument("--mode", choices=("spectator", "hello"), default="spectator")
    parser.add_argument("--workers", type=int, default=2, help="client processes")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--settle", type=float, default=3.0, help="seconds to let memory settle")
    parser.add_argument(
        "--compression", action="store_true", help="permessage-deflate on both servers"
    )
    parser.add_argument("--client", help=argparse.SUPPRESS)
    add_server_flags(parser)
    args = parser.parse_args(argv)
    if args.client:
        raise_nofile(int(orjson.loads(args.client)["connections"]) + 1024)
        asyncio.run(client(orjson.loads(args.client)))
        return 0
    with server_root(args) as root:
        return _main(args, root, argv)


def _main(args: argparse.Namespace, root: Path, argv: Sequence[str] | None) -> int:
    """Measure every connection count against the server in ``root``."""
    soft = raise_nofile(max(args.connections) + 1024)
    command = "python -m benchmarks.idle " + shlex.join(sys.argv[1:] if argv is None else argv)
    info = machine(root)
    for count in args.connections:
        if count + 64 > soft:
            note(f"open-files limit {soft} is too low for {count} connections")
        record = {
            "bench": "idle",
            "command": command,
            "connections": count,
            "mode": args.mode,
            "compression": args.compression,
            "nofile_soft_limit": soft,
            "machine": info,
            **run(
                count,
                args.mode,
                args.workers,
                args.repeats,
                not args.no_baseline,
                args.settle,
                root,
                args.compression,
            ),
        }
        emit(record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
