"""The arena's statistics and a small duplicate run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from protocol.bots.arena import duplicate_games, main, run
from protocol.bots.stats import bootstrap_mean, percentile, wilson


def test_wilson_interval_known_values() -> None:
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3)
    assert hi == pytest.approx(0.5962, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0
    assert wilson(0, 0) == (0.0, 1.0)


def test_bootstrap_interval_brackets_the_mean() -> None:
    values = [float(v % 7) for v in range(200)]
    lo, hi = bootstrap_mean(values)
    mean = sum(values) / len(values)
    assert lo < mean < hi
    assert hi - lo < 1.5
    assert bootstrap_mean([2.0, 2.0, 2.0]) == (2.0, 2.0)


def test_percentile_nearest_rank() -> None:
    assert percentile([float(v) for v in range(1, 101)], 0.99) == 99.0
    assert percentile([], 0.5) == 0.0


def test_duplicate_games_seat_the_candidate_everywhere_on_the_same_deals() -> None:
    games = list(duplicate_games("hard", ["easy"], 3, 2))
    assert len(games) == 6
    assert [g.candidate for g in games] == [0, 1, 2, 0, 1, 2]
    assert {g.seed for g in games[:3]} == {games[0].seed}
    for g in games:
        assert g.levels[g.candidate] == "hard"
        assert sorted(g.levels) == ["easy", "easy", "hard"]


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_small_run_reports_sane_figures(seats: int) -> None:
    s = run("heuristic", ["random"], seats, 3, budget_ms=None)
    assert s["matches"] == 3 * seats
    assert s["hands"] >= s["matches"]
    assert s["deals"] >= 3
    lo, hi = s["hand_win_ci"]
    assert 0.0 <= lo <= s["hand_win"] <= hi <= 1.0
    assert 0.0 <= s["match_win"] <= 1.0
    assert 0.0 <= s["blocked"] <= 1.0
    dlo, dhi = s["penalty_diff_ci"]
    assert dlo <= s["penalty_diff"] <= dhi
    assert s["turn_ms_p99"] >= s["call_ms_p50"] >= 0.0
    # The advice beats random moves by a wide margin.
    assert s["hand_win"] > 1.0 / seats


def test_mirror_run_is_even_on_penalties() -> None:
    s = run("heuristic", ["heuristic"], 4, 3, budget_ms=None)
    assert s["hand_win"] == pytest.approx(0.25, abs=1e-9)
    assert s["penalty_diff"] == pytest.approx(0.0, abs=1e-9)


def test_main_prints_one_json_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "--candidate",
                "easy",
                "--opponents",
                "random",
                "--seats",
                "2",
                "--matches",
                "2",
                "--json",
            ]
        )
        == 0
    )
    line = capsys.readouterr().out.strip()
    data = json.loads(line)
    assert data["candidate"] == "easy" and data["seats"] == 2


def test_a_short_duplicate_run_shows_the_heuristic_beating_random_play() -> None:
    s = run("heuristic", ["random"], 2, 30, budget_ms=None)
    assert s["hand_win_ci"][0] > 0.5


def test_games_file_gets_one_record_per_match(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    args = ["--candidate", "heuristic", "--opponents", "random", "--seats", "3", "--matches", "2"]
    assert main([*args, "--budget-ms", "0", "--json", "--games", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 2 * 3
    for record in records:
        assert sorted(record["levels"]) == ["heuristic", "random", "random"]
        assert max(record["totals"]) >= 25
        low = min(record["totals"])
        assert record["winners"] == [i for i, t in enumerate(record["totals"]) if t == low]
