"""Helpers shared by the server benchmarks: processes, /proc readings, statistics, output.

Everything here is standard library: the benchmarks measure the server from the outside,
so they read CPU time and memory of any process from ``/proc`` (Linux only) rather than
depending on psutil.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

#: The repository root: benchmarks run the server and their workers from here.
ROOT = Path(__file__).resolve().parent.parent
_TICKS = os.sysconf("SC_CLK_TCK")
_SERVING = re.compile(rb"serving on http://([^:/\s]+):(\d+)/")
#: Server flags for load runs: no bot delay, no effective rate limit.
LOAD_FLAGS = ("--bot-delay", "0", "--rate", "100000", "--burst", "100000")


# --- /proc ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ProcSample:
    """CPU seconds and memory of one process at one moment."""

    at: float
    cpu: float
    rss_kib: int
    hwm_kib: int
    #: Seconds the main thread spent runnable but waiting for a CPU (other load).
    run_wait: float = 0.0


def proc_sample(pid: int) -> ProcSample:
    """Read user+system CPU seconds, VmRSS and VmHWM (peak RSS) of ``pid`` from /proc."""
    at = time.monotonic()
    with open(f"/proc/{pid}/stat", "rb") as f:
        stat = f.read()
    # The command name is in parentheses and may hold spaces: split after the last ')'.
    fields = stat[stat.rindex(b")") + 2 :].split()
    cpu = (int(fields[11]) + int(fields[12])) / _TICKS
    rss = hwm = 0
    with open(f"/proc/{pid}/status", "rb") as f:
        for line in f:
            if line.startswith(b"VmRSS:"):
                rss = int(line.split()[1])
            elif line.startswith(b"VmHWM:"):
                hwm = int(line.split()[1])
    run_wait = 0.0
    with contextlib.suppress(OSError, ValueError, IndexError), open(f"/proc/{pid}/schedstat") as f:
        run_wait = int(f.read().split()[1]) / 1e9
    return ProcSample(at, cpu, rss, hwm, run_wait)


def cpu_percent(before: ProcSample, after: ProcSample) -> float:
    """CPU use between two samples, in percent of one core."""
    wall = after.at - before.at
    return 100.0 * (after.cpu - before.cpu) / wall if wall > 0 else 0.0


def wait_percent(before: ProcSample, after: ProcSample) -> float:
    """Time the main thread waited for a CPU between two samples, in percent of wall time."""
    wall = after.at - before.at
    return 100.0 * (after.run_wait - before.run_wait) / wall if wall > 0 else 0.0


def listen_overflows() -> int:
    """The machine's count of connections dropped because a listen backlog was full."""
    with contextlib.suppress(OSError), open("/proc/net/netstat") as f:
        lines = f.read().splitlines()
        for names, values in zip(lines[::2], lines[1::2], strict=False):
            if names.startswith("TcpExt:"):
                table = dict(zip(names.split(), values.split(), strict=False))
                return int(table.get("ListenOverflows", 0))
    return 0


def raise_nofile(wanted: int) -> int:
    """Raise this process's soft open-files limit towards ``wanted`` (up to the hard limit).

    Child processes inherit the new limit. Returns the soft limit now in force.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return soft


# --- statistics ----------------------------------------------------------------------------


def percentile(sorted_values: Sequence[float], q: float) -> float | None:
    """The nearest-rank ``q``-th percentile (0-100) of already sorted values."""
    if not sorted_values:
        return None
    rank = max(1, min(len(sorted_values), round(q / 100.0 * len(sorted_values) + 0.5)))
    return sorted_values[rank - 1]


def median(values: Sequence[float]) -> float | None:
    """The median of ``values`` (None when empty)."""
    if not values:
        return None
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def size_median(counts: dict[int, int]) -> float | None:
    """The median of a histogram ``{size: count}``."""
    total = sum(counts.values())
    if total == 0:
        return None
    seen = 0
    for size in sorted(counts):
        seen += counts[size]
        if seen * 2 >= total:
            return float(size)
    return None  # pragma: no cover - unreachable


def rounded(value: float | None, digits: int = 2) -> float | None:
    """``value`` rounded for the JSON report (None stays None)."""
    return None if value is None else round(value, digits)


def median_of(runs: Sequence[dict[str, Any]], *path: str) -> float | None:
    """The rounded median, over ``runs``, of the number each holds at ``path`` (dict keys,
    or list indices given as digits); runs without a number there are left out."""
    values = []
    for run in runs:
        value: Any = run
        for key in path:
            if isinstance(value, list) and key.isdigit() and int(key) < len(value):
                value = value[int(key)]
            else:
                value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, int | float):
            values.append(float(value))
    return rounded(median(values))


# --- processes -----------------------------------------------------------------------------


def python_env(root: Path = ROOT) -> dict[str, str]:
    """The environment for child Python processes: ``root`` first on ``PYTHONPATH``."""
    env = dict(os.environ)
    paths = [str(root), *[p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env.setdefault("PYTHONHASHSEED", "0")
    return env


@dataclass
class ServerProcess:
    """A server started as a subprocess, with the URL it announced."""

    proc: subprocess.Popen[bytes]
    url: str
    log: IO[bytes]

    @property
    def pid(self) -> int:
        return self.proc.pid

    def log_tail(self, lines: int = 20) -> str:
        """The last lines the process wrote to stderr (for error reports)."""
        self.log.flush()
        self.log.seek(0)
        return b"".join(self.log.readlines()[-lines:]).decode(errors="replace")

    def stop(self, timeout: float = 15.0, target: int | None = None) -> None:
        """SIGTERM (graceful shutdown), then SIGKILL if it does not exit in time.

        ``target`` is the PID to signal when it is not our direct child (a profiler's child).
        """
        if self.proc.poll() is None:
            if target is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(target, signal.SIGTERM)
            else:
                self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self.log.close()


def start_process(argv: Sequence[str], timeout: float = 30.0, root: Path = ROOT) -> ServerProcess:
    """Run ``argv`` (a server printing ``serving on http://HOST:PORT/``) and wait for its URL.

    It runs in ``root`` (another checkout of the server, e.g. an exported commit, when
    given). stderr goes to a temporary file so a chatty server never blocks on a full pipe.
    """
    # The log outlives this function: ServerProcess.stop() closes it.
    log = tempfile.TemporaryFile()  # noqa: SIM115
    proc = subprocess.Popen(
        list(argv),
        cwd=root,
        env=python_env(root),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=log,
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        found = _SERVING.search(line)
        if found:
            host, port = found.group(1).decode(), int(found.group(2))
            return ServerProcess(proc, f"ws://{host}:{port}/", log)
    server = ServerProcess(proc, "", log)
    tail = server.log_tail()
    server.stop(2.0)
    raise RuntimeError(f"{' '.join(argv)} did not announce its port:\n{tail}")


def game_server_argv(
    redis_url: str | None = None, extra: Sequence[str] = (), wrapper: Sequence[str] = ()
) -> list[str]:
    """The command starting our server on a free loopback port with load-test settings."""
    argv = [*wrapper, sys.executable, "-m", "server", "serve", "--host", "127.0.0.1"]
    argv += ["--port", "0", *LOAD_FLAGS]
    if redis_url:
        argv += ["--redis-url", redis_url]
    return argv + list(extra)


def baseline_server_argv(patch_bytes: int, extra: Sequence[str] = ()) -> list[str]:
    """The command starting the bare websockets baseline on a free loopback port."""
    module = "benchmarks.baseline_server"
    return [sys.executable, "-m", module, "--port", "0", "--patch-bytes", str(patch_bytes), *extra]


@contextlib.contextmanager
def running(argv: Sequence[str]) -> Iterator[ServerProcess]:
    """Start a server process for the duration of a ``with`` block."""
    server = start_process(argv)
    try:
        yield server
    finally:
        server.stop()


# --- reporting -----------------------------------------------------------------------------


def server_commit(root: Path = ROOT) -> str:
    """The commit of the server code in ``root``, with ``+dirty`` when server code is modified.

    An exported tree (no ``.git``) names its commit in a ``COMMIT`` file.
    """
    marker = root / "COMMIT"
    if marker.is_file():
        return marker.read_text().strip()
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=5,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "server", "protocol"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=5,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""
    return commit + ("+dirty" if dirty else "")


def export_commit(commit: str, target: Path) -> Path:
    """Export ``commit`` of this repository into ``target`` (no Git metadata touched)."""
    target.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(
        ["git", "archive", "--format=tar", commit], cwd=ROOT, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    short = subprocess.run(
        ["git", "rev-parse", "--short", commit], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    (target / "COMMIT").write_text(short + "\n")
    return target


def add_server_flags(parser: argparse.ArgumentParser) -> None:
    """``--server-root`` / ``--server-commit``: which server code to measure."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--server-root", type=Path, default=None, help="run the server from this checkout"
    )
    group.add_argument(
        "--server-commit",
        default=None,
        help="run the server of this commit (exported to a temporary directory)",
    )


@contextlib.contextmanager
def server_root(args: argparse.Namespace) -> Iterator[Path]:
    """The server checkout the flags ask for (this one by default)."""
    if args.server_commit:
        with tempfile.TemporaryDirectory(prefix="kc-server-") as tmp:
            yield export_commit(args.server_commit, Path(tmp))
    else:
        yield (args.server_root or ROOT).resolve()


def machine(root: Path = ROOT) -> dict[str, Any]:
    """A short description of the machine and the server code under test."""
    model = ""
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    load1 = os.getloadavg()[0]
    return {
        "cpus": os.cpu_count(),
        "cpu_model": model,
        "python": platform.python_version(),
        "server_commit": server_commit(root),
        "load_avg_1m_at_start": round(load1, 2),
    }


def started_room(seed: int) -> Any:
    """A 4-seat room of people with its match started, dealt from ``seed``.

    Built with the ``server.room`` importable now, so a benchmark that put an exported
    commit first on ``sys.path`` gets that commit's room.
    """
    from protocol.messages import RoomOptions
    from server.room import Room, create_event

    room = Room(create_event("BENCH1", RoomOptions(seats=4, target=500)))
    for seat in range(4):
        room.apply({"e": "sit", "seat": seat, "name": f"Player {seat + 1}", "kind": "human"})
    room.apply({"e": "start", "seed": f"bench-{seed}"})
    return room


def emit(record: dict[str, Any]) -> None:
    """Print one JSON line on stdout."""
    sys.stdout.write(orjson.dumps(record).decode() + "\n")
    sys.stdout.flush()


def note(text: str) -> None:
    """Progress for people, on stderr (stdout carries only the JSON line)."""
    sys.stderr.write(f"[bench] {text}\n")
    sys.stderr.flush()
