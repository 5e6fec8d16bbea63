"""The deployment's own topology on one machine: what each shard and each process does per move.

Starts, on free loopback ports, everything a deployment past one process runs:

* a Redis Cluster of 3 primaries (``--replicas`` replicas each; :class:`LocalCluster`);
* 2 game servers, ``kings-corner serve`` on that Cluster (their reviews go to the stream);
* 1 review worker, ``kings-corner worker`` (docs/coach.md, "The review tier");
* nginx running the shipped deploy/nginx.conf, rendered for loopback as the deploy tests
  render it (:func:`tests.deploy.compose.native_nginx_conf`);

then drives them through nginx with the load generator of :mod:`benchmarks.load` (rooms of 4
people and a spectator, paced: a pause of 0.5-1.5 x ``--think`` seconds before each action,
so a room moves about once a second at ``--think 1``, the plan's 4 s per player). Every
connection names its room (``/?room=CODE``, ``--routed all``: what the clients do), so nginx
keeps a room on one process. Before and after the measured window it reads:

* every Redis node: ``INFO commandstats``, ``INFO stats`` (commands, bytes in and out),
  ``CLUSTER INFO`` (cluster bus messages);
* the CPU time (``/proc/PID/stat``: user + system, of the process and its children) of the
  servers, the worker, every Redis node, nginx (master and workers) and the load generator;
* the review stream (jobs added, read, pending): the worker's CPU per job, drained after
  the window so that every job it computed is counted.

Prints one JSON line (stdout) with medians over ``--repeats`` (each repeat on a fresh
topology) and every run, and the tables per shard and per process in Markdown (stderr)::

    python -m benchmarks.topology --rooms 300 --seconds 90 --warmup 60 --think 1 --repeats 2

Every process it starts is stopped by its process id; the Cluster lives in a temporary
directory that goes with it.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from tests.topologies.topology import LocalCluster

from ._common import (
    LOAD_FLAGS,
    ROOT,
    ServerProcess,
    emit,
    machine,
    median,
    note,
    python_env,
    raise_nofile,
    rounded,
    start_process,
)
from .load import LoadShape, Worker, _start_workers, summarise
from .routing import nginx_in_front

_TICKS = os.sysconf("SC_CLK_TCK")
#: The review jobs' stream and its consumer group (server/store/redis/review_jobs.py).
JOBS_KEY = "kc:{reviews}:jobs"
JOBS_GROUP = "workers"
#: Commands per move worth a column of the per-shard table.
COMMANDS = ("evalsha", "spublish", "publish", "xadd")
#: The counters of one node kept per move (everything else is in the JSON only).
BUS = ("cluster_stats_messages_sent", "cluster_stats_messages_received")


# --- processes and their CPU ---------------------------------------------------------------


def descendants(pid: int) -> list[int]:
    """``pid`` and every live process below it (from ``/proc/PID/task/*/children``)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{current}/task").iterdir():
                with contextlib.suppress(OSError):
                    todo += [int(c) for c in (task / "children").read_text().split()]
    return found


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of ``pid`` and its descendants, children that ended and
    were reaped included (``cutime`` + ``cstime``); 0.0 for a process that is gone."""
    total = 0
    for each in descendants(pid):
        with contextlib.suppress(OSError, ValueError, IndexError):
            stat = Path(f"/proc/{each}/stat").read_bytes()
            fields = stat[stat.rindex(b")") + 2 :].split()
            total += sum(int(fields[i]) for i in (11, 12, 13, 14))
    return total / _TICKS


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far, all cores (``/proc/stat``)."""
    with open("/proc/stat") as f:
        values = [int(x) for x in f.readline().split()[1:9]]
    return (sum(values) - values[3] - values[4]) / _TICKS, sum(values) / _TICKS


@dataclass
class Started:
    """A process of ours that prints nothing we wait for: stopped by its pid."""

    proc: subprocess.Popen[bytes]
    log: Path

    @property
    def pid(self) -> int:
        return self.proc.pid

    def stop(self, timeout: float = 15.0) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def kings_corner() -> list[str]:
    """The ``kings-corner`` command of this interpreter's environment."""
    script = Path(sys.executable).with_name("kings-corner")
    return [str(script)] if script.exists() else [sys.executable, "-m", "server"]


# --- Redis counters ------------------------------------------------------------------------


def node_counters(client: redis.Redis) -> dict[str, int]:
    """One node's counters: commands by name and in all, bytes in and out, bus messages."""
    stats: dict[str, Any] = client.info("stats")
    commands: dict[str, Any] = client.info("commandstats")
    bus: dict[str, Any] = client.cluster("info")
    out = {
        "commands": int(stats["total_commands_processed"]),
        "bytes_in": int(stats["total_net_input_bytes"]),
        "bytes_out": int(stats["total_net_output_bytes"]),
    }
    for name, figures in commands.items():
        out["cmd_" + name.removeprefix("cmdstat_")] = int(figures["calls"])
    for name, value in bus.items():
        if name.startswith("cluster_stats_messages_"):
            out[name.removeprefix("cluster_stats_")] = int(value)
    return out


def stream_state(client: redis.Redis) -> dict[str, int]:
    """The review stream: entries ever added, and its group's entries read and pending."""
    try:
        info: dict[str, Any] = client.xinfo_stream(JOBS_KEY)
        groups: list[dict[str, Any]] = client.xinfo_groups(JOBS_KEY)
    except redis.ResponseError:  # no job added yet: no stream
        return {"added": 0, "read": 0, "pending": 0}
    group = next((g for g in groups if g["name"] == JOBS_GROUP), {})
    return {
        "added": int(info.get("entries-added") or 0),
        "read": int(group.get("entries-read") or 0),
        "pending": int(group.get("pending") or 0),
    }


@dataclass
class Sample:
    """Everything read at one moment."""

    at: float
    cpu: dict[str, float]
    nodes: dict[str, dict[str, int]]
    stream: dict[str, int]
    busy: tuple[float, float]


@dataclass
class Topology:
    """The running deployment: what to sample and what to stop."""

    cluster: LocalCluster
    servers: list[ServerProcess] = field(default_factory=list)
    worker: Started | None = None
    nginx_pid: int = 0
    url: str = ""

    def clients(self) -> dict[str, redis.Redis]:
        return {node.address: node.client() for node in self.cluster.nodes}

    def processes(self) -> dict[str, int]:
        """Name -> pid of every process whose CPU is counted (its children included)."""
        named = {f"server-{i + 1}": s.pid for i, s in enumerate(self.servers)}
        if self.worker is not None:
            named["review-worker"] = self.worker.pid
        named["nginx"] = self.nginx_pid
        for node in self.cluster.nodes:
            assert node.process is not None
            named[f"redis-{node.port}"] = node.process.pid
        return named

    def sample(self, extra: Mapping[str, Sequence[int]]) -> Sample:
        cpu = {name: tree_cpu(pid) for name, pid in self.processes().items()}
        for name, pids in extra.items():
            cpu[name] = sum(tree_cpu(pid) for pid in pids)
        clients = self.clients()
        try:
            nodes = {address: node_counters(c) for address, c in clients.items()}
            owner = clients[self.cluster.owner(JOBS_KEY).address]
            stream = stream_state(owner)
        finally:
            for client in clients.values():
                client.close()
        return Sample(time.monotonic(), cpu, nodes, stream, machine_busy())


@contextlib.contextmanager
def deployment(root: Path, replicas: int) -> Iterator[Topology]:
    """The Cluster, 2 servers, a worker and nginx, for the duration of a ``with`` block."""
    cluster = LocalCluster(root / "cluster", 3, replicas=replicas)
    topology = Topology(cluster)
    try:
        cluster.start()
        serve = [*kings_corner(), "serve", "--host", "127.0.0.1", "--port", "0", *LOAD_FLAGS]
        serve += ["--redis-url", cluster.url, "--reviews", "1"]
        for _ in range(2):
            topology.servers.append(start_process(serve))
        log = root / "worker.log"
        worker = [*kings_corner(), "worker", "--redis-url", cluster.url]
        proc = subprocess.Popen(
            worker,
            cwd=ROOT,
            env=python_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log.open("wb"),
        )
        topology.worker = Started(proc, log)
        ports = [int(s.url.rstrip("/").rpartition(":")[2]) for s in topology.servers]
        with nginx_in_front(ports) as (url, pid):
            topology.url, topology.nginx_pid = url, pid
            yield topology
    finally:
        for server in topology.servers:
            server.stop()
        if topology.worker is not None:
            topology.worker.stop()
        cluster.stop()


# --- one measured run ----------------------------------------------------------------------


def drain(topology: Topology, within: float) -> float:
    """Wait until the worker has taken and finished every job (or ``within`` seconds);
    the seconds it took."""
    began = time.monotonic()
    while time.monotonic() - began < within:
        clients = topology.clients()
        try:
            state = stream_state(clients[topology.cluster.owner(JOBS_KEY).address])
        finally:
            for client in clients.values():
                client.close()
        if state["read"] >= state["added"] and state["pending"] == 0:
            break
        time.sleep(0.5)
    return time.monotonic() - began


def measure(topology: Topology, shape: LoadShape, drain_s: float) -> dict[str, Any]:
    """Drive the topology through nginx for one window; the figures of that window."""
    workers: list[Worker] = _start_workers([topology.url], shape)
    try:
        for worker in workers:
            worker.ready = worker.line()
        time.sleep(shape.warmup)
        extra = {"load-generator": [w.proc.pid for w in workers]}
        load_before = os.getloadavg()
        before = topology.sample(extra)
        for worker in workers:
            worker.tell("go")
        time.sleep(shape.seconds)
        for worker in workers:
            worker.tell("stop")
        after = topology.sample(extra)
        load_after = os.getloadavg()
        results = [w.line()["result"] for w in workers]
        for worker in workers:
            worker.proc.wait(60)
    finally:
        for worker in workers:
            if worker.proc.poll() is None:
                worker.proc.kill()
                worker.proc.wait()
    drained_in = drain(topology, drain_s)
    drained = topology.sample({})
    summary = summarise(results, shape)
    run = figures(before, after, drained, summary["moves"])
    run.update(
        {
            "moves": summary["moves"],
            "moves_per_s": summary["moves_per_s"],
            "latency_ms": summary["latency_ms"],
            "fanout_ms": summary["fanout_ms"],
            "rooms_failed": summary["rooms_failed"],
            "refused": summary["refused"],
            "errors": summary["errors"],
            "gaps": summary["gaps"],
            "hands": summary["hands"],
            "matches": summary["matches"],
            "setup_s": max(w.ready["setup_s"] for w in workers),
            "drained_in_s": round(drained_in, 1),
            "load_avg_1m": [round(load_before[0], 2), round(load_after[0], 2)],
        }
    )
    return run


def figures(before: Sample, after: Sample, drained: Sample, moves: int) -> dict[str, Any]:
    """Per node and per process, from the samples before and after the window (and once
    the review jobs were drained, for the worker's CPU per job)."""
    wall = after.at - before.at

    def per(value: float) -> float | None:
        return round(value / moves, 3) if moves else None

    nodes = {}
    for address, start in before.nodes.items():
        end = after.nodes[address]
        spent = {k: end.get(k, 0) - start.get(k, 0) for k in end}
        cpu = after.cpu[f"redis-{address.rpartition(':')[2]}"]
        cpu -= before.cpu[f"redis-{address.rpartition(':')[2]}"]
        nodes[address] = {
            "commands_per_move": per(spent["commands"]),
            "commands_per_s": round(spent["commands"] / wall, 1),
            **{f"{c}_per_move": per(spent.get("cmd_" + c, 0)) for c in COMMANDS},
            "bytes_in_per_move": per(spent["bytes_in"]),
            "bytes_out_per_move": per(spent["bytes_out"]),
            "bus_sent_per_s": round(spent.get("messages_sent", 0) / wall, 1),
            "bus_received_per_s": round(spent.get("messages_received", 0) / wall, 1),
            "bus_publishshard_sent": spent.get("messages_publishshard_sent", 0),
            "bus_publish_sent": spent.get("messages_publish_sent", 0),
            "announcements": spent.get("cmd_spublish", 0) + spent.get("cmd_publish", 0),
            "cpu_pct": round(100 * cpu / wall, 1),
            "cpu_us_per_move": per(cpu * 1e6),
            "calls": {k[4:]: v for k, v in spent.items() if k.startswith("cmd_") and v},
        }
    processes: dict[str, dict[str, float | None]] = {}
    ours = 0.0
    for name, start_cpu in before.cpu.items():
        cpu = after.cpu[name] - start_cpu
        ours += 100 * cpu / wall
        processes[name] = {
            "cpu_pct": round(100 * cpu / wall, 1),
            "cpu_us_per_move": per(cpu * 1e6),
        }
    busy = (after.busy[0] - before.busy[0]) / (after.busy[1] - before.busy[1])
    cores = os.cpu_count() or 1
    # The worker's CPU per job, over the window and the drain after it: jobs read and
    # acknowledged in that time (pending ones at the start were being computed already).
    done = (drained.stream["read"] - drained.stream["pending"]) - (
        before.stream["read"] - before.stream["pending"]
    )
    worker_cpu = drained.cpu.get("review-worker", 0.0) - before.cpu.get("review-worker", 0.0)
    added = after.stream["added"] - before.stream["added"]
    per_job = worker_cpu / done if done else None
    reviews = {
        "jobs_added": added,
        "jobs_done": done,
        "jobs_per_s": round(added / wall, 2),
        "backlog_at_end": after.stream["added"] - after.stream["read"] + after.stream["pending"],
        "cpu_ms_per_job": rounded(None if per_job is None else per_job * 1e3),
        "cpu_us_per_move": rounded(
            None if per_job is None or not moves else per_job * added / moves * 1e6, 1
        ),
    }
    return {
        "window_s": round(wall, 2),
        "nodes": nodes,
        "processes": processes,
        "reviews": reviews,
        "machine_cpu_pct": round(100 * busy * cores, 1),
        "others_cpu_pct": round(100 * busy * cores - ours, 1),
    }


# --- medians and tables --------------------------------------------------------------------


def median_runs(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Medians over runs: headline figures, each shard (the nodes in order of their share
    of the appends, busiest first) and each process."""

    def med(values: Sequence[Any]) -> float | None:
        return rounded(median([float(v) for v in values if isinstance(v, int | float)]), 3)

    def ordered(run: dict[str, Any]) -> list[dict[str, Any]]:
        nodes = list(run["nodes"].values())
        return sorted(nodes, key=lambda n: -(n["evalsha_per_move"] or 0))

    shards = []
    for i in range(min(len(r["nodes"]) for r in runs)):
        keys = ordered(runs[0])[i].keys() - {"calls"}
        shards.append({k: med([ordered(r)[i][k] for r in runs]) for k in sorted(keys)})
    # Redis nodes are on other ports in every run: their processes are summed (each
    # shard's own CPU is in the shards' table).
    merged = [_redis_together(r["processes"]) for r in runs]
    names = sorted({name for m in merged for name in m})
    processes = {
        name: {
            k: med([m[name][k] for m in merged if name in m])
            for k in ("cpu_pct", "cpu_us_per_move")
        }
        for name in names
    }
    return {
        "moves_per_s": med([r["moves_per_s"] for r in runs]),
        "p50_ms": med([r["latency_ms"]["p50"] for r in runs]),
        "p99_ms": med([r["latency_ms"]["p99"] for r in runs]),
        "fanout_p99_ms": med([r["fanout_ms"]["p99"] for r in runs]),
        "shards": shards,
        "processes": processes,
        "reviews": {k: med([r["reviews"][k] for r in runs]) for k in runs[0]["reviews"]},
        "others_cpu_pct": med([r["others_cpu_pct"] for r in runs]),
    }


def _redis_together(processes: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """``processes`` with the ``redis-PORT`` entries summed into one, ``redis (all nodes)``."""
    out = {n: p for n, p in processes.items() if not n.startswith("redis-")}
    nodes = [p for n, p in processes.items() if n.startswith("redis-")]
    if nodes:
        out["redis (all nodes)"] = {
            k: sum(p[k] or 0.0 for p in nodes) for k in ("cpu_pct", "cpu_us_per_move")
        }
    return out


def markdown(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A Markdown table; numbers with thousands separators, None as a dash."""

    def cell(value: Any) -> str:
        if value is None:
            return "\N{EN DASH}"
        if isinstance(value, float):
            return f"{value:,.1f}" if abs(value) < 100 else f"{value:,.0f}"
        if isinstance(value, int):
            return f"{value:,}"
        return str(value)

    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def tables(result: dict[str, Any]) -> str:
    """The per-shard and per-process tables of :func:`median_runs`' result."""
    shards = markdown(
        [
            "shard",
            "commands / move",
            "EVALSHA / move",
            "SPUBLISH / move",
            "bytes in / move",
            "bytes out / move",
            "bus msgs sent / s",
            "CPU %",
            "CPU µs / move",
        ],
        [
            [
                i + 1,
                s["commands_per_move"],
                s["evalsha_per_move"],
                s["spublish_per_move"],
                s["bytes_in_per_move"],
                s["bytes_out_per_move"],
                s["bus_sent_per_s"],
                s["cpu_pct"],
                s["cpu_us_per_move"],
            ]
            for i, s in enumerate(result["shards"])
        ],
    )
    processes = markdown(
        ["process", "CPU % of a core", "CPU µs / move"],
        [[name, p["cpu_pct"], p["cpu_us_per_move"]] for name, p in result["processes"].items()],
    )
    head = (
        f"{result['moves_per_s']} moves/s, p50 {result['p50_ms']} ms, p99 {result['p99_ms']} ms;"
        f" review worker {result['reviews']['cpu_ms_per_job']} ms per job,"
        f" {result['reviews']['cpu_us_per_move']} µs per move;"
        f" other processes on the machine {result['others_cpu_pct']}% of a core"
    )
    return f"{head}\n\n{shards}\n\n{processes}\n"


# --- command line --------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.topology", description=__doc__)
    parser.add_argument("--rooms", type=int, default=300, help="rooms of 4 people + a spectator")
    parser.add_argument("--seconds", type=float, default=90.0, help="the measured window")
    parser.add_argument(
        "--warmup", type=float, default=60.0, help="seconds of play before the window"
    )
    parser.add_argument("--think", type=float, default=1.0, help="mean pause before an action")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--replicas", type=int, default=0, help="replicas per primary")
    parser.add_argument("--load-workers", type=int, default=1, help="load-generator processes")
    parser.add_argument(
        "--routed",
        choices=["", "guests", "all"],
        default="all",
        help="which connections name their room (benchmarks/_loadgen.py)",
    )
    parser.add_argument(
        "--drain", type=float, default=120.0, help="seconds to wait for the review backlog"
    )
    args = parser.parse_args(argv)
    if args.rooms < 1 or args.seconds <= 0 or args.repeats < 1:
        parser.error("--rooms, --seconds and --repeats must be positive")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    # SIGTERM ends the run through its clean-ups: every process started is stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    raise_nofile(max(4096, args.rooms * 5 * 4 + 1024))
    shape = LoadShape(
        rooms=args.rooms,
        seconds=args.seconds,
        workers=args.load_workers,
        warmup=args.warmup,
        think=args.think,
        routed=args.routed,
    )
    record: dict[str, Any] = {
        "bench": "topology",
        "command": "python -m benchmarks.topology "
        + shlex.join(sys.argv[1:] if argv is None else argv),
        "rooms": args.rooms,
        "seconds": args.seconds,
        "think_s": args.think,
        "replicas": args.replicas,
        "machine": machine(),
    }
    runs = []
    for i in range(args.repeats):
        note(f"repeat {i + 1}/{args.repeats}: {args.rooms} rooms through nginx")
        with (
            tempfile.TemporaryDirectory(prefix="kc-topology-") as directory,
            deployment(Path(directory), args.replicas) as topology,
        ):
            run = measure(topology, shape, args.drain)
        note(
            f"{run['moves_per_s']} moves/s, p99 {run['latency_ms']['p99']} ms, "
            f"review backlog {run['reviews']['backlog_at_end']}"
        )
        runs.append(run)
    record["result"] = median_runs(runs)
    record["runs"] = runs
    emit(record)
    sys.stderr.write(tables(record["result"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
