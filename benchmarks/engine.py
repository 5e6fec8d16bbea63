"""Rules-engine throughput: seeded random hands on one core, one JSON line per run.

Every step asks :func:`protocol.engine.legal_actions` for the seat to move, picks one of
them uniformly at random and applies it with :meth:`protocol.engine.Match.apply`, exactly
as a server validating bots' moves would. Matches are played to their end (dealing each
next hand with :meth:`Match.next_hand`); a new seeded match starts when one finishes.

Usage::

    python -m benchmarks.engine                 # 10 seconds, 4 seats
    python -m benchmarks.engine --hands 2000 --seed 7 --seats 2
    python -m benchmarks.engine --seconds 5 --profile   # top functions on stderr

Only the standard library and the engine are imported, so the figure is the engine's own.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import platform
import pstats
import random
import sys
import time
from typing import Any, get_args

from protocol.engine import Options, legal_actions, new_match
from protocol.options_table import DrawRule


def play(
    options: Options, seed: str, *, seconds: float | None, hands: int | None
) -> dict[str, Any]:
    """Play random hands until ``seconds`` have passed or ``hands`` are done."""
    rng = random.Random(f"bench:{seed}")
    played = actions = matches = 0
    choice = rng.choice
    start = time.perf_counter()
    cpu_start = time.process_time()
    deadline = start + seconds if seconds is not None else float("inf")
    limit = hands if hands is not None else sys.maxsize
    match = new_match(options, seed=f"{seed}:0")
    while played < limit and time.perf_counter() < deadline:
        position = match.position
        while position.result is None:
            match = match.apply(choice(legal_actions(position)))
            position = match.position
            actions += 1
        played += 1
        if match.phase == "finished":
            matches += 1
            match = new_match(options, seed=f"{seed}:{matches}")
        else:
            match = match.next_hand()
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    return {
        "benchmark": "engine",
        "actions_per_s": round(actions / elapsed),
        "hands_per_s": round(played / elapsed, 1),
        "actions": actions,
        "hands": played,
        "matches_finished": matches,
        "seconds": round(elapsed, 3),
        # CPU time of this process: the fairer figure when other work shares the machine.
        "cpu_seconds": round(cpu, 3),
        "actions_per_cpu_s": round(actions / cpu),
        "seed": seed,
        "options": options.to_dict(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "load_avg_1m": round(os.getloadavg()[0], 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--seconds", type=float, help="play for this long (default 10)")
    budget.add_argument("--hands", type=int, help="play exactly this many hands")
    parser.add_argument("--seed", default="0", help="seed of the deals and the choices")
    parser.add_argument("--seats", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument("--draw", default="end", choices=get_args(DrawRule))
    parser.add_argument("--kings-first", action="store_true")
    parser.add_argument(
        "--profile", action="store_true", help="also print the top functions on stderr"
    )
    args = parser.parse_args(argv)
    seconds = args.seconds if args.seconds is not None or args.hands is not None else 10.0
    options = Options(seats=args.seats, draw=args.draw, kings_first=args.kings_first)
    profiler = cProfile.Profile() if args.profile else None
    if profiler is not None:
        profiler.enable()
    record = play(options, args.seed, seconds=seconds, hands=args.hands)
    if profiler is not None:
        profiler.disable()
        record["profiled"] = True
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(15)
    print(json.dumps(record), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
