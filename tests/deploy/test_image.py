"""The image the Dockerfile builds is what the deploy tests run.

:mod:`tests.deploy.image` carries out the Dockerfile natively (its ``COPY`` lines from the
build context, its ``pip wheel``, then its ``pip install`` into a fresh environment). These
show that the shipped Dockerfile builds, that the result runs with nothing of the checkout
on its path, that the deployment's servers are that result, and that a Dockerfile which
leaves a package out fails to build (as ``docker build`` would).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from .compose import ROOT, Untranslatable
from .image import build, shared_build
from .topology import Deployment

pytestmark = pytest.mark.topology


def test_the_image_runs_from_its_own_install(tmp_path: Path) -> None:
    image = shared_build()
    found = subprocess.run(
        [
            image.python,
            "-c",
            "import clients, kings_corner, protocol, server; "
            "print(*(m.__file__ for m in (clients, kings_corner, protocol, server)))",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert len(found) == 4
    for file in found:
        assert Path(file).is_relative_to(image.root), file
        assert not Path(file).is_relative_to(ROOT), file
    version = subprocess.run(
        [image.entrypoint, "--help"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert version.returncode == 0 and "serve" in version.stdout, version.stderr


def test_the_deployment_runs_the_image(tmp_path: Path) -> None:
    image = shared_build()
    deployment = Deployment(tmp_path, image=image)
    for server in deployment.servers:
        assert server.argv()[0] == image.entrypoint
        assert not server.native.cwd.is_relative_to(ROOT)
        assert server.image_health[0] == image.python


def test_a_package_left_out_of_the_dockerfile_fails_the_build(tmp_path: Path) -> None:
    """The fault of main at ccc2f12: ``kings_corner/`` was not copied, pip wheel failed."""
    context = tmp_path / "context"
    context.mkdir()
    for name in ("pyproject.toml", "README.md", "constraints.txt", ".dockerignore"):
        (context / name).write_bytes((ROOT / name).read_bytes())
    for package in ("kings_corner", "protocol", "server", "clients"):
        (context / package).symlink_to(ROOT / package)
    dockerfile, line = (ROOT / "Dockerfile").read_text(), "COPY kings_corner ./kings_corner\n"
    assert dockerfile.count(line) == 1
    (context / "Dockerfile").write_text(dockerfile.replace(line, ""))
    fault = re.escape("package directory './kings_corner' does not exist")
    with pytest.raises(Untranslatable, match=fault):
        build(context, tmp_path / "out")
