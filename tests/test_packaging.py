"""What ``pip install .`` ships: every package and every web client file.

The package list in ``pyproject.toml`` is explicit; a folder added without declaring it
would work from a checkout (and an editable install) yet be missing from an installed
server. These read the same rules setuptools does, from the tree as it is.
"""

from __future__ import annotations

import glob
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
SHIPPED = ("protocol", "server", "clients")


def test_every_shipped_folder_is_a_declared_package() -> None:
    """Code and web files alike: setuptools warns about (and will stop shipping) a folder
    of data inside a package that is not declared a package itself."""
    folders = {
        ".".join(path.parent.relative_to(ROOT).parts)
        for top in SHIPPED
        for path in (ROOT / top).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    missing = sorted(folders - set(CONFIG["packages"]))
    assert not missing, f"add to [tool.setuptools] packages in pyproject.toml: {missing}"


def test_every_declared_package_exists() -> None:
    gone = [p for p in CONFIG["packages"] if not (ROOT / p.replace(".", "/")).is_dir()]
    assert not gone


def test_every_web_client_file_is_package_data() -> None:
    web = ROOT / "clients" / "web"
    data = CONFIG["package-data"]
    shipped: set[str] = set()
    for package, patterns in data.items():
        if not package.startswith("clients.web"):
            continue
        folder = ROOT / package.replace(".", "/")
        # setuptools globs each pattern in the package's own folder.
        for pattern in patterns:
            for name in glob.glob(pattern, root_dir=folder):
                shipped.add((folder / name).relative_to(web).as_posix())
    files = {p.relative_to(web).as_posix() for p in web.rglob("*") if p.is_file()}
    files = {f for f in files if "__pycache__" not in f and not f.endswith(".md")}
    assert files and not files - shipped, f"not shipped by pip install: {sorted(files - shipped)}"


def test_every_language_catalogue_is_package_data() -> None:
    """The texts both clients read (and the server serves to the web client): a language
    added as a file ships without a change here."""
    folder = ROOT / "clients" / "i18n"
    patterns = CONFIG["package-data"].get("clients.i18n", [])
    shipped = {name for pattern in patterns for name in glob.glob(pattern, root_dir=folder)}
    files = {p.name for p in folder.iterdir() if p.is_file() and p.suffix != ".py"}
    assert "en.json" in files and not files - shipped, f"not shipped: {sorted(files - shipped)}"


def test_the_socket_layer_s_dependency_is_bounded_above_and_installed_within() -> None:
    """server/websocket.py leans on websockets' internals: a release that may change them
    is kept out, and what is installed is within the range."""
    from importlib.metadata import version

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    (spec,) = [d for d in project["dependencies"] if d.startswith("websockets")]
    bounds = dict(re.findall(r"(>=|<)\s*([0-9.]+)", spec))
    assert set(bounds) == {">=", "<"}, f"websockets needs a lower and an upper bound: {spec}"

    def parts(text: str) -> tuple[int, ...]:
        return tuple(int(p) for p in text.split(".")[:3])

    installed = parts(version("websockets"))
    assert parts(bounds[">="]) <= installed < parts(bounds["<"]), (spec, installed)
