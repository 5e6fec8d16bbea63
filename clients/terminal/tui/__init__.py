"""The full-screen terminal client (Textual): ``kings-corner play`` in a terminal.

:func:`play` and :func:`replay` run it from the parsed command line; the line client
(:mod:`clients.terminal.app`) stays for ``--plain`` and for input that is not a terminal.
"""

from __future__ import annotations

import argparse

from clients.net import GameClient

from ..tokens import TokenFile, default_path
from .app import KingsCornerApp, exit_message
from .look import look_for
from .text import t


def play(args: argparse.Namespace, entry: object = None) -> int:
    """Run the full-screen client for ``kings-corner play`` options (``entry``: the room
    named on the command line, None for the lobby)."""
    from ..app import Entry

    look = look_for(ascii_only=args.ascii, no_color=args.no_color, lang=args.lang)
    tokens = TokenFile(args.token_file or default_path())
    client = GameClient(args.url, args.name, reconnect=True, move_to_room=True)
    client.player = tokens.player(args.url)
    app = KingsCornerApp(
        client,
        look,
        entry=entry if isinstance(entry, Entry) else None,
        tokens=tokens,
        fill=args.fill,
    )
    status = app.run()
    if app.return_code:
        print(app.notes[-1] if app.notes else t(look.lang, "stopped"))
        return app.return_code
    message = exit_message(app)
    if message:
        print(message)
    return status if isinstance(status, int) else 0


def replay(args: argparse.Namespace) -> int:
    """Run the replay viewer alone for ``kings-corner replay ID`` options."""
    look = look_for(ascii_only=args.ascii, no_color=args.no_color, lang=args.lang)
    # The token file says who the viewer is: the coach's turns of their own seat are shown.
    tokens = TokenFile(args.token_file or default_path())
    app = KingsCornerApp(
        GameClient(args.url),
        look,
        tokens=tokens,
        replay_id=args.id,
        replay_only=True,
        replay_hand=args.hand,
        replay_step=getattr(args, "step", None),
    )
    app.run()
    for note in app.notes:
        print(note)
    return app.return_code or 0


__all__ = ["KingsCornerApp", "play", "replay"]
