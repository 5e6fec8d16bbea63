"""The shipped deployment files, read as Docker would read them, and translated to native.

``docker-compose.yml``, the ``Dockerfile`` and ``deploy/nginx.conf`` are the truth: this
module reads them (YAML with its anchors and merge keys, compose's ``${VAR:-default}``
interpolation, the Dockerfile's instructions, nginx's directives) and makes a
:class:`Plan` of native processes from them, translating only what cannot be the same
without containers:

- a service run ``deploy: replicas: N`` times (the game servers) is N native processes,
  named as compose names their containers: ``server-1`` ... ``server-N``;
- a compose service name (``redis`` in ``REDIS_URL``, ``server`` in nginx's upstream)
  becomes ``127.0.0.1`` and that service's native port, or in nginx's upstream one
  ``server`` line per replica (what Docker's DNS answers for a replicated service: every
  replica's address); any other host name is refused (:class:`Untranslatable`): natively,
  as in compose, nothing else would answer;
- a container's own port (``--port 8000``, ``http://127.0.0.1:8000/readyz`` in a health
  check, ``listen 80``) becomes its native port, and ``--host 0.0.0.0`` loopback;
- ``KC_TRUSTED_PROXIES`` must cover the compose network (Docker's default address pools,
  where nginx's address comes from there); natively nginx connects from ``127.0.0.1``,
  which is added to the list;
- the image's ``python`` and ``kings-corner`` are this interpreter and ``python -m kings_corner``
  (the console script's target, from pyproject.toml); ``redis-server``, ``redis-cli``,
  nginx and ``wget`` are this machine's;
- files and volumes are in a temporary directory;
- a service built from the image whose command is ``worker`` is a review worker
  (``kings-corner worker``): it listens on no port and has no health check (compose
  disables the image's, a server's ``/readyz``, for it), so it counts as started once it
  runs.

:func:`check` holds the properties the deployment relies on that a native run cannot show
by itself (each names the file and line to fix); :func:`plan` calls it, so a broken file
fails before anything starts.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import shlex
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import yaml

ROOT = Path(__file__).resolve().parents[2]

#: Docker's default address pools for the networks compose creates (the daemon's
#: ``default-address-pools``): the compose network, and so nginx's address on it, is in one.
DOCKER_POOLS = (ipaddress.ip_network("172.17.0.0/16"), ipaddress.ip_network("192.168.0.0/16"))
DOCKER_POOLS += tuple(ipaddress.ip_network(f"172.{n}.0.0/16") for n in range(18, 32))
#: Where nginx's connections to the servers come from natively (loopback to loopback).
NGINX_NATIVE_ADDRESS = "127.0.0.1"
#: The one health path of the image and of compose (docs/deploy.md, "Health").
HEALTH_PATH = "/readyz"
#: What the compose file's Redis must keep: the settings docs/deploy.md names.
REDIS_SETTINGS = {
    "--appendonly": "yes",
    "--appendfsync": "everysec",
    "--save": "",
    "--maxmemory-policy": "noeviction",
}


class Untranslatable(AssertionError):
    """A shipped file says something the deployment cannot run with (or that this
    translation does not know how to run natively): the message says which and why."""


# --- reading ---------------------------------------------------------------------------


_VARIABLE = re.compile(r"\$(?:\$|\{(?P<braced>[^}]*)\}|(?P<bare>[A-Za-z_][A-Za-z0-9_]*))")


def interpolate(value: str, env: dict[str, str]) -> str:
    """Compose's interpolation: ``$$``, ``$VAR``, ``${VAR}``, ``${VAR:-default}``,
    ``${VAR-default}``; an unset variable without a default is empty, as compose has it."""

    def one(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        expression = match.group("braced") or match.group("bare") or ""
        for separator in (":-", "-"):
            name, found, default = expression.partition(separator)
            if found:
                current = env.get(name)
                unset = current is None or (separator == ":-" and current == "")
                return default if unset else str(current)
        return env.get(expression, "")

    return _VARIABLE.sub(one, value)


def _interpolated(node: Any, env: dict[str, str]) -> Any:
    if isinstance(node, str):
        return interpolate(node, env)
    if isinstance(node, list):
        return [_interpolated(item, env) for item in node]
    if isinstance(node, dict):
        return {key: _interpolated(value, env) for key, value in node.items()}
    return node


def load_compose(text: str, env: dict[str, str] | None = None) -> dict[str, dict[str, Any]]:
    """The services of a compose file, anchors and merge keys resolved, interpolated with
    ``env`` (none: every ``${VAR:-default}`` takes its default)."""
    document = yaml.safe_load(text)
    if not isinstance(document, dict) or not isinstance(document.get("services"), dict):
        raise Untranslatable("docker-compose.yml has no `services:` mapping")
    services: dict[str, dict[str, Any]] = _interpolated(document["services"], env or {})
    return services


def environment_of(service: dict[str, Any]) -> dict[str, str]:
    """A service's ``environment:`` as a mapping (compose also takes a ``KEY=VALUE`` list)."""
    raw = service.get("environment") or {}
    if isinstance(raw, list):
        raw = dict(item.partition("=")[::2] for item in raw)
    return {str(k): "" if v is None else str(v) for k, v in raw.items()}


def command_of(value: Any) -> list[str]:
    """A compose ``command:`` or ``test:`` as a list (a string is split as a shell would)."""
    if value is None:
        return []
    if isinstance(value, str):
        return shlex.split(value)
    return [str(item) for item in value]


def seconds(value: Any, default: float) -> float:
    """A compose duration (``10s``, ``1m30s``, ``500ms``) in seconds."""
    if value is None:
        return default
    total, text = 0.0, str(value)
    for amount, unit in re.findall(r"(\d+(?:\.\d+)?)(ms|us|s|m|h)", text):
        total += float(amount) * {"us": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}[unit]
    return total


@dataclass
class Dockerfile:
    """The instructions of the final stage of a Dockerfile that this translation reads."""

    bases: list[str]
    env: dict[str, str]
    entrypoint: list[str]
    cmd: list[str]
    healthcheck: list[str]
    healthcheck_options: dict[str, str]
    runs: list[str]


def load_dockerfile(text: str) -> Dockerfile:
    """Read a Dockerfile: ``FROM`` of every stage, and of the last stage ``ENV``,
    ``ENTRYPOINT``, ``CMD`` (exec form), ``HEALTHCHECK`` and every stage's ``RUN``."""
    joined = re.sub(r"\\\n", " ", text)
    bases: list[str] = []
    env: dict[str, str] = {}
    runs: list[str] = []
    entrypoint: list[str] = []
    cmd: list[str] = []
    health: list[str] = []
    options: dict[str, str] = {}
    for line in joined.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        word, rest = word.upper(), rest.strip()
        if word == "FROM":
            bases.append(rest.split()[0])
            env, entrypoint, cmd, health, options = {}, [], [], [], {}
        elif word == "ENV":
            for item in shlex.split(rest):
                key, _, value = item.partition("=")
                env[key] = value
        elif word == "RUN":
            runs.append(rest)
        elif word == "ENTRYPOINT":
            entrypoint = json.loads(rest)
        elif word == "CMD":
            cmd = json.loads(rest)
        elif word == "HEALTHCHECK":
            head, found, tail = rest.partition(" CMD ")
            if not found:
                raise Untranslatable(f"Dockerfile HEALTHCHECK without an exec-form CMD: {rest}")
            options = dict(opt.lstrip("-").partition("=")[::2] for opt in head.split())
            health = json.loads(tail)
    return Dockerfile(bases, env, entrypoint, cmd, health, options, runs)


@dataclass
class Stage:
    """One stage of a Dockerfile: its name and the instructions this build carries out."""

    name: str
    workdir: str = "/"
    #: ``(from stage or None, sources, destination)`` of each ``COPY``.
    copies: list[tuple[str | None, list[str], str]] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)


def load_stages(text: str) -> list[Stage]:
    """The stages of a Dockerfile, with ``WORKDIR``, ``COPY`` and ``RUN`` (shell form)."""
    joined = re.sub(r"\\\n", " ", text)
    stages: list[Stage] = []
    for line in joined.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        word, rest = word.upper(), rest.strip()
        if word == "FROM":
            parts = rest.split()
            name = parts[2] if len(parts) == 3 and parts[1].upper() == "AS" else str(len(stages))
            stages.append(Stage(name))
            continue
        if not stages:
            continue
        stage = stages[-1]
        if word == "WORKDIR":
            stage.workdir = str(PurePosixPath(stage.workdir) / rest)
        elif word == "COPY":
            args = shlex.split(rest)
            origin = None
            while args and args[0].startswith("--"):
                flag = args.pop(0)
                if flag.startswith("--from="):
                    origin = flag.partition("=")[2]
                else:
                    raise Untranslatable(f"Dockerfile COPY {flag}: not known to this build")
            *sources, destination = args
            stage.copies.append((origin, sources, destination))
        elif word == "RUN":
            stage.runs.append(rest)
        elif word == "ADD":
            raise Untranslatable("Dockerfile ADD: use COPY")
    return stages


@dataclass
class Directive:
    """One nginx directive: its name, arguments and, for a block, what is inside."""

    name: str
    args: list[str]
    block: list[Directive] | None = None

    def find(self, name: str, *args: str) -> list[Directive]:
        """The directives of this block named ``name`` (with these first arguments)."""
        return [d for d in self.block or [] if d.name == name and d.args[: len(args)] == list(args)]

    def value(self, name: str) -> list[str] | None:
        found = self.find(name)
        return found[-1].args if found else None


_TOKEN = re.compile(r"""#[^\n]*|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|[{};]|[^\s{};"'#]+""")


def load_nginx(text: str) -> Directive:
    """nginx's configuration as a tree of directives (the file as the main block)."""
    stack: list[Directive] = [Directive("main", [], [])]
    words: list[str] = []
    for token in _TOKEN.findall(text):
        if token.startswith("#"):
            continue
        if token == ";":
            assert stack[-1].block is not None
            stack[-1].block.append(Directive(words[0], words[1:]))
            words = []
        elif token == "{":
            child = Directive(words[0], words[1:], [])
            assert stack[-1].block is not None
            stack[-1].block.append(child)
            stack.append(child)
            words = []
        elif token == "}":
            stack.pop()
        else:
            words.append(token[1:-1] if token[0] in "\"'" else token)
    if len(stack) != 1 or words:
        raise Untranslatable("deploy/nginx.conf: unbalanced braces or a directive without ;")
    return stack[0]


# --- the checks --------------------------------------------------------------------------


def check_redis(command: list[str]) -> None:
    """The compose file's Redis keeps every event it acknowledged and never evicts one."""
    if not command or command[0] != "redis-server":
        raise Untranslatable(f"docker-compose.yml's redis does not run redis-server: {command}")
    for name, value in REDIS_SETTINGS.items():
        if name not in command or command[command.index(name) + 1] != value:
            raise Untranslatable(
                f"docker-compose.yml's redis no longer runs with {name} {value!r}: {command}"
            )
    if "--maxmemory" not in command:
        raise Untranslatable("docker-compose.yml's redis has no --maxmemory: noeviction is moot")
    size = command[command.index("--maxmemory") + 1].lower()
    if not re.fullmatch(r"[1-9]\d*(b|k|kb|m|mb|g|gb)?", size):
        raise Untranslatable(f"docker-compose.yml's redis --maxmemory {size!r} is no limit")


def check_trusted_proxies(value: str) -> None:
    """``KC_TRUSTED_PROXIES`` covers the compose network, where nginx's connections come
    from: otherwise every player shares nginx's failed-join budget (docs/deploy.md)."""
    networks = []
    for entry in filter(None, (part.strip() for part in value.split(","))):
        networks.append(ipaddress.ip_network(entry, strict=False))
    uncovered = [
        pool
        for pool in DOCKER_POOLS
        if not any(
            pool.version == net.version and pool.subnet_of(net)  # type: ignore[arg-type]
            for net in networks
        )
    ]
    if uncovered:
        raise Untranslatable(
            f"KC_TRUSTED_PROXIES {value!r} in docker-compose.yml does not cover the compose "
            f"network (Docker's address pools {', '.join(map(str, uncovered))}): the servers "
            "would take nginx's address for every client's"
        )


def health_path(command: list[str], where: str) -> str:
    """The path a ``python -c "...urlopen('http://127.0.0.1:8000/PATH'...)"`` check asks."""
    found = re.findall(r"http://127\.0\.0\.1:8000(/[\w./-]*)", " ".join(command))
    if len(found) != 1:
        raise Untranslatable(f"{where}: expected one http://127.0.0.1:8000/... URL: {command}")
    return str(found[0])


def check_build_context(directory: Path) -> None:
    """The image's build stage copies the folder of every package pyproject.toml ships:
    ``pip wheel`` fails on a missing one (the full build is :mod:`tests.deploy.image`)."""
    stages = load_stages((directory / "Dockerfile").read_text())
    copied = {
        PurePosixPath(source).parts[0]
        for origin, sources, _ in stages[0].copies
        if origin is None
        for source in sources
    }
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    tops = {str(name).split(".")[0] for name in config["packages"]}
    missing = sorted(tops - copied)
    if missing:
        raise Untranslatable(f"the Dockerfile's build stage does not COPY the packages {missing}")


def check_health(dockerfile: Dockerfile, server: dict[str, Any]) -> None:
    """One health story: the image's HEALTHCHECK and compose's ask the same path."""
    ours = health_path(dockerfile.healthcheck, "Dockerfile HEALTHCHECK")
    theirs = health_path(command_of(server["healthcheck"]["test"]), "compose healthcheck")
    if not ours == theirs == HEALTH_PATH:
        raise Untranslatable(
            f"health checks disagree: Dockerfile {ours}, docker-compose.yml {theirs}; "
            f"both are {HEALTH_PATH} (docs/deploy.md, Health)"
        )


#: What deploy/nginx.conf keys the routing by room on, and how (docs/protocol.md, "Transport").
ROOM_HASH = ["$arg_room", "consistent"]


def check_nginx(conf: Directive, servers: list[str]) -> list[str]:
    """nginx proxies to every replica, a WebSocket that names its room by a consistent hash
    of the room (anything else by least_conn), retries a failed connection on another
    replica, passes the client's address on, and keeps ``/metrics`` inside. Returns the
    names of the upstream groups."""
    (http,) = conf.find("http")
    upstreams = {d.args[0]: d for d in http.find("upstream")}
    if not upstreams:
        raise Untranslatable("deploy/nginx.conf has no upstream")
    for group, upstream in upstreams.items():
        named = sorted(d.args[0].rpartition(":")[0] for d in upstream.find("server"))
        if named != sorted(servers):
            raise Untranslatable(
                f"nginx's upstream {group} names {named}, compose runs {sorted(servers)}"
            )
    hashed = [g for g, u in upstreams.items() if u.value("hash") == ROOM_HASH]
    spread = [g for g, u in upstreams.items() if u.find("least_conn")]
    if len(hashed) != 1 or len(spread) != 1:
        raise Untranslatable(
            "deploy/nginx.conf needs one upstream balanced by `hash $arg_room consistent` "
            f"(has {hashed}) and one by `least_conn` (has {spread}): a room on one process"
        )
    (server,) = http.find("server")
    root = server.find("location", "/")
    if len(root) != 1:
        raise Untranslatable("deploy/nginx.conf has no `location /`")
    (location,) = root
    target = (location.value("proxy_pass") or [""])[0]
    if target.startswith("http://$"):
        variable = target.removeprefix("http://")
        maps = [m for m in http.find("map") if m.args[1:] == [variable]]
        if len(maps) != 1 or (maps[0].args[0] != "$arg_room"):
            raise Untranslatable(f"nginx's `location /` proxies to {target}: no map of $arg_room")
        choices = {d.name: d.args[0] for d in maps[0].block or []}
        if choices.get("default") != spread[0] or set(choices.values()) != {*hashed, *spread}:
            raise Untranslatable(
                f"nginx's map of $arg_room chooses {choices}: by default {spread[0]}, "
                f"else {hashed[0]}"
            )
    elif target != f"http://{spread[0]}":
        raise Untranslatable("nginx's `location /` does not proxy to the upstream")
    retry = location.value("proxy_next_upstream") or ["error", "timeout"]  # nginx's default
    if "off" in retry or not {"error", "timeout"} <= set(retry):
        raise Untranslatable(
            f"nginx's `location /` retries no failed replica (proxy_next_upstream {retry}): "
            "a request in flight on a replica that dies fails"
        )
    tries = location.value("proxy_next_upstream_tries") or ["0"]
    if tries[0] != "0" and int(tries[0]) < 2:
        raise Untranslatable(f"nginx's proxy_next_upstream_tries {tries[0]} allows no retry")
    forwarded = location.find("proxy_set_header", "X-Forwarded-For")
    if [d.args[1:] for d in forwarded] != [["$proxy_add_x_forwarded_for"]]:
        raise Untranslatable("nginx does not append the client's address to X-Forwarded-For")
    metrics = server.find("location", "=", "/metrics")
    if len(metrics) != 1 or metrics[0].find("proxy_pass"):
        raise Untranslatable("nginx passes /metrics on: it must answer it itself (404)")
    answer = metrics[0].value("return") or []
    if not answer or not 400 <= int(answer[0]) < 500:
        raise Untranslatable(f"nginx's /metrics answers {answer}, not a refusal")
    return sorted(upstreams)


def check(directory: Path = ROOT) -> None:
    """Every check on the shipped files in ``directory`` (see :func:`plan`)."""
    plan(directory, ports={}, data=Path("/nonexistent"), python=sys.executable)


# --- the translation -----------------------------------------------------------------------


@dataclass
class Native:
    """One compose service as a native process."""

    name: str
    argv: list[str]
    env: dict[str, str]
    #: The service's health check, natively (none for a worker), and how long compose
    #: gives it to pass.
    health: list[str]
    health_timeout: float
    health_deadline: float
    #: Services that must be healthy before this one starts (compose's ``depends_on``).
    after: list[str]
    port: int
    cwd: Path = ROOT


@dataclass
class Plan:
    """The compose deployment as native processes, in the order compose starts them."""

    services: dict[str, Native]
    #: nginx.conf rendered for this machine (its ``-c``).
    nginx_conf: str
    #: The image's HEALTHCHECK, natively, for each server.
    image_health: dict[str, list[str]] = field(default_factory=dict)
    #: The ``--maxmemory`` the compose file gives Redis.
    maxmemory: str = ""

    @property
    def order(self) -> list[str]:
        done: list[str] = []
        todo = dict(self.services)
        while todo:
            ready = [n for n, s in todo.items() if all(d in done for d in s.after)]
            if not ready:
                raise Untranslatable(f"depends_on has a cycle among {sorted(todo)}")
            for name in sorted(ready):
                done.append(name)
                del todo[name]
        return done


def replicas_of(service: dict[str, Any]) -> int | None:
    """A service's ``deploy: replicas:`` (None when it has none: one container, named as
    the service). Compose's ``scale:`` is refused: one way to say it."""
    if "scale" in service:
        raise Untranslatable("`scale:` in docker-compose.yml: say `deploy: replicas:` instead")
    count = (service.get("deploy") or {}).get("replicas")
    if count is None:
        return None
    if not isinstance(count, int) or count < 1:
        raise Untranslatable(f"deploy: replicas: {count!r} is no number of replicas")
    return count


def native_names(name: str, service: dict[str, Any]) -> list[str]:
    """The processes of one compose service: ``name``, or for ``deploy: replicas: N`` the
    names compose gives the containers, ``name-1`` ... ``name-N``."""
    count = replicas_of(service)
    return [name] if count is None else [f"{name}-{i}" for i in range(1, count + 1)]


def services_of(directory: Path = ROOT) -> list[str]:
    """The native processes the compose file in ``directory`` runs (replicas expanded,
    profiles left out), for the ports a deployment needs before its :func:`plan`."""
    compose = load_compose((directory / "docker-compose.yml").read_text())
    running = {n: s for n, s in compose.items() if not s.get("profiles")}
    return [native for n, s in running.items() for native in native_names(n, s)]


def _depends(service: dict[str, Any], replicas: dict[str, list[str]]) -> list[str]:
    """The processes a service waits for: every replica of each service it depends on
    (compose waits until all of them are healthy)."""
    raw = service.get("depends_on") or []
    if isinstance(raw, dict):
        for name, how in raw.items():
            condition = (how or {}).get("condition", "service_started")
            if condition != "service_healthy":
                raise Untranslatable(f"depends_on {name}: {condition} (only service_healthy)")
    names = [str(name) for name in raw]
    return [native for name in names for native in replicas.get(name, [name])]


class _Hosts:
    """Compose service names and container ports, and their native ports."""

    def __init__(
        self, ports: dict[tuple[str, int], int], replicas: dict[str, list[str]] | None = None
    ) -> None:
        #: Native port of each process (a replica's native name) and container port.
        self.ports = ports
        #: The processes a compose service name stands for (Docker's DNS: every replica).
        self.replicas = replicas or {}

    def port(self, service: str, container: int) -> int:
        return self.ports.get((service, container), 0)

    def url(self, service: str, variable: str, value: str) -> str:
        """``value`` (a URL in ``service``'s settings) with a compose host name, or the
        container itself, made ``127.0.0.1`` and the native port. A name of several
        replicas is refused here: which one answers would be Docker's choice."""
        found = self.urls(service, variable, value)
        if len(found) != 1:
            raise Untranslatable(
                f"{variable}={value!r} of {service} names a service of {len(found)} replicas"
            )
        return found[0]

    def urls(self, service: str, variable: str, value: str) -> list[str]:
        """``value`` made native for each process its host name stands for: the container
        itself (``127.0.0.1``), or every replica of the compose service it names."""
        parts = urlsplit(value)
        host = parts.hostname or ""
        targets = [service] if host in ("127.0.0.1", "localhost") else self.replicas.get(host)
        if not targets or any(t not in {name for name, _ in self.ports} for t in targets):
            raise Untranslatable(
                f"{variable}={value!r} of {service} names the host {host!r}, which is no "
                "service of docker-compose.yml: nothing there would answer"
            )
        default = {"redis": 6379, "rediss": 6379, "http": 80, "ws": 80}.get(parts.scheme, 0)
        container = parts.port or default
        out = []
        for target in targets:
            if (target, container) not in self.ports:
                known = sorted(c for n, c in self.ports if n == target)
                raise Untranslatable(
                    f"{variable}={value!r} of {service} asks port {container} of {host}, "
                    f"which listens on {known}"
                )
            credentials = parts.username or ""
            if parts.password:
                credentials += f":{parts.password}"
            netloc = f"{credentials}@" if credentials else ""
            netloc += f"127.0.0.1:{self.ports[(target, container)]}"
            out.append(urlunsplit(parts._replace(netloc=netloc)))
        return out


def _container_port(service: dict[str, Any], default: int) -> int:
    exposed = [str(p) for p in service.get("expose") or []]
    published = [str(p).rpartition(":")[2] for p in service.get("ports") or []]
    ports = {int(p.split("/")[0]) for p in exposed + published}
    if len(ports) > 1:
        raise Untranslatable(f"more than one container port: {sorted(ports)}")
    return ports.pop() if ports else default


def _script_module(name: str) -> str:
    """The module a console script of pyproject.toml runs (``kings-corner`` -> ``kings_corner``)."""
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    target = scripts.get(name)
    if target is None:
        raise Untranslatable(f"the image's entrypoint {name!r} is no script of pyproject.toml")
    module, _, function = str(target).partition(":")
    if not module.endswith(".__main__") or function != "main":
        raise Untranslatable(f"{name} runs {target}: only a package's __main__:main is known")
    return module[: -len(".__main__")]


def plan(
    directory: Path,
    ports: dict[str, int],
    data: Path,
    python: str,
    redis_server: str = "redis-server",
    redis_cli: str = "redis-cli",
    nginx: str = "nginx",
    ipv6: bool = False,
    extra_env: dict[str, str] | None = None,
    entrypoint: str | None = None,
) -> Plan:
    """The deployment of ``directory``'s docker-compose.yml, Dockerfile and the nginx
    configuration the compose file mounts, as native processes on the ``ports`` given per
    service (missing ones are 0: enough to check), with their data under ``data``.

    ``extra_env`` is added to every game server's environment (the test's speed-ups);
    none of it may be a variable the compose file sets. ``entrypoint`` is the image's
    ``kings-corner``, built natively (:mod:`tests.deploy.image`; ``python`` then is the
    image's interpreter): the servers run from it, in their data folder, with nothing of
    the checkout on their path. Raises :class:`Untranslatable`.
    """
    compose = load_compose((directory / "docker-compose.yml").read_text())
    image = load_dockerfile((directory / "Dockerfile").read_text())
    for base in image.bases:
        if not re.fullmatch(r"python:3\.11\.\d+-slim-bookworm", base):
            raise Untranslatable(f"Dockerfile FROM {base}: pin a python:3.11.N-slim-bookworm")
    check_build_context(directory)
    installs = [run for run in image.runs if "pip " in run]
    if not installs or not all("-c " in run and "constraints.txt" in run for run in installs):
        raise Untranslatable("the Dockerfile installs without -c constraints.txt")
    running = {n: s for n, s in compose.items() if not s.get("profiles")}
    kinds: dict[str, str] = {}
    for name, service in running.items():
        if service.get("build") is not None:
            # The image runs a game server, or a review worker (``kings-corner worker``).
            worker = command_of(service.get("command"))[:1] == ["worker"]
            kinds[name] = "worker" if worker else "server"
        else:
            kinds[name] = str(service.get("image", "")).partition(":")[0].rpartition("/")[2]
    known = ("server", "worker", "redis", "nginx")
    unknown = sorted(n for n, k in kinds.items() if k not in known)
    if unknown:
        raise Untranslatable(f"no native translation for the services {unknown}")
    servers = sorted(n for n, k in kinds.items() if k == "server")
    # A worker listens on no port: nothing connects to it.
    container = {
        n: _container_port(s, {"server": 8000, "redis": 6379, "nginx": 80}[kinds[n]])
        for n, s in running.items()
        if kinds[n] != "worker"
    }
    replicas = {n: native_names(n, s) for n, s in running.items()}
    single = sorted(
        n
        for n, s in running.items()
        if kinds[n] in ("redis", "nginx") and n in replicas and replicas_of(s) is not None
    )
    if single:
        raise Untranslatable(
            f"{single} run as replicas: one Redis and one nginx are the deployment"
        )
    hosts = _Hosts(
        {(native, container[n]): ports.get(native, 0) for n in container for native in replicas[n]},
        replicas,
    )
    extra = extra_env or {}
    out: dict[str, Native] = {}
    expanded = [(native, n, s) for n, s in running.items() for native in replicas[n]]
    for name, of, service in expanded:
        kind, port = kinds[of], ports.get(name, 0)
        check_ = service.get("healthcheck") or {}
        if kind == "worker":
            out[name] = _worker(
                name, service, image, hosts, python, data, extra, entrypoint, replicas
            )
            continue
        test = command_of(check_.get("test"))
        if not test or test[0] != "CMD":
            raise Untranslatable(f"{name}: no exec-form healthcheck (test: [CMD, ...])")
        deadline = seconds(check_.get("start_period"), 0) + seconds(
            check_.get("interval"), 30
        ) * int(check_.get("retries", 3))
        native = Native(
            name=name,
            argv=[],
            env={},
            health=[],
            health_timeout=seconds(check_.get("timeout"), 30),
            health_deadline=deadline,
            after=_depends(service, replicas),
            port=port,
        )
        if kind == "redis":
            command = command_of(service.get("command"))
            check_redis(command)
            native.argv = [redis_server, *command[1:], "--port", str(port), "--bind", "127.0.0.1"]
            native.argv += [
                "--dir",
                str(data / name),
                "--daemonize",
                "no",
                "--logfile",
                "redis.log",
            ]
            native.health = [redis_cli, "-h", "127.0.0.1", "-p", str(port), *test[2:]]
            if test[1] != "redis-cli":
                raise Untranslatable(f"{name}'s healthcheck is not redis-cli: {test}")
        elif kind == "server":
            environment = environment_of(service)
            overridden = sorted(set(extra) & set(environment))
            if overridden:
                raise Untranslatable(f"the test would override compose's {overridden}")
            check_trusted_proxies(environment.get("KC_TRUSTED_PROXIES", ""))
            env = {**image.env, **environment, **extra}
            env["KC_TRUSTED_PROXIES"] = ",".join(
                filter(None, [NGINX_NATIVE_ADDRESS, environment["KC_TRUSTED_PROXIES"]])
            )
            for key, value in environment.items():
                if re.match(r"^[a-z+]+://", value):
                    env[key] = hosts.url(name, key, value)
            native.env = {"PATH": os.environ.get("PATH", ""), **env}  # the image's own PATH
            native.health = _health(test[1:], hosts, name, python)
            command = command_of(service.get("command")) or image.cmd
            argv = _server_argv(command, port)
            if image.entrypoint != ["kings-corner"]:
                raise Untranslatable(f"the image's ENTRYPOINT {image.entrypoint} is unknown")
            if entrypoint is None:
                native.argv = [python, "-m", _script_module("kings-corner"), *argv]
            else:
                native.argv = [entrypoint, *argv]
                native.cwd = data / name
        else:
            native.argv = [nginx]
            native.health = _health(test[1:], hosts, name, python)
        out[name] = native
    redis_names = [n for n, k in kinds.items() if k == "redis"]
    if not redis_names or not servers:
        raise Untranslatable(f"compose runs no redis or no game server: {sorted(running)}")
    server = running[servers[0]]
    check_health(image, server)
    (proxy,) = [n for n, k in kinds.items() if k == "nginx"]
    conf_text = _nginx_text(directory, running[proxy])
    conf = load_nginx(conf_text)
    check_nginx(conf, servers)
    rendered = render_nginx_conf(conf_text, hosts, container[proxy], ports.get(proxy, 0), ipv6)
    image_health = {
        native: _health(image.healthcheck, hosts, native, python)
        for n in servers
        for native in replicas[n]
    }
    command = command_of(running[redis_names[0]].get("command"))
    return Plan(out, rendered, image_health, command[command.index("--maxmemory") + 1])


def native_nginx_conf(servers: list[int], listen: int, directory: Path = ROOT) -> str:
    """The nginx.conf docker-compose.yml mounts, rendered as :func:`plan` renders it for
    game servers already running natively on the loopback ``servers`` ports (the replicas
    of the compose file's game server service, whatever their number there), nginx
    listening on ``listen``: what ``benchmarks/routing.py`` measures behind."""
    compose = load_compose((directory / "docker-compose.yml").read_text())
    running = {n: s for n, s in compose.items() if not s.get("profiles")}
    built = [n for n, s in running.items() if s.get("build") is not None]
    (server,) = [n for n in built if command_of(running[n].get("command"))[:1] != ["worker"]]
    (proxy,) = [n for n, s in running.items() if "nginx" in str(s.get("image", ""))]
    container = _container_port(running[server], 8000)
    natives = [f"{server}-{i}" for i in range(1, len(servers) + 1)]
    ports = {(native, container): port for native, port in zip(natives, servers, strict=True)}
    hosts = _Hosts(ports, {server: natives})
    text = _nginx_text(directory, running[proxy])
    return render_nginx_conf(text, hosts, _container_port(running[proxy], 80), listen, False)


def _worker(
    name: str,
    service: dict[str, Any],
    image: Dockerfile,
    hosts: _Hosts,
    python: str,
    data: Path,
    extra: dict[str, str],
    entrypoint: str | None,
    replicas: dict[str, list[str]],
) -> Native:
    """A review worker (``kings-corner worker``): the image's entrypoint with the compose
    command, the compose environment with its URLs made native. It serves no HTTP and has
    no health check: the image's HEALTHCHECK (a server's /readyz) must be disabled for it,
    or Docker would call it unhealthy; compose counts it started once it runs."""
    check_ = service.get("healthcheck") or {}
    if check_.get("disable") is not True:
        raise Untranslatable(
            f"{name} runs `worker`, which serves no /readyz: the image's HEALTHCHECK would "
            "mark it unhealthy; give it `healthcheck: {disable: true}`"
        )
    if "ports" in service or "expose" in service:
        raise Untranslatable(f"{name} runs `worker`, which listens on no port")
    environment = environment_of(service)
    overridden = sorted(set(extra) & set(environment))
    if overridden:
        raise Untranslatable(f"the test would override compose's {overridden}")
    env = {**image.env, **environment, **extra}
    for key, value in environment.items():
        if re.match(r"^[a-z+]+://", value):
            env[key] = hosts.url(name, key, value)
    if image.entrypoint != ["kings-corner"]:
        raise Untranslatable(f"the image's ENTRYPOINT {image.entrypoint} is unknown")
    command = command_of(service.get("command"))
    native = Native(
        name=name,
        argv=[python, "-m", _script_module("kings-corner"), *command],
        env={"PATH": os.environ.get("PATH", ""), **env},
        health=[],
        health_timeout=0.0,
        health_deadline=0.0,
        after=_depends(service, replicas),
        port=0,
    )
    if entrypoint is not None:
        native.argv = [entrypoint, *command]
        native.cwd = data / name
    return native


def _server_argv(command: list[str], port: int) -> list[str]:
    """The compose ``command`` of a server, listening on loopback at ``port``."""
    argv = list(command)
    for flag, native in (("--host", "127.0.0.1"), ("--port", str(port))):
        if flag not in argv:
            raise Untranslatable(f"the server command {command} gives no {flag}")
        argv[argv.index(flag) + 1] = native
    return argv


def _health(test: list[str], hosts: _Hosts, name: str, python: str) -> list[str]:
    """A ``CMD`` health check (without ``CMD``), run natively: URLs of the container itself
    go to its native port, ``python`` is this interpreter."""
    out = []
    for arg in test:
        arg = re.sub(
            r"(?:http|ws)://(?:127\.0\.0\.1|localhost)(?::\d+)?(?=/)",
            lambda m: hosts.url(name, "healthcheck", m.group(0) + "/").rstrip("/"),
            arg,
        )
        out.append(arg)
    if out and out[0] == "python":
        out[0] = python
    return out


def _nginx_text(directory: Path, service: dict[str, Any]) -> str:
    """The nginx.conf the compose file mounts at /etc/nginx/nginx.conf."""
    for volume in service.get("volumes") or []:
        source, _, rest = str(volume).partition(":")
        if rest.split(":")[0] == "/etc/nginx/nginx.conf":
            return (directory / source).read_text()
    raise Untranslatable("the nginx service mounts no /etc/nginx/nginx.conf")


#: Where an unprivileged nginx keeps its temporary files (relative to its ``-p`` prefix);
#: the built-in paths are under /var/lib/nginx, which only root may write.
TEMP_PATHS = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")


def substitute(text: str, old: str, new: str) -> str:
    """``text`` with the one occurrence of ``old`` replaced; fails unless there is exactly one."""
    found = text.count(old)
    if found != 1:
        raise Untranslatable(
            f"deploy/nginx.conf changed: expected {old!r} exactly once, found it {found} "
            "times; update tests/deploy/compose.py and the section of docs/deploy.md"
        )
    return text.replace(old, new)


def render_nginx_conf(text: str, hosts: _Hosts, container: int, listen: int, ipv6: bool) -> str:
    """deploy/nginx.conf for this machine: only these lines change.

    - ``server NAME:PORT resolve ...`` in an upstream: a compose service's name and port
      become ``127.0.0.1`` and its native port, one line per replica (Docker's DNS answers
      a replicated service's name with every replica's address), and ``resolve`` goes
      (open-source nginx takes it in an upstream only from 1.27.3, and an address needs no
      resolving). The ``resolver`` lines stay: nginx asks a resolver only for names it
      resolves at run time, of which none are left.
    - ``listen PORT;`` (the container's port) becomes ``listen 127.0.0.1:PORT;``, and
      ``listen [::]:PORT;`` becomes ``listen [::1]:PORT;``, or goes without IPv6.
    - ``http {`` is followed by the ``*_temp_path`` lines an unprivileged nginx needs.
    """

    def upstream(match: re.Match[str]) -> str:
        indent, name, port, rest = match.group(1, 2, 3, 4)
        urls = hosts.urls("nginx", "upstream server", f"http://{name}:{port}/")
        return "".join(f"{indent}server {urlsplit(url).netloc} {rest}\n" for url in urls)

    text, count = re.subn(
        r"^( *)server ([A-Za-z][\w.-]*):(\d+) resolve ([^;\n]*;)\n", upstream, text, flags=re.M
    )
    if not count:
        raise Untranslatable("deploy/nginx.conf: no `server NAME:PORT resolve` upstream lines")
    text = substitute(
        text, f"        listen {container};\n", f"        listen 127.0.0.1:{listen};\n"
    )
    text = substitute(
        text,
        f"        listen [::]:{container};\n",
        f"        listen [::1]:{listen};\n" if ipv6 else "",
    )
    temp = "".join(f"    {name}_temp_path temp/{name};\n" for name in TEMP_PATHS)
    return substitute(text, "\nhttp {\n", "\nhttp {\n" + temp)
