"""The ``kings-corner`` command line: serve, play, bot, arena, demo."""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
from collections.abc import Sequence

from protocol.engine import Options, legal_actions, new_match


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
    from . import logs
    from .app import run
    from .config import load
    from .event_loop import loop_factory

    settings = load(argv)
    logs.setup(settings.log_level, settings.log_format)
    with asyncio.Runner(loop_factory=loop_factory(settings.uvloop)) as runner:
        runner.run(run(settings))
    return 0


def _play(argv: Sequence[str]) -> int:
    from clients.terminal.app import main as play_main

    return play_main(argv)


def _replay(argv: Sequence[str]) -> int:
    from clients.terminal.replay import main as replay_main

    return replay_main(argv)


def _bot(argv: Sequence[str]) -> int:
    from clients.bot.run import main as bot_main

    return bot_main(argv)


def _admin(argv: Sequence[str]) -> int:
    from .admin import main as admin_main

    return admin_main(argv)


def _arena(argv: Sequence[str]) -> int:
    from protocol.bots.arena import main as arena_main

    return arena_main(argv)


COMMANDS = {
    "serve": (_serve, "run the game server (WebSocket, web client and /healthz on one port)"),
    "play": (_play, "play in the terminal against bots or friends (full screen; --plain: lines)"),
    "replay": (_replay, "step through a finished match: replay ID [--url http://HOST:PORT]"),
    "bot": (_bot, "connect a bot to a room over the network"),
    "admin": (_admin, "list rooms, close a room, kick a connection (needs the admin token)"),
    "arena": (_arena, "measure bot levels against each other"),
    "demo": (_demo, "print a match played by random bots, without a server"),
}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in COMMANDS:
        lines = [f"  {name:7} {help_}" for name, (_, help_) in COMMANDS.items()]
        print("usage: kings-corner COMMAND [options]\n\ncommands:\n" + "\n".join(lines))
        return 0 if args and args[0] in ("-h", "--help") else 2
    command, _ = COMMANDS[args[0]]
    return command(args[1:])


if __name__ == "__main__":
    sys.exit(main())
