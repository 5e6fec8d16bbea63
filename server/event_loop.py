"""Which event loop the server runs on: uvloop's (libuv, in C) when it is installed and
wanted, else asyncio's own. docs/performance.md measures what it buys."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

log = logging.getLogger(__name__)


def loop_factory(want_uvloop: bool) -> Callable[[], asyncio.AbstractEventLoop]:
    """A factory of new event loops for :class:`asyncio.Runner`."""
    if want_uvloop:
        try:
            import uvloop
        except ImportError:  # pragma: no cover - uvloop is a dependency where it builds
            log.info("uvloop is not installed: asyncio's event loop serves")
        else:
            return uvloop.new_event_loop
    return asyncio.new_event_loop


__all__ = ["loop_factory"]
