"""The ``kings-corner`` command line."""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence

from protocol.engine import Options, legal_actions, new_match


def _demo(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    match = new_match(Options(seats=args.seats), seed=args.seed)
    while match.phase != "finished":
        if match.phase == "hand_over":
            match = match.next_hand()
            continue
        seat = match.position.turn
        action = rng.choice(legal_actions(match.position))
        match = match.apply(action)
        print(f"hand {match.hand_index + 1} seat {seat}: {action.text()}")
        if match.position.result is not None:
            r = match.position.result
            totals = list(match.totals)
            print(f"hand over ({r.reason}), penalties {list(r.penalties)}, totals {totals}")
    print(f"match over: winners {list(match.winners)}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kings-corner", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="print a match played by random bots")
    demo.add_argument("--seats", type=int, default=4)
    demo.add_argument("--seed", default="demo")
    demo.set_defaults(func=_demo)
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
