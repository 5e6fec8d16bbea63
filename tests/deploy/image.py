"""The image, built natively from the Dockerfile: what ships is what the deploy test runs.

There is no Docker engine where the suite runs, so the Dockerfile's own instructions are
carried out here, as Docker would, with the container's paths moved into a directory:

- the build stage's ``WORKDIR`` and ``COPY`` lines copy from the build context (the
  checkout, less what ``.dockerignore`` names) into that stage's folder, nothing else:
  a package the ``COPY`` lines leave out is missing here as it would be in the image;
- its ``RUN pip wheel ...`` runs as written, with a fresh virtual environment's ``pip``;
- the final stage's ``COPY --from=build`` and ``COPY`` take what the stage made and a file
  of the context, and its ``RUN pip install ...`` installs the wheels into a second, fresh
  virtual environment: the image's interpreter. Nothing of the checkout is on its path.

The other commands of a ``RUN`` (``rm``, ``useradd``) change nothing a native run can
see and are left out; any other command is refused (:class:`compose.Untranslatable`).
"""

from __future__ import annotations

import fcntl
import fnmatch
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import venv
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .compose import ROOT, Stage, Untranslatable, load_stages

#: ``RUN`` commands that touch nothing a native run can see (files the image deletes, the
#: user it runs as).
IGNORED = ("rm", "useradd")


def ignored_patterns(context: Path) -> list[str]:
    """``.dockerignore``'s patterns (no ``!`` exceptions: refused, none are used)."""
    path = context / ".dockerignore"
    lines = path.read_text().splitlines() if path.exists() else []
    patterns = [line.strip().strip("/") for line in lines if line.strip() and line[0] != "#"]
    if any(p.startswith("!") for p in patterns):
        raise Untranslatable(".dockerignore exceptions (!) are not known to this build")
    return patterns


def _ignored(relative: str, patterns: list[str]) -> bool:
    for pattern in patterns:
        if fnmatch.fnmatch(relative, pattern):
            return True
        if pattern.startswith("**/") and fnmatch.fnmatch(relative.rpartition("/")[2], pattern[3:]):
            return True
    return False


def context_files(context: Path, source: str) -> list[Path]:
    """The files of the build context under ``source`` that Docker would send."""
    patterns = ignored_patterns(context)
    top = context / source
    if not top.exists():
        raise Untranslatable(f"Dockerfile COPY {source}: no such file in the build context")
    if top.is_file():
        return [top]
    found = []
    for path in sorted(top.rglob("*")):
        relative = path.relative_to(context).as_posix()
        parts = relative.split("/")
        if any(_ignored("/".join(parts[: n + 1]), patterns) for n in range(len(parts))):
            continue
        if path.is_file():
            found.append(path)
    return found


@dataclass
class Image:
    """The image, natively: its interpreter and its ``kings-corner`` console script."""

    root: Path

    @property
    def python(self) -> str:
        return str(self.root / "venv" / "bin" / "python")

    @property
    def entrypoint(self) -> str:
        return str(self.root / "venv" / "bin" / "kings-corner")


class _Filesystem:
    """A stage's container paths, as folders under ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, container: str) -> Path:
        return self.root / str(PurePosixPath("/") / container).lstrip("/")

    def translate(self, command: str) -> str:
        """``command`` with each absolute container path made native (a relative one is
        read from the stage's ``WORKDIR``, the command's current directory)."""
        return re.sub(r"(?<![\w.])(/[A-Za-z0-9_.*/-]+)", lambda m: f"{self.root}{m[1]}", command)


def _run(stage: Stage, fs: _Filesystem, environment: Path, log: Path) -> None:
    """Carry out the stage's ``RUN`` lines: each ``pip`` command with ``environment``'s
    pip, in the stage's ``WORKDIR``; ``rm`` and ``useradd`` left out; anything else
    refused."""
    bin_dir = environment / "bin"
    cwd = fs.path(stage.workdir)
    cwd.mkdir(parents=True, exist_ok=True)
    for run in stage.runs:
        for command in (part.strip() for part in run.split("&&")):
            words = shlex.split(command)
            if not words or words[0] in IGNORED:
                continue
            if words[0] != "pip":
                raise Untranslatable(f"Dockerfile RUN {command!r}: not known to this build")
            native = fs.translate(command)
            with log.open("a") as out:
                out.write(f"$ {native}\n")
                out.flush()
                done = subprocess.run(
                    native,
                    shell=True,
                    cwd=cwd,
                    env={**os.environ, "PATH": f"{bin_dir}:{os.environ.get('PATH', '')}"},
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    check=False,
                )
            if done.returncode != 0:
                raise Untranslatable(
                    f"Dockerfile RUN {command!r} failed ({done.returncode}):\n"
                    + log.read_text()[-3000:]
                )


def _fresh_environment(where: Path) -> Path:
    venv.EnvBuilder(with_pip=True, clear=True).create(where)
    return where


def build(context: Path, out: Path, dockerfile: str = "Dockerfile") -> Image:
    """Build the image of ``context``'s Dockerfile into ``out``, natively. Raises
    :class:`compose.Untranslatable` when a step fails, with pip's own words."""
    stages = load_stages((context / dockerfile).read_text())
    if len(stages) < 2:
        raise Untranslatable("the Dockerfile has no build stage")
    log = out / "build.log"
    out.mkdir(parents=True, exist_ok=True)
    made: dict[str, _Filesystem] = {}
    for number, stage in enumerate(stages):
        fs = _Filesystem(out / f"stage-{number}")
        if fs.root.exists():
            shutil.rmtree(fs.root)
        final = number == len(stages) - 1
        for origin, sources, destination in stage.copies:
            base = fs.path(str(PurePosixPath(stage.workdir) / destination))
            for source in sources:
                if origin is not None:
                    if origin not in made:
                        raise Untranslatable(f"COPY --from={origin}: no such stage before")
                    src = made[origin].path(source)
                    if not src.exists():
                        raise Untranslatable(f"COPY --from={origin} {source}: the stage made none")
                    if src.is_dir():
                        shutil.copytree(src, base, dirs_exist_ok=True)
                    else:
                        base.parent.mkdir(parents=True, exist_ok=True)
                        shutil.copy2(src, base)
                    continue
                for file in context_files(context, source):
                    inside = (context / source).is_dir()
                    relative = file.relative_to(context / source) if inside else Path(file.name)
                    if not inside and not destination.endswith("/"):
                        target = base
                    else:
                        target = base / relative
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(file, target)
        environment = out / "venv" if final else out / f"build-venv-{number}"
        _fresh_environment(environment)
        _run(stage, fs, environment, log)
        made[stage.name] = fs
    image = Image(out)
    if not Path(image.entrypoint).exists():
        raise Untranslatable("the image installs no kings-corner command")
    return image


def context_digest(context: Path) -> str:
    """A digest of everything the Dockerfile's build can read: a rebuild when it changes."""
    digest = hashlib.sha256(sys.version.encode())
    for stage in load_stages((context / "Dockerfile").read_text()):
        for origin, sources, _ in stage.copies:
            if origin is not None:
                continue
            for source in sources:
                for file in context_files(context, source):
                    digest.update(file.relative_to(context).as_posix().encode())
                    digest.update(file.read_bytes())
    digest.update((context / "Dockerfile").read_bytes())
    return digest.hexdigest()[:16]


def shared_build(context: Path = ROOT) -> Image:
    """The image of ``context``, built once for every test process of this run (and kept
    in the system's temporary directory while nothing it reads changes)."""
    key = context_digest(context)
    root = Path(tempfile.gettempdir()) / f"kc-image-{key}"
    root.mkdir(exist_ok=True)
    with (root / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = root / "built.json"
        if not done.exists():
            build(context, root / "image")
            done.write_text(json.dumps({"context": key}))
    return Image(root / "image")
