"""The terminal programs' entry points, above both of their modes: ``kings-corner play``
and ``kings-corner replay`` choose the full-screen client (:mod:`clients.terminal.tui`) in
a terminal and the line client (:mod:`clients.terminal.app`, :mod:`clients.terminal.replay`)
otherwise. Only this module imports both modes, so neither imports the other."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence

from . import app, replay


def play(argv: Sequence[str] | None = None) -> int:
    """``kings-corner play``: full screen in a terminal, else line mode. Full screen, a
    room named by ``--create``, ``--join``, ``--watch``, ``--quick`` or ``--daily`` is
    entered at once; without one the lobby comes first."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    args = app.parser().parse_args(args_list)
    if app.full_screen(args):
        from . import tui  # Textual is loaded only for the full screen

        named = args.create or args.join or args.watch or args.quick or args.daily
        return tui.play(args, app.entry_from(args) if named else None)
    try:
        return asyncio.run(app.amain(args_list))
    except KeyboardInterrupt:
        return 130


def replay_match(argv: Sequence[str] | None = None) -> int:
    """``kings-corner replay``: the full-screen replay in a terminal (unless ``--plain``),
    else the line replay."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    args = replay.parser().parse_args(args_list)
    if not args.plain and sys.stdin.isatty() and sys.stdout.isatty():
        from . import tui

        return tui.replay(args)
    return replay.main(args_list)


__all__ = ["play", "replay_match"]
