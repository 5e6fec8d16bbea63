"""Jobs for real bot workers in tests, in a module that imports next to nothing.

A worker unpickles a job by importing its module. An idle-class worker beside busy
processes gets a sliver of a CPU, so importing a test module (pytest, the server, the
clients) there took minutes; this module costs it nothing.
"""

from __future__ import annotations

import os
from typing import Any


def where(level: str, seed: str, memory: Any, view: Any, **_: Any) -> tuple[Any, Any]:
    """Stands in for a decision: the worker's scheduling class and niceness."""
    policy = os.sched_getscheduler(0) if hasattr(os, "sched_getscheduler") else None
    return (policy, os.nice(0)), memory


def where_by(asked_at: float, level: str, seed: str, memory: Any, view: Any, **_: Any) -> Any:
    """Stands in for a decision a person waits for (``decide_by``): as :func:`where`."""
    return where(level, seed, memory, view)


def where_reviewed(record: Any, hand: int, seats: Any) -> Any:
    """Stands in for a review's hand: the worker's scheduling class and niceness."""
    return where("", "", None, None)[0]
