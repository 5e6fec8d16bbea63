"""The ``kings-corner`` command line (and ``python -m kings_corner``): serve, worker, play,
replay, bot, admin, arena, demo.

Each command imports its program only when it runs, so ``kings-corner serve`` needs the
server's dependencies alone; the full-screen terminal client needs the ``terminal`` extra.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Sequence

from protocol.engine import Options, legal_actions, new_match

#: What to install when the terminal client's dependencies are missing.
TERMINAL_EXTRA = "pip install 'kings-corner[terminal]'"


def _demo(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="kings-corner demo")
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--seed", default="demo")
    args = parser.parse_args(argv)
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


def _serve(argv: Sequence[str]) -> int:
    from server.__main__ import serve

    return serve(argv)


def _worker(argv: Sequence[str]) -> int:
    from server.__main__ import worker

    return worker(argv)


def _admin(argv: Sequence[str]) -> int:
    from server.admin import main as admin_main

    return admin_main(argv)


def _terminal(program: Callable[[], Callable[[Sequence[str]], int]]) -> Callable[..., int]:
    """Run a terminal program; say what to install when its dependencies are missing."""

    def run(argv: Sequence[str]) -> int:
        try:
            main = program()
            return main(argv)
        except ModuleNotFoundError as exc:
            if (exc.name or "").split(".")[0] != "textual":
                raise
            print(
                f"the full-screen terminal client needs its extra: {TERMINAL_EXTRA}"
                " (or use --plain)",
                file=sys.stderr,
            )
            return 2

    return run


def _play_program() -> Callable[[Sequence[str]], int]:
    from clients.terminal.cli import play

    return play


def _replay_program() -> Callable[[Sequence[str]], int]:
    from clients.terminal.cli import replay_match

    return replay_match


def _bot(argv: Sequence[str]) -> int:
    from clients.bot.run import main as bot_main

    return bot_main(argv)


def _arena(argv: Sequence[str]) -> int:
    from protocol.bots.arena import main as arena_main

    return arena_main(argv)


COMMANDS: dict[str, tuple[Callable[[Sequence[str]], int], str]] = {
    "serve": (_serve, "run the game server (WebSocket, web client and /healthz on one port)"),
    "worker": (
        _worker,
        "compute the coach's reviews for game servers on Redis (the review tier)",
    ),
    "play": (
        _terminal(_play_program),
        "play in the terminal against bots or friends (full screen; --plain: lines)",
    ),
    "replay": (
        _terminal(_replay_program),
        "step through a finished match: replay ID [--url http://HOST:PORT]",
    ),
    "bot": (_bot, "connect a bot to a room over the network"),
    "admin": (_admin, "list rooms, close a room, kick a connection (needs the admin token)"),
    "arena": (_arena, "measure bot levels against each other"),
    "demo": (_demo, "print a match played by random bots, without a server"),
}


def main(argv: Sequence[str] | None = None) -> int:
    from server.__main__ import dispatch

    return dispatch("kings-corner", COMMANDS, sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
