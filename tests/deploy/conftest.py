"""The compose deployment started natively (see topology.py), for tests marked ``topology``.

Like tests/topologies, these run only when ``KC_TOPOLOGY_TESTS=1`` (``scripts/check.sh``
sets it); otherwise they are *deselected* at collection, not skipped. With the
variable set, a missing nginx or redis-server is a failure, not a skip.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import tempfile
from collections.abc import AsyncIterator, Generator
from pathlib import Path

import pytest

from .image import shared_build
from .topology import Deployment

FAILED = pytest.StashKey[bool]()
#: Where a failing test's whole deployment logs are kept.
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "deploy"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "deploy_env(**env): server settings the `deployment` fixture adds"
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Remember a failed test, so its deployment prints the ends of its logs."""
    report = yield
    if report.failed:
        item.stash[FAILED] = True
    return report


@pytest.fixture
async def deployment(request: pytest.FixtureRequest) -> AsyncIterator[Deployment]:
    """A running deployment of this test alone, its servers run from the image the
    Dockerfile builds (natively, once per run); every process ended by pid afterwards.

    When the start or the test fails, the ends of the processes' logs are printed, and the
    whole logs are kept in ``test-artifacts/deploy/<test>/``.
    """
    image = await asyncio.to_thread(shared_build)
    marker = request.node.get_closest_marker("deploy_env")
    env = dict(marker.kwargs) if marker is not None else {}
    with tempfile.TemporaryDirectory(prefix="kc-deploy-") as root:
        made = Deployment(Path(root), env=env, image=image)
        try:
            try:
                await made.start()
            except BaseException:
                print(made.logs())
                raise
            yield made
            if request.node.stash.get(FAILED, False):
                print(made.logs())
                keep_logs(made, request.node.name)
        finally:
            made.stop()


def keep_logs(made: Deployment, test: str) -> None:
    """Copy every process's whole log to ``test-artifacts/deploy/<test>/``."""
    kept = ARTIFACTS / re.sub(r"[^\w.-]+", "_", test)
    kept.mkdir(parents=True, exist_ok=True)
    for process in made.processes:
        if process.log.exists():
            shutil.copyfile(process.log, kept / process.log.name)
    print(f"whole logs kept in {kept}")
