"""benchmarks/topology.py's arithmetic and tables, on made-up counters (no process started:
the benchmark itself takes minutes and is run by hand, docs/capacity.md)."""

from __future__ import annotations

import os

import pytest

from benchmarks.topology import Sample, figures, markdown, median_runs, parse_args, tables


def _sample(at: float, scale: int, cpu: float, stream: dict[str, int]) -> Sample:
    nodes = {
        f"127.0.0.1:{port}": {
            "commands": 1000 + scale * 6 * share,
            "bytes_in": 5000 + scale * 300 * share,
            "bytes_out": 7000 + scale * 100 * share,
            "cmd_evalsha": 10 + scale * share,
            "cmd_spublish": 3 + scale * share,
            "messages_sent": 100 + scale,
            "messages_received": 100 + scale,
        }
        for port, share in ((7001, 1), (7002, 2), (7003, 3))
    }
    processes = {"server-1": cpu, "review-worker": cpu / 2, "nginx": cpu / 10}
    processes.update({f"redis-{p}": cpu / 100 for p in (7001, 7002, 7003)})
    return Sample(at, processes, nodes, stream, (cpu, 10 * cpu))


def test_the_arguments_default_to_the_paced_plan_and_refuse_nonsense() -> None:
    args = parse_args([])
    assert (args.rooms, args.think, args.replicas, args.routed) == (300, 1.0, 0, "all")
    assert parse_args(["--rooms", "50", "--replicas", "1"]).replicas == 1
    with pytest.raises(SystemExit):
        parse_args(["--rooms", "0"])


def test_figures_are_per_move_per_shard_and_per_process() -> None:
    before = _sample(100.0, 0, 10.0, {"added": 5, "read": 5, "pending": 1})
    # 10 s later, 600 moves (shares 1:2:3 of the appends over the shards): 100 each share.
    after = _sample(110.0, 100, 20.0, {"added": 25, "read": 20, "pending": 1})
    drained = _sample(130.0, 100, 30.0, {"added": 25, "read": 25, "pending": 0})
    run = figures(before, after, drained, 600)
    busiest = run["nodes"]["127.0.0.1:7003"]
    assert busiest["commands_per_move"] == pytest.approx(6 * 300 / 600)
    assert busiest["evalsha_per_move"] == pytest.approx(0.5)
    assert busiest["bytes_in_per_move"] == pytest.approx(150)
    assert busiest["announcements"] == 300
    assert busiest["bus_sent_per_s"] == pytest.approx(10)
    server = run["processes"]["server-1"]
    assert server["cpu_pct"] == pytest.approx(100.0)
    assert server["cpu_us_per_move"] == pytest.approx(10 / 600 * 1e6, rel=1e-3)
    # The worker: 10 CPU-seconds (window and drain) for the 21 jobs finished meanwhile
    # (read 5 -> 25, pending 1 -> 0), 20 of them added in the window.
    reviews = run["reviews"]
    assert reviews["jobs_done"] == 21 and reviews["jobs_added"] == 20
    assert reviews["cpu_ms_per_job"] == pytest.approx(10 / 21 * 1e3, abs=0.01)
    assert reviews["cpu_us_per_move"] == pytest.approx(10 / 21 * 20 / 600 * 1e6, abs=0.1)
    assert reviews["backlog_at_end"] == 6
    assert run["machine_cpu_pct"] == pytest.approx(10.0 * (os.cpu_count() or 1))


def test_medians_order_the_shards_by_their_appends_and_print_as_tables() -> None:
    before = _sample(0.0, 0, 1.0, {"added": 0, "read": 0, "pending": 0})
    runs = [
        figures(before, _sample(10.0, n, 2.0, {"added": 1, "read": 1, "pending": 0}), before, 600)
        for n in (100, 200, 300)
    ]
    for n, run in enumerate(runs):
        latency = {"p50": 2.0, "p99": 10.0 * (n + 1)}
        run.update(moves_per_s=60.0, latency_ms=latency, fanout_ms=latency)
    result = median_runs(runs)
    assert result["p99_ms"] == 20.0
    assert [s["evalsha_per_move"] for s in result["shards"]] == [1.0, 0.667, 0.333]
    text = tables(result)
    assert "| shard | commands / move |" in text and "| review-worker |" in text
    assert markdown(["a", "b"], [[1234, None], [0.25, 1500.0]]).splitlines()[2:] == [
        "| 1,234 | \N{EN DASH} |",
        "| 0.2 | 1,500 |",
    ]
