"""Server load: scripted 4-seat rooms plus a spectator each, against our server and a bare
``websockets`` baseline, in the same run.

Each run starts the server as a subprocess (``python -m server serve --port 0`` with no bot
delay and the rate limit raised), then the load generator in its own process(es)
(:mod:`benchmarks._loadgen`), which opens ``--rooms`` rooms over real WebSocket connections on
loopback and plays legal moves as fast as the game allows. Then the same shape of load runs
against :mod:`benchmarks.baseline_server`, whose patches are padded to the median patch size
just measured, and our throughput is reported as a ratio of the baseline's::

    python -m benchmarks.load --rooms 100 --seconds 20
    python -m benchmarks.load --rooms 1000 --seconds 20 --repeats 3
    python -m benchmarks.load --rooms 100 --seconds 20 --redis-url redis://127.0.0.1:6379/0

Prints one JSON line per invocation: medians over ``--repeats`` (each repeat runs our server
then the baseline, each on a fresh process) and every repeat's figures. Latency is from
sending an ``act`` to receiving the patch answering its ``seq`` (``fanout``: to the room's
spectator receiving the same change). CPU is in percent of one core, read from ``/proc``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import orjson

from ._common import ROOT as _ROOT
from ._common import (
    ProcSample,
    ServerProcess,
    add_server_flags,
    baseline_server_argv,
    cpu_percent,
    emit,
    game_server_argv,
    listen_overflows,
    machine,
    median,
    median_of,
    note,
    percentile,
    proc_sample,
    python_env,
    raise_nofile,
    rounded,
    server_root,
    size_median,
    start_process,
    wait_percent,
)

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
#: Targets from the issue: throughput vs the baseline and p99 latency at 1,000 rooms.
TARGET_RATIO = 0.5
TARGET_P99_MS = 50.0
TARGET_PATCH_SHARE = 0.10


@dataclass
class LoadShape:
    """How the load generator drives the servers."""

    rooms: int
    seconds: float
    workers: int = 1
    warmup: float = 2.0
    think: float = 0.0
    placement: str = "sticky"
    #: Through a load balancer routing by room: "", "guests" or "all" (benchmarks/_loadgen.py).
    routed: str = ""
    seed: int = 1
    #: Rooms being set up at once (5 connections each): keep the connections opening at
    #: once under the servers' listen backlog (asyncio's default is 100).
    concurrency: int = 16


@dataclass
class Worker:
    """One load-generator process."""

    proc: subprocess.Popen[bytes]
    ready: dict[str, Any] = field(default_factory=dict)

    def line(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        while True:
            raw = self.proc.stdout.readline()
            if not raw:
                raise RuntimeError(f"load worker {self.proc.pid} exited ({self.proc.poll()})")
            if raw.startswith(b"{"):
                record: dict[str, Any] = orjson.loads(raw)
                return record

    def tell(self, word: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(word.encode() + b"\n")
        self.proc.stdin.flush()


def _start_workers(urls: Sequence[str], shape: LoadShape) -> list[Worker]:
    workers = []
    per, extra = divmod(shape.rooms, shape.workers)
    first = 0
    for i in range(shape.workers):
        count = per + (1 if i < extra else 0)
        config = {
            "urls": list(urls),
            "rooms": count,
            "first_room": first,
            "think": shape.think,
            "placement": shape.placement,
            "routed": shape.routed,
            "seed": shape.seed,
            "concurrency": max(1, shape.concurrency // shape.workers),
        }
        first += count
        proc = subprocess.Popen(
            [sys.executable, "-m", "benchmarks._loadgen", orjson.dumps(config).decode()],
            cwd=_ROOT,
            env=python_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        workers.append(Worker(proc))
    return workers


def redis_counters(url: str) -> dict[str, int]:
    """Commands Redis ran, by command and in all, and the bytes it read and wrote."""
    import redis

    client = redis.Redis.from_url(url)
    try:
        stats = client.info("stats")
        commands = client.info("commandstats")
    finally:
        client.close()
    out = {
        "commands": int(stats["total_commands_processed"]),
        "bytes_in": int(stats["total_net_input_bytes"]),
        "bytes_out": int(stats["total_net_output_bytes"]),
    }
    for name, figures in commands.items():
        out[name.removeprefix("cmdstat_")] = int(figures["calls"])
    return out


def per_move(before: dict[str, int], after: dict[str, int], moves: int) -> dict[str, float]:
    """What Redis did per acknowledged move in a window (commands that ran in it only)."""
    out: dict[str, float] = {}
    for key, value in after.items():
        spent = value - before.get(key, 0)
        if spent and moves:
            out[key] = round(spent / moves, 2)
    return out


def drive(
    urls: Sequence[str],
    server_pids: Sequence[int],
    shape: LoadShape,
    others: dict[str, int] | None = None,
    redis_url: str | None = None,
) -> dict[str, Any]:
    """Run the load generator against ``urls`` and summarise one measurement window.

    ``others`` names more processes whose CPU and memory to report (e.g. Redis). With
    ``redis_url``, what that Redis did per move in the window is reported too (meaningful
    when nothing else uses that Redis meanwhile).
    """
    others = {k: v for k, v in (others or {}).items() if Path(f"/proc/{v}/stat").exists()}
    overflows = listen_overflows()
    workers = _start_workers(urls, shape)
    try:
        for worker in workers:
            worker.ready = worker.line()
        setup = max(w.ready["setup_s"] for w in workers)
        time.sleep(shape.warmup)
        pids = [*server_pids, *(w.proc.pid for w in workers), *others.values()]
        before = {pid: proc_sample(pid) for pid in pids}
        redis_before = redis_counters(redis_url) if redis_url else {}
        for worker in workers:
            worker.tell("go")
        time.sleep(shape.seconds)
        for worker in workers:
            worker.tell("stop")
        after = {pid: proc_sample(pid) for pid in pids}
        redis_after = redis_counters(redis_url) if redis_url else {}
        results = [w.line()["result"] for w in workers]
        for worker in workers:
            worker.proc.wait(60)
    finally:
        for worker in workers:
            if worker.proc.poll() is None:
                worker.proc.kill()
                worker.proc.wait()
    summary = summarise(results, shape)
    summary["setup_s"] = setup
    summary["listen_overflows"] = listen_overflows() - overflows
    summary["server"] = _cpu_mem(server_pids, before, after)
    summary["loadgen"] = _cpu_mem([w.proc.pid for w in workers], before, after)
    for name, pid in others.items():
        summary[name] = _cpu_mem([pid], before, after)
    summary["codes"] = [code for r in results for code in r["codes"]]
    if redis_url:
        moves = sum(r["moves"] for r in results)
        summary["redis_per_move"] = per_move(redis_before, redis_after, moves)
        if "redis" in summary and moves:
            # CPU time, so it holds on a busy machine too (percent of a core over the window).
            spent = summary["redis"]["cpu_pct"] / 100 * shape.seconds
            summary["redis_per_move"]["cpu_us"] = round(spent / moves * 1e6, 1)
    cpu = summary["server"]["cpu_pct"]
    summary["moves_per_server_cpu_s"] = (
        round(summary["moves_per_s"] / cpu * 100, 1) if cpu else None
    )
    return summary


def _cpu_mem(
    pids: Sequence[int], before: dict[int, ProcSample], after: dict[int, ProcSample]
) -> dict[str, Any]:
    return {
        "cpu_pct": round(sum(cpu_percent(before[p], after[p]) for p in pids), 1),
        "cpu_pct_each": [round(cpu_percent(before[p], after[p]), 1) for p in pids],
        "runq_wait_pct_each": [round(wait_percent(before[p], after[p]), 1) for p in pids],
        "peak_rss_mib": round(sum(after[p].hwm_kib for p in pids) / 1024, 1),
        "rss_mib": round(sum(after[p].rss_kib for p in pids) / 1024, 1),
    }


def _merge_hist(results: list[dict[str, Any]], key: str, kind: str) -> dict[int, int]:
    total: Counter[int] = Counter()
    for r in results:
        for size, count in r[key][kind].items():
            total[int(size)] += count
    return dict(total)


def summarise(results: list[dict[str, Any]], shape: LoadShape) -> dict[str, Any]:
    """Merge the workers' counts into rates, percentiles and medians."""
    moves_per_s = sum(r["moves"] / r["window_s"] for r in results if r["window_s"] > 0)
    latencies = sorted(x / 1000 for r in results for x in r["lat_us"])
    fanout = sorted(x / 1000 for r in results for x in r["fanout_us"])
    window = max(r["window_s"] for r in results)
    sizes: dict[str, Any] = {}
    for kind in ("seat", "spectator"):
        patches = _merge_hist(results, "patch_sizes", kind)
        snapshots = _merge_hist(results, "snapshot_sizes", kind)
        patch, snapshot = size_median(patches), size_median(snapshots)
        sizes[kind] = {
            "patch_median": patch,
            "snapshot_median": snapshot,
            "patch_share": rounded(patch / snapshot, 4) if patch and snapshot else None,
        }
    parts = {}
    for part in ("ops", "log", "envelope"):
        merged: Counter[int] = Counter()
        for r in results:
            for size, count in r.get("patch_parts", {}).get(part, {}).items():
                merged[int(size)] += count
        parts[part] = size_median(dict(merged))
    sizes["patch_parts_median"] = parts
    every: Counter[int] = Counter(_merge_hist(results, "patch_sizes", "seat"))
    every.update(_merge_hist(results, "patch_sizes", "spectator"))
    errors: Counter[str] = Counter()
    for r in results:
        errors.update(r["errors"])
    return {
        "rooms": sum(r["rooms"] for r in results),
        "rooms_failed": sum(r["rooms_failed"] for r in results),
        "window_s": round(window, 2),
        "moves": sum(r["moves"] for r in results),
        "moves_per_s": round(moves_per_s, 1),
        "frames_per_s": round(sum(r["frames"] for r in results) / window, 1) if window else None,
        "recv_mib_per_s": round(sum(r["bytes"] for r in results) / window / 2**20, 2)
        if window
        else None,
        "latency_ms": _percentiles(latencies),
        "fanout_ms": _percentiles(fanout),
        "bytes": {"patch_median": size_median(dict(every)), **sizes},
        "errors": dict(errors),
        "refused": sum(r["refused"] for r in results),
        "gaps": sum(r["gaps"] for r in results),
        "hands": sum(r["hands"] for r in results),
        "matches": sum(r["matches"] for r in results),
        "docs_checked": sum(r["docs_checked"] for r in results),
        "docs_mismatched": sum(r["docs_mismatched"] for r in results),
    }


def _percentiles(values: list[float]) -> dict[str, float | None]:
    return {
        "p50": rounded(percentile(values, 50)),
        "p95": rounded(percentile(values, 95)),
        "p99": rounded(percentile(values, 99)),
        "max": rounded(values[-1] if values else None),
    }


async def _delete_rooms(url: str, codes: Sequence[str]) -> None:
    from server.store.redis_store import RedisStore

    store = RedisStore(url)
    try:
        for code in codes:
            await store.delete_room(code)
    finally:
        await store.close()


def redis_pid(url: str) -> int:
    """The PID of the Redis server at ``url`` (0 when unknown, e.g. on another host)."""
    import redis

    client = redis.Redis.from_url(url)
    try:
        return int(client.info("server").get("process_id", 0))
    finally:
        client.close()


def delete_redis_rooms(url: str, codes: Sequence[str]) -> None:
    """Delete the rooms a run stored in Redis (exactly those, by their codes)."""
    if codes:
        asyncio.run(_delete_rooms(url, codes))


def run_ours(
    shape: LoadShape,
    redis_url: str | None = None,
    processes: int = 1,
    profile: Path | None = None,
    root: Path = _ROOT,
) -> dict[str, Any]:
    """Start ``processes`` game servers (the code in ``root``), drive them, stop them."""
    servers: list[ServerProcess] = []
    wrapper: list[str] = []
    if profile is not None:
        py_spy = Path(sys.executable).with_name("py-spy")
        wrapper = [str(py_spy), "record", "--nonblocking", "--format", "raw"]
        wrapper += ["--rate", "200", "-o", str(profile), "--"]
    pids: list[int] = []
    try:
        for _ in range(processes):
            server = start_process(game_server_argv(redis_url, wrapper=wrapper), root=root)
            servers.append(server)
            pids.append(_server_pid(server, bool(wrapper)))
        others = {"redis": redis_pid(redis_url)} if redis_url else {}
        summary = drive([s.url for s in servers], pids, shape, others, redis_url)
    finally:
        for server, pid in zip(servers, pids, strict=False):
            server.stop(target=pid if wrapper else None)
        for server in servers[len(pids) :]:
            server.stop()
    if redis_url:
        delete_redis_rooms(redis_url, summary["codes"])
    return summary


def _server_pid(server: ServerProcess, wrapped: bool) -> int:
    """The server's own PID (a child of py-spy when profiling)."""
    if not wrapped:
        return server.pid
    for task in Path(f"/proc/{server.pid}/task").iterdir():
        children = (task / "children").read_text().split()
        if children:
            return int(children[0])
    raise RuntimeError("py-spy has no child process")


def run_baseline(shape: LoadShape, patch_bytes: int, snapshot_bytes: int) -> dict[str, Any]:
    """Start the bare websockets server with the given frame sizes, drive it, stop it."""
    server = start_process(
        baseline_server_argv(patch_bytes, ["--snapshot-bytes", str(snapshot_bytes)])
    )
    try:
        return drive([server.url], [server.pid], shape)
    finally:
        server.stop()


def medians(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The median over repeats of each headline figure."""
    out: dict[str, Any] = {
        "moves_per_s": median_of(runs, "moves_per_s"),
        "moves_per_server_cpu_s": median_of(runs, "moves_per_server_cpu_s"),
        "latency_ms": {q: median_of(runs, "latency_ms", q) for q in ("p50", "p95", "p99")},
        "fanout_ms": {q: median_of(runs, "fanout_ms", q) for q in ("p50", "p95", "p99")},
        "server_cpu_pct": median_of(runs, "server", "cpu_pct"),
        "server_peak_rss_mib": median_of(runs, "server", "peak_rss_mib"),
        "loadgen_cpu_pct": median_of(runs, "loadgen", "cpu_pct"),
        "server_runq_wait_pct": median_of(runs, "server", "runq_wait_pct_each", "0"),
    }
    out["bytes"] = {
        "patch_median": median_of(runs, "bytes", "patch_median"),
        "patch_parts_median": {
            part: median_of(runs, "bytes", "patch_parts_median", part)
            for part in ("ops", "log", "envelope")
        },
        **{
            kind: {
                k: median_of(runs, "bytes", kind, k)
                for k in ("patch_median", "snapshot_median", "patch_share")
            }
            for kind in ("seat", "spectator")
        },
    }
    keys = sorted({key for run in runs for key in run.get("redis_per_move", {})})
    if keys:
        out["redis_per_move"] = {key: median_of(runs, "redis_per_move", key) for key in keys}
    return out


def _guarded(job: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run one measurement; a failure becomes ``{"error": ...}`` instead of ending the run."""
    try:
        result = job()
    except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
        note(f"run failed: {exc}")
        return {"error": str(exc)[-2000:]}
    note(
        f"set up in {result['setup_s']:.1f} s, {result['moves_per_s']} moves/s, "
        f"p99 {result['latency_ms']['p99']} ms, server CPU {result['server']['cpu_pct']}%"
    )
    return result


def _slim(run: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in run.items() if k != "codes"}


def main(argv: Sequence[str] | None = None) -> int:
    """Parse flags, run the repeats, print one JSON line."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.load", description=__doc__)
    parser.add_argument("--rooms", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1, help="load-generator processes")
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="mean seconds before each action (uniform 0.5x-1.5x)",
    )
    parser.add_argument(
        "--redis-url",
        nargs="?",
        const=os.environ.get("REDIS_URL", DEFAULT_REDIS_URL),
        default=None,
        help="use the Redis store (no value: $REDIS_URL or " + DEFAULT_REDIS_URL + ")",
    )
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--patch-bytes", type=int, default=0, help="baseline patch size")
    parser.add_argument("--profile", type=Path, default=None, help="py-spy raw output file")
    parser.add_argument("--seed", type=int, default=1)
    add_server_flags(parser)
    args = parser.parse_args(argv)
    with server_root(args) as root:
        return _main(args, root, argv)


def _main(args: argparse.Namespace, root: Path, argv: Sequence[str] | None) -> int:
    raise_nofile(max(4096, args.rooms * 5 * 2 + 1024))
    shape = LoadShape(
        rooms=args.rooms,
        seconds=args.seconds,
        workers=args.workers,
        warmup=args.warmup,
        think=args.think,
        seed=args.seed,
    )
    info = machine(root)
    ours: list[dict[str, Any]] = []
    base: list[dict[str, Any]] = []
    patch_bytes, snapshot_bytes = args.patch_bytes, 0
    for i in range(args.repeats):
        note(f"repeat {i + 1}/{args.repeats}: our server, {args.rooms} rooms")
        profile = args.profile if i == 0 else None
        run = _guarded(partial(run_ours, shape, args.redis_url, profile=profile, root=root))
        ours.append(run)
        if not patch_bytes and "error" not in run:
            patch_bytes = int(run["bytes"]["patch_median"] or 0)
        if not snapshot_bytes and "error" not in run:
            snapshot_bytes = int(run["bytes"]["seat"]["snapshot_median"] or 0)
        if not args.no_baseline:
            note(f"repeat {i + 1}/{args.repeats}: baseline, {patch_bytes}-byte patches")
            base.append(_guarded(partial(run_baseline, shape, patch_bytes, snapshot_bytes)))
    record: dict[str, Any] = {
        "bench": "load",
        "command": "python -m benchmarks.load "
        + shlex.join(sys.argv[1:] if argv is None else argv),
        "store": "redis" if args.redis_url else "memory",
        "rooms": args.rooms,
        "connections": args.rooms * 5,
        "seconds": args.seconds,
        "repeats": args.repeats,
        "workers": args.workers,
        "think_s": args.think,
        "machine": info,
        "ours": medians(ours),
    }
    if base:
        record["baseline"] = medians(base)
        record["baseline"]["patch_bytes"] = patch_bytes
        ratios = [
            o["moves_per_s"] / b["moves_per_s"]
            for o, b in zip(ours, base, strict=True)
            if o.get("moves_per_s") is not None and b.get("moves_per_s")
        ]
        record["ratio_moves"] = rounded(median(ratios), 3)
        record["ratio_moves_each"] = [round(r, 3) for r in ratios]
        per_cpu = [
            o["moves_per_server_cpu_s"] / b["moves_per_server_cpu_s"]
            for o, b in zip(ours, base, strict=True)
            if o.get("moves_per_server_cpu_s") and b.get("moves_per_server_cpu_s")
        ]
        record["ratio_moves_per_server_cpu"] = rounded(median(per_cpu), 3)
    p99 = record["ours"]["latency_ms"]["p99"]
    share = record["ours"]["bytes"]["seat"]["patch_share"]
    record["targets"] = {
        "ratio_ge_0.5": None if not base else record["ratio_moves"] >= TARGET_RATIO,
        "p99_le_50ms": None if p99 is None else p99 <= TARGET_P99_MS,
        "patch_le_10pct_of_snapshot": None if share is None else share <= TARGET_PATCH_SHARE,
    }
    record["runs"] = {"ours": [_slim(r) for r in ours], "baseline": [_slim(r) for r in base]}
    emit(record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
