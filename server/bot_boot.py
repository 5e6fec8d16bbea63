"""Loaded first by the fork server that starts the bot workers (see :mod:`server.bot_pool`).

The fork server is a child of the server process; if the server is killed (SIGKILL, an
out-of-memory kill), nothing tells it, and it and its workers would live on, holding the
server's output pipes. Here it watches its parent and exits when the parent is gone; each
worker in turn asks the kernel to kill it when the fork server exits.
"""

from __future__ import annotations

import os
import sys
import threading
import time

#: Seconds between two looks at the parent process.
WATCH_EVERY = 0.5
#: The environment variable in which the server names its own pid before starting the pool.
PARENT = "KC_BOT_PARENT"


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_EVERY)
    os._exit(0)


def watch_parent(parent: int) -> None:
    """Exit this process as soon as ``parent`` is no longer its parent (a daemon thread).

    The server may be gone before this runs: then the parent already differs and the
    process exits at once.
    """
    threading.Thread(target=_watch, args=(parent,), name="parent-watch", daemon=True).start()


# Only in the fork server itself (run as ``python -c "from multiprocessing.forkserver ..."``).
if sys.argv[:1] == ["-c"] and "multiprocessing.forkserver" in sys.modules:
    watch_parent(int(os.environ.get(PARENT) or os.getppid()))
