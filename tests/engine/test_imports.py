"""The engine is pure: importing it loads nothing beyond the standard library."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import protocol.engine

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
before = set(sys.modules)
import protocol.engine
print(json.dumps(sorted(set(sys.modules) - before)))
"""


def modules_loaded_by_importing_the_engine() -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    loaded: list[str] = json.loads(done.stdout)
    return loaded


def test_importing_the_engine_loads_no_asyncio_pydantic_websockets_or_redis() -> None:
    loaded = modules_loaded_by_importing_the_engine()
    assert "protocol.engine" in loaded
    for banned in ("asyncio", "pydantic", "websockets", "redis"):
        assert not [m for m in loaded if m == banned or m.startswith(banned + ".")], banned


def test_importing_the_engine_loads_only_the_standard_library_and_protocol() -> None:
    loaded = modules_loaded_by_importing_the_engine()
    foreign = {
        m.split(".")[0]
        for m in loaded
        if m.split(".")[0] not in sys.stdlib_module_names and m.split(".")[0] != "protocol"
    }
    assert foreign == set()


def test_the_engine_exports_exactly_its_public_names() -> None:
    names = set(protocol.engine.__all__)
    assert len(names) == len(protocol.engine.__all__)
    public = {n for n in vars(protocol.engine) if not n.startswith("_")}
    modules = {n for n in public if isinstance(getattr(protocol.engine, n), ModuleType)}
    assert names == public - modules
    for name in names:
        assert hasattr(protocol.engine, name)
