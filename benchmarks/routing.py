"""A room on one process: Redis's work per move behind nginx, routing by room on and off.

Two game server processes on one Redis behind a real nginx running the shipped
deploy/nginx.conf (rendered for loopback as the deploy tests render it:
:func:`tests.deploy.compose.native_nginx_conf`). Every connection of the load
(:mod:`benchmarks.load`: ``--rooms`` rooms of 4 seats and a spectator, a closed loop)
goes through nginx; each repeat runs, in turn:

* ``least_conn``: no connection names its room (clients before the room was in the URL):
  nginx spreads them by connection, so most rooms are held by both processes;
* ``routed_guests``: the host creates the room over a connection naming none (it does not
  know the code yet) and the other four open ``/?room=CODE`` (a link): they meet on the
  process the code hashes to, and the host is there or not (half the rooms, with two);
  this is what clients did before they moved after a create;
* ``routed_all``: the same, and the host moves to a connection naming the room right after
  the create, as the project's clients do (docs/protocol.md, "Transport").

Redis's counters (``INFO commandstats``, ``INFO stats``) are read before and after the
measured window and divided by the moves acknowledged in it, so use a Redis nothing else
uses. Prints one JSON line with the medians per configuration::

    redis-server --port 6391 --save "" --appendonly no &
    python -m benchmarks.routing --rooms 100 --seconds 15 --repeats 2 \\
        --redis-url redis://127.0.0.1:6391/0

nginx: ``$NGINX``, else ``nginx`` on the PATH, else ``/usr/sbin/nginx``. The rooms a run
stores are deleted afterwards (exactly those, by code); nginx and the servers are ended by
their process ids.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from tests.deploy.compose import TEMP_PATHS, native_nginx_conf

from ._common import (
    ServerProcess,
    add_server_flags,
    emit,
    game_server_argv,
    machine,
    median,
    note,
    raise_nofile,
    rounded,
    server_root,
    start_process,
)
from .load import DEFAULT_REDIS_URL, LoadShape, delete_redis_rooms, drive, medians, redis_pid
from .scaleout import redis_ok

#: (name, how the load generator routes: see :class:`benchmarks.load.LoadShape`).
CONFIGS = [("least_conn", ""), ("routed_guests", "guests"), ("routed_all", "all")]
#: The figures per move worth the table (docs/capacity.md).
PER_MOVE = ("commands", "evalsha", "publish", "bytes_in", "bytes_out", "cpu_us")


def nginx_binary() -> str:
    for candidate in (os.environ.get("NGINX"), shutil.which("nginx"), "/usr/sbin/nginx"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise RuntimeError("nginx is not installed (or set NGINX)")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def nginx_in_front(ports: Sequence[int]) -> Iterator[tuple[str, int]]:
    """The shipped nginx.conf in front of the servers on ``ports``: (its WebSocket URL,
    its pid), for the duration of a ``with`` block."""
    with tempfile.TemporaryDirectory(prefix="kc-routing-") as directory:
        prefix = Path(directory)
        for name in TEMP_PATHS:
            (prefix / "temp" / name).mkdir(parents=True)
        listen = free_port()
        conf = prefix / "nginx.conf"
        conf.write_text(native_nginx_conf(list(ports), listen))
        proc = subprocess.Popen(
            [
                nginx_binary(),
                "-p",
                f"{prefix}/",
                "-c",
                str(conf),
                "-g",
                "daemon off; pid nginx.pid;",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=(prefix / "error.log").open("wb"),
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 10
            while True:
                with (
                    contextlib.suppress(OSError),
                    socket.create_connection(("127.0.0.1", listen), 1),
                ):
                    break
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"nginx did not start: {(prefix / 'error.log').read_text()}")
                time.sleep(0.05)
            yield f"ws://127.0.0.1:{listen}/", proc.pid
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGQUIT)  # graceful: finish, then exit
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


def run_behind_nginx(shape: LoadShape, redis_url: str, root: Path) -> dict[str, Any]:
    """Two servers on ``redis_url`` behind nginx; drive them with ``shape``; stop all."""
    servers: list[ServerProcess] = []
    try:
        for _ in range(2):
            servers.append(start_process(game_server_argv(redis_url), root=root))
        ports = [int(s.url.rstrip("/").rpartition(":")[2]) for s in servers]
        with nginx_in_front(ports) as (url, _):
            others = {"redis": redis_pid(redis_url)}
            summary = drive([url], [s.pid for s in servers], shape, others, redis_url)
    finally:
        for server in servers:
            server.stop()
    delete_redis_rooms(redis_url, summary["codes"])
    return summary


def main(argv: Sequence[str] | None = None) -> int:
    """Parse flags, run every configuration per repeat, print one JSON line."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.routing", description=__doc__)
    parser.add_argument("--rooms", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1, help="load-generator processes")
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--think", type=float, default=0.0)
    parser.add_argument(
        "--redis-url", default=os.environ.get("REDIS_URL", DEFAULT_REDIS_URL), help="Redis URL"
    )
    add_server_flags(parser)
    args = parser.parse_args(argv)
    # SIGTERM ends the run through its clean-ups: nginx and the servers are ended too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with server_root(args) as root:
        return _main(args, root, argv)


def _main(args: argparse.Namespace, root: Path, argv: Sequence[str] | None) -> int:
    raise_nofile(max(4096, args.rooms * 5 * 4 + 1024))
    record: dict[str, Any] = {
        "bench": "routing",
        "command": "python -m benchmarks.routing "
        + shlex.join(sys.argv[1:] if argv is None else argv),
        "rooms": args.rooms,
        "seconds": args.seconds,
        "repeats": args.repeats,
        "machine": machine(root),
    }
    problem = redis_ok(args.redis_url)
    if problem is not None:
        record["error"] = f"Redis unavailable: {problem}"
        emit(record)
        return 1
    shape = LoadShape(
        rooms=args.rooms,
        seconds=args.seconds,
        workers=args.workers,
        warmup=args.warmup,
        think=args.think,
    )
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in CONFIGS}
    for i in range(args.repeats):
        for name, routed in CONFIGS:
            note(f"repeat {i + 1}/{args.repeats}: {name}, {args.rooms} rooms")
            run = run_behind_nginx(replace(shape, routed=routed), args.redis_url, root)
            runs[name].append({k: v for k, v in run.items() if k != "codes"})
    results: dict[str, Any] = {}
    for name, rs in runs.items():
        figures = medians(rs)
        figures["redis_per_move"] = {
            key: rounded(median([r["redis_per_move"].get(key, 0.0) for r in rs]))
            for key in PER_MOVE
        }
        figures["redis_cpu_pct"] = rounded(median([r["redis"]["cpu_pct"] for r in rs]))
        results[name] = figures
    record.update({"results": results, "runs": runs})
    emit(record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
