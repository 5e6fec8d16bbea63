"""``python -m server``: the server's own command line (``serve``, ``worker``, ``admin``).

The ``kings-corner`` command (:mod:`kings_corner.__main__`) offers these and the clients; this
module imports no client, so the server runs without the clients' dependencies.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Mapping, Sequence


def serve(argv: Sequence[str]) -> int:
    """Run the game server with settings from ``argv`` and ``KC_*`` (see server.config)."""
    from . import logs
    from .app import run
    from .config import load
    from .event_loop import loop_factory

    settings = load(argv)
    logs.setup(settings.log_level, settings.log_format)
    with asyncio.Runner(loop_factory=loop_factory(settings.uvloop)) as runner:
        runner.run(run(settings))
    return 0


def worker(argv: Sequence[str]) -> int:
    """Run a review worker (the review tier, over Redis) with settings as ``serve``'s."""
    from .review_worker import main as worker_main

    return worker_main(argv)


def _admin(argv: Sequence[str]) -> int:
    from .admin import main as admin_main

    return admin_main(argv)


COMMANDS = {
    "serve": (serve, "run the game server (WebSocket, web client and /healthz on one port)"),
    "worker": (worker, "compute the coach's reviews for game servers on Redis (the review tier)"),
    "admin": (_admin, "list rooms, close a room, kick a connection (needs the admin token)"),
}


Command = Callable[[Sequence[str]], int]


def dispatch(prog: str, commands: Mapping[str, tuple[Command, str]], argv: Sequence[str]) -> int:
    """Run the command ``argv`` names with the rest of it, or print the usage of ``prog``."""
    args = list(argv)
    if not args or args[0] not in commands:
        lines = [f"  {name:7} {help_}" for name, (_, help_) in commands.items()]
        print(f"usage: {prog} COMMAND [options]\n\ncommands:\n" + "\n".join(lines))
        return 0 if args and args[0] in ("-h", "--help") else 2
    command, _ = commands[args[0]]
    return command(args[1:])


def main(argv: Sequence[str] | None = None) -> int:
    return dispatch("python -m server", COMMANDS, sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
