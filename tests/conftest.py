"""Shared test settings.

hypothesis is imported here, at collection, rather than lazily by its plugin in pytest's
terminal summary: late imports there have hit a CPython 3.11 parser error
("AST constructor recursion depth mismatch") after long asyncio runs.
"""

import os

import hypothesis  # noqa: F401
import pytest

#: Long variants (marked ``long``) run only with KC_LONG_TESTS=1; their short variants always run.
LONG = os.environ.get("KC_LONG_TESTS") == "1"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "long: a long variant, run with KC_LONG_TESTS=1")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect ``long`` tests unless KC_LONG_TESTS=1 (never reported as skipped work)."""
    if LONG:
        return
    kept = [item for item in items if item.get_closest_marker("long") is None]
    if len(kept) != len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in kept])
        items[:] = kept
