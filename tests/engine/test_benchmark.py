"""The engine benchmark runs and reports one JSON line."""

from __future__ import annotations

import json

import pytest

from benchmarks.engine import main


def test_the_engine_benchmark_prints_one_json_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--hands", "5", "--seed", "t", "--seats", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    assert record["hands"] == 5
    assert record["actions"] > 5 * 7
    assert record["actions_per_s"] > 0
    assert record["hands_per_s"] > 0
    assert record["seconds"] > 0
    assert record["python"]
    assert record["options"]["seats"] == 3


def test_the_same_seed_plays_the_same_actions(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--hands", "4", "--seed", "same"])
    main(["--hands", "4", "--seed", "same"])
    first, second = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert first["actions"] == second["actions"]
