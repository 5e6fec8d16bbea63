"""The project's imports point one way: the server's layers entry → wiring → front →
services → room → foundations, each package only to those it may use, and no circle in any
package (the clients' and the engine's too).

Read from the source (every import, those inside functions and ``TYPE_CHECKING`` blocks
too), so a circle or an upward import fails here before anyone has to untie it again.
docs/architecture.md draws the same layers.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Every module of the server, by layer: a module may import its own layer and those below.
LAYERS: dict[str, tuple[str, ...]] = {
    "entry": ("server.__main__",),
    "wiring": ("server.app", "server.review_worker"),
    "front": (
        "server.sockets",
        "server.routing",
        "server.commands",
        "server.account_commands",
        "server.command_context",
        "server.routes",
        "server.api",
    ),
    "services": (
        "server.admin",
        "server.lobby",
        "server.maintenance",
        "server.live_room",
        "server.audience",
        "server.room_driver",
        "server.room_context",
        "server.records",
        "server.reviews",
        "server.identity",
        "server.bots",
    ),
    "room": ("server.room", "server.fanout", "server.ratings"),
    "foundations": (
        "server",
        "server.bot_pool",
        "server.bot_boot",
        "server.compression",
        "server.config",
        "server.event_loop",
        "server.connection",
        "server.eager",
        "server.websocket",
        "server.guard",
        "server.logs",
        "server.metrics",
        "server.tasks",
        "server.store",
    ),
}
ORDER = list(LAYERS)
#: Packages each package may import from (besides the standard library and third-party
#: packages): the engine knows nothing of the server or its clients. The server reads the
#: clients' text catalogues (standard library only), to serve them to the web client.
PACKAGES = {
    "protocol": {"protocol"},
    "clients": {"clients", "protocol"},
    "server": {"server", "protocol", "clients.i18n"},
    # The command line starts every program: the server's and the clients'.
    "kings_corner": {"kings_corner", "server", "clients", "protocol"},
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(package: str) -> dict[str, Path]:
    return {module_name(p): p for p in sorted((ROOT / package).rglob("*.py"))}


def imports(name: str, path: Path) -> set[str]:
    """The modules ``name`` imports (``from . import x`` counted as ``package.x``)."""
    tree = ast.parse(path.read_text(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return found


def layer_of(module: str) -> int:
    """The layer of a server module (a store module belongs to ``server.store``)."""
    for index, layer in enumerate(LAYERS.values()):
        for owner in layer:
            if module == owner or (owner == "server.store" and module.startswith(owner + ".")):
                return index
    raise LookupError(module)


SERVER = modules("server")


def server_imports(name: str) -> set[str]:
    """The server modules ``name`` imports (``server`` itself, an empty package, left out)."""
    return {m for m in imports(name, SERVER[name]) if m in SERVER and m != "server"}


def test_every_server_module_has_a_layer() -> None:
    unplaced = []
    for name in SERVER:
        try:
            layer_of(name)
        except LookupError:
            unplaced.append(name)
    assert not unplaced, f"place these in LAYERS (and docs/architecture.md): {unplaced}"


def upward(name: str, targets: set[str]) -> list[str]:
    """The ``targets`` that sit in a layer above ``name``'s."""
    mine = layer_of(name)
    return [f"{t} ({ORDER[layer_of(t)]})" for t in sorted(targets) if layer_of(t) < mine]


@pytest.mark.parametrize("name", sorted(SERVER))
def test_imports_point_down(name: str) -> None:
    found = upward(name, server_imports(name))
    assert not found, f"{name} ({ORDER[layer_of(name)]}) imports from above: {found}"


#: Every module of the project's packages (the server's, the engine's, the clients' and the
#: command line's), for the circle check.
PROJECT = {name: path for package in sorted(PACKAGES) for name, path in modules(package).items()}


def test_no_import_circles() -> None:
    """No circle anywhere in the project, through imports inside functions too."""
    graph = {
        name: {m for m in imports(name, path) if m in PROJECT and m != name}
        for name, path in PROJECT.items()
    }
    # A package's __init__ re-exporting its modules is not a circle with them.
    for name in graph:
        graph[name] = {t for t in graph[name] if not name.startswith(t + ".")}
    done: set[str] = set()
    path: list[str] = []

    def visit(node: str) -> None:
        if node in path:
            raise AssertionError("import circle: " + " → ".join([*path[path.index(node) :], node]))
        if node in done:
            return
        path.append(node)
        for target in sorted(graph[node]):
            visit(target)
        path.pop()
        done.add(node)

    for name in sorted(graph):
        visit(name)


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_packages_import_only_what_they_may(package: str) -> None:
    allowed = PACKAGES[package]
    own = {"kings_corner", "protocol", "server", "clients", "tests", "benchmarks"}
    bad = []
    for name, path in modules(package).items():
        for target in imports(name, path):
            top = target.split(".")[0]
            if top in own and not any(target == a or target.startswith(f"{a}.") for a in allowed):
                bad.append(f"{name} → {target}")
    assert not bad, bad


def test_the_checker_finds_what_the_old_knot_had(tmp_path: Path) -> None:
    """The room reaching back into the server, as it once did, is found: under
    ``TYPE_CHECKING``, relative, inside a function."""
    source = tmp_path / "live_room.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from .app import GameServer\n"
        "def later():\n    from . import lobby\n"
        "from .store.base import link\n"
    )
    found = imports("server.live_room", source) & set(SERVER) - {"server"}
    assert found == {"server.app", "server.lobby", "server.store.base"}
    assert upward("server.live_room", found) == ["server.app (wiring)"]


def test_the_catalogues_the_server_reads_import_nothing_of_the_project() -> None:
    """The one module of the clients the server imports brings none of the clients' code."""
    own = {"kings_corner", "protocol", "server", "clients", "tests", "benchmarks"}
    path = ROOT / "clients" / "i18n" / "__init__.py"
    assert {t for t in imports("clients.i18n", path) if t.split(".")[0] in own} == set()
