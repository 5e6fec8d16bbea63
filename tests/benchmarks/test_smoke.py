"""Each server benchmark runs at a tiny size and prints one valid JSON line.

They run concurrently (each in its own subprocess, with its own servers on free ports) so
the whole module stays well under half a minute.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

ROOT = Path(__file__).resolve().parent.parent.parent
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")

TINY: dict[str, list[str]] = {
    "load": "--rooms 2 --seconds 1 --warmup 0.2".split(),
    "idle": "--connections 20 --settle 0.3".split(),
    "deflate": "--moves 300".split(),
    "bot_rooms": (
        "--rooms 2 --bot-rooms 2 --bot-level heuristic --seconds 1 --warmup 0.3 --think 0.05 "
        "--bot-delay 0.05 --hand-pause 0.2"
    ).split(),
    "scaleout": [*"--rooms 2 --seconds 0.5 --warmup 0.1".split(), "--redis-url", REDIS_URL],
}


def _redis_up() -> bool:
    try:
        client = redis.Redis.from_url(REDIS_URL, socket_timeout=1)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except (redis.RedisError, OSError):
        return False


@pytest.fixture(scope="module")
def outputs() -> Iterator[dict[str, subprocess.CompletedProcess[str]]]:
    """Start every benchmark at once, then collect their outputs."""
    # The smoke runs check what the benchmarks measure, not the bots' priority: beside other
    # busy processes an idle-class bot worker may get no CPU within a one-second window.
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KC_BOT_IDLE_CLASS": "0"}
    names = [name for name in TINY if name != "scaleout" or _redis_up()]
    procs = {
        name: subprocess.Popen(
            [sys.executable, "-m", f"benchmarks.{name}", *TINY[name]],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in names
    }
    done = {}
    try:
        for name, proc in procs.items():
            out, err = proc.communicate(timeout=120)
            done[name] = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
        yield done
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def _record(outputs: dict[str, subprocess.CompletedProcess[str]], name: str) -> dict[str, Any]:
    if name not in outputs:
        pytest.skip(f"{name} needs Redis at {REDIS_URL}")
    result = outputs[name]
    assert result.returncode == 0, result.stderr[-2000:]
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, result.stdout
    record: dict[str, Any] = json.loads(lines[0])
    assert record["bench"] == name
    return record


def test_load_plays_moves_against_our_server_and_the_baseline(
    outputs: dict[str, subprocess.CompletedProcess[str]],
) -> None:
    record = _record(outputs, "load")
    run = record["runs"]["ours"][0]
    assert run["moves"] > 0
    assert run["docs_mismatched"] == 0 and run["docs_checked"] > 0
    assert record["runs"]["baseline"][0]["moves"] > 0
    assert record["ratio_moves"] > 0
    assert record["ours"]["bytes"]["seat"]["snapshot_median"] > 0


def test_idle_reports_memory_per_connection_for_both_servers(
    outputs: dict[str, subprocess.CompletedProcess[str]],
) -> None:
    record = _record(outputs, "idle")
    assert record["ours"]["runs"][0]["opened"] == 20
    assert record["baseline"]["runs"][0]["opened"] == 20
    assert "kib_per_connection" in record["ours"]


def test_scaleout_compares_one_and_two_processes_over_redis(
    outputs: dict[str, subprocess.CompletedProcess[str]],
) -> None:
    record = _record(outputs, "scaleout")
    assert set(record["results"]) == {"memory", "redis_1", "redis_2_sticky"}
    assert all(r[0]["moves"] > 0 for r in record["runs"].values())
    assert record["ratio_two_to_one"] is not None
    # What Redis did per move (the smoke run shares its Redis with the suite: only present).
    assert record["results"]["redis_1"]["redis_per_move"]["evalsha"] > 0
    assert "redis_per_move" not in record["results"]["memory"]


def test_deflate_sizes_patches_and_snapshots_both_ways(
    outputs: dict[str, subprocess.CompletedProcess[str]],
) -> None:
    record = _record(outputs, "deflate")
    for kind in ("seat", "spectator"):
        sizes = record[kind]
        assert 0 < sizes["patch_deflated"] < sizes["patch"] < sizes["snapshot"]
        assert 0 < sizes["snapshot_deflated"] < sizes["snapshot"]
        assert sizes["patch_share"] == round(sizes["patch"] / sizes["snapshot"], 3)


def test_bot_rooms_measures_people_alone_and_beside_watched_bot_rooms(
    outputs: dict[str, subprocess.CompletedProcess[str]],
) -> None:
    record = _record(outputs, "bot_rooms")
    alone, beside = record["runs"]["alone"][0], record["runs"]["beside_bots"][0]
    assert alone["moves"] > 0 and beside["moves"] > 0
    assert "bot_rooms" not in alone
    assert beside["bot_rooms"] == 2 and beside["bot_changes_per_s"] > 0  # watched: not paused
    # The bots thought in worker processes, which were found and measured (their CPU over a
    # one-second smoke window can round to 0 at the kernel's 10 ms accounting).
    assert beside["bot_workers"] >= 1 and beside["bot_workers_cpu_pct"] >= 0
    assert record["ratio_p99"] == round(beside["latency_ms"]["p99"] / alone["latency_ms"]["p99"], 2)
