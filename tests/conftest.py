"""Shared test settings.

hypothesis is imported here, at collection, rather than lazily by its plugin in pytest's
terminal summary: late imports there have hit a CPython 3.11 parser error
("AST constructor recursion depth mismatch") after long asyncio runs.
"""

import os

# Every frame the server builds is validated against its model (protocol/frames.py); set
# before anything imports protocol, and inherited by the servers the tests start.
os.environ.setdefault("KC_CHECK_FRAMES", "1")

import hypothesis  # noqa: F401
import pytest

#: Long variants (marked ``long``) run only with KC_LONG_TESTS=1; their short variants always run.
LONG = os.environ.get("KC_LONG_TESTS") == "1"
#: Tests that start Redis Cluster, Sentinel or the whole deployment (marked ``topology``) run
#: only with KC_TOPOLOGY_TESTS=1 (``scripts/check.sh`` sets it unless told otherwise).
TOPOLOGY = os.environ.get("KC_TOPOLOGY_TESTS") == "1"
#: Each opt-in marker and whether its tests run.
GATES = {"long": LONG, "topology": TOPOLOGY}


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "long: a long variant, run with KC_LONG_TESTS=1")
    config.addinivalue_line(
        "markers",
        "topology: starts Redis Cluster, Sentinel or the deployment; run with KC_TOPOLOGY_TESTS=1",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect the tests of a gate that is off: pytest reports them as deselected, and no
    ``skipped`` line stands for work that was never meant to run."""
    off = [name for name, on in GATES.items() if not on]
    kept = [item for item in items if not any(item.get_closest_marker(m) for m in off)]
    if len(kept) != len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in kept])
        items[:] = kept
