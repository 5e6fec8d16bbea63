"""Decision latency of every bot level: the time to play one whole turn.

Turn-start positions come from seeded matches between heuristic bots (2, 3 and 4 seats).
For each level a fresh bot plays each of those turns from its first action to ``end``;
the time of all its ``choose`` calls in the turn is one sample. Prints one JSON line per
level::

    python -m benchmarks.bots --turns 600 --levels hard,expert
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time
from collections.abc import Sequence

from protocol.bots import LEVELS, make_bot
from protocol.bots.levels import DEFAULT_BUDGET_MS
from protocol.bots.stats import percentile
from protocol.engine import Match, Options, new_match, seat_view


def turn_starts(count: int, seed: str) -> list[Match]:
    """``count`` matches stopped at the start of a turn, from seeded heuristic play."""
    out: list[Match] = []
    game = 0
    while len(out) < count:
        seats = 2 + game % 3
        match = new_match(Options(seats=seats), seed=f"{seed}:{game}")
        bots = [make_bot("heuristic", f"{seed}:{game}:{s}") for s in range(seats)]
        while match.phase != "finished" and len(out) < count:
            if match.phase == "hand_over":
                match = match.next_hand()
                continue
            if not match.position.moved:
                out.append(match)
            seat = match.position.turn
            match = match.apply(bots[seat].choose(seat_view(match, seat)), seat)
        game += 1
    return out


def time_turn(level: str, match: Match, budget_ms: float | None, seed: int) -> tuple[float, float]:
    """Wall and CPU milliseconds a fresh ``level`` bot spends deciding one whole turn.

    CPU time is what the turn costs on an otherwise idle core; wall time includes waiting
    for a busy machine.
    """
    bot = make_bot(level, seed, budget_ms=budget_ms)
    seat = match.position.turn
    wall = cpu = 0.0
    while match.phase == "playing" and match.position.turn == seat:
        view = seat_view(match, seat)
        started, started_cpu = time.perf_counter(), time.process_time()
        action = bot.choose(view)
        wall += time.perf_counter() - started
        cpu += time.process_time() - started_cpu
        match = match.apply(action, seat)
        if action.text() == "end":
            break
    return wall * 1000.0, cpu * 1000.0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=600)
    parser.add_argument("--levels", default=",".join(LEVELS))
    parser.add_argument("--budget-ms", type=float, default=DEFAULT_BUDGET_MS)
    parser.add_argument("--seed", default="bench")
    args = parser.parse_args(argv)
    budget = args.budget_ms if args.budget_ms > 0 else None
    starts = turn_starts(args.turns, args.seed)
    for level in args.levels.split(","):
        gc.collect()
        timed = [time_turn(level, m, budget, i) for i, m in enumerate(starts)]
        wall = [w for w, _ in timed]
        cpu = [c for _, c in timed]
        line = {
            "bench": "bot_turn_latency",
            "level": level,
            "turns": len(timed),
            "budget_ms": budget,
            "cpus": os.cpu_count(),
            "load1": round(os.getloadavg()[0], 2),
            "mean_ms": round(sum(wall) / len(wall), 3),
            "p50_ms": round(percentile(wall, 0.50), 3),
            "p99_ms": round(percentile(wall, 0.99), 3),
            "max_ms": round(max(wall), 3),
            "cpu_p50_ms": round(percentile(cpu, 0.50), 3),
            "cpu_p99_ms": round(percentile(cpu, 0.99), 3),
            "cpu_max_ms": round(max(cpu), 3),
        }
        print(json.dumps(line), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
