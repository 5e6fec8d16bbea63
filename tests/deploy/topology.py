"""The deployment of ``docker-compose.yml`` without Docker: the same processes, natively.

:mod:`tests.deploy.compose` reads docker-compose.yml, the Dockerfile and deploy/nginx.conf
and makes a plan of native processes from them; this starts that plan in compose's order
(``depends_on``), waiting for each service's own health check (compose's ``healthcheck``,
run natively) before starting what depends on it. Every process is ours, on free loopback
ports, in one temporary directory, and is ended by its process id (each runs in a session
of its own, so whatever it leaves behind can be ended by that session's id too).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from tests.redis_helpers import UNIT

from . import compose
from .image import Image

ROOT = compose.ROOT

#: Server settings the compose file does not set, and why: speed only. The plan refuses
#: any of them that the compose file sets (the test never overrides compose).
FAST = {
    # Bots wait 0.05 s instead of 0.7 s before each action, hands follow each other after
    # 0.3 s instead of 8 s: the games take seconds, not minutes.
    "KC_BOT_DELAY": "0.05",
    "KC_HAND_PAUSE": "0.3",
}
#: For the test of client addresses only (``@pytest.mark.deploy_env(**GUESSING)``): a
#: guesser is limited after a few misses, not after 30 and minutes of refills.
GUESSING = {
    # Failed joins per address: a burst of 4, next to nothing refilled (instead of 30 and
    # 0.2/s).
    "KC_JOIN_ADDRESS_BURST": "4",
    "KC_JOIN_ADDRESS_RATE": "0.001",
    # No waiting line past that budget (instead of 4 waiting, one let through per 1/rate
    # seconds): a limited join is answered at once, not after 1,000 s.
    "KC_JOIN_ADDRESS_QUEUE": "0",
}


def nginx_binary() -> str:
    """``$NGINX``, else ``nginx`` on the PATH, else Debian's ``/usr/sbin/nginx``.

    Raises (a failure, never a skip) when there is none: the test was asked for.
    """
    for candidate in (os.environ.get("NGINX"), shutil.which("nginx"), "/usr/sbin/nginx"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    raise RuntimeError("nginx is not installed (scripts/setup-tests.sh installs it; or set NGINX)")


def binary(name: str, variable: str) -> str:
    """``$variable``, else ``name`` on the PATH; raises (a failure) when there is none."""
    found = os.environ.get(variable) or shutil.which(name)
    if found is None:
        raise RuntimeError(f"{name} is not installed (or set {variable})")
    return found


def redis_binary() -> str:
    return binary("redis-server", "REDIS_SERVER")


def ipv6_available() -> bool:
    """True when this machine can listen on ``::1``."""
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6) as sock:
            sock.bind(("::1", 0))
    except OSError:
        return False
    return True


def _bindable(port: int, hosts: tuple[str, ...]) -> bool:
    for host in hosts:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family) as sock:
            try:
                sock.bind((host, port))
            except OSError:
                return False
    return True


def free_ports(count: int, hosts: tuple[str, ...] = ("127.0.0.1",)) -> list[int]:
    """``count`` distinct ports nothing listens on, below the kernel's ephemeral range.

    The servers are restarted on the same port (nginx's upstream names it), so the port
    must not be handed out meanwhile to some outgoing connection, which the kernel takes
    from the ephemeral range.
    """
    low = 32768
    with contextlib.suppress(OSError, ValueError):
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    rng = random.Random()
    ports: list[int] = []
    for _ in range(10000):
        port = rng.randrange(10000, max(10001, low))
        if port not in ports and _bindable(port, hosts):
            ports.append(port)
            if len(ports) == count:
                return ports
    raise RuntimeError("no free ports below the ephemeral range")


# --- HTTP --------------------------------------------------------------------------------


async def http_get(host: str, port: int, path: str, within: float = 50 * UNIT) -> tuple[int, str]:
    """One plain HTTP/1.1 GET; (status, body). Raises OSError when nothing answers."""
    async with asyncio.timeout(within):
        reader, writer = await asyncio.open_connection(host, port)
        try:
            name = f"[{host}]" if ":" in host else host
            request = f"GET {path} HTTP/1.1\r\nHost: {name}:{port}\r\nConnection: close\r\n\r\n"
            writer.write(request.encode())
            await writer.drain()
            data = await reader.read()
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
    head, _, body = data.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1."):
        raise OSError(f"not an HTTP answer: {data[:80]!r}")
    return int(head.split(b" ", 2)[1]), body.decode(errors="replace")


async def answers(host: str, port: int, path: str) -> bool:
    """True when ``GET path`` answers 200."""
    try:
        status, _ = await http_get(host, port, path, within=20 * UNIT)
    except (OSError, TimeoutError):
        return False
    return status == 200


async def wait_until(
    check: Callable[[], Awaitable[bool]], within: float, what: Callable[[], str] | str
) -> None:
    """Poll ``check`` every UNIT; fail after ``within`` seconds naming ``what``."""
    deadline = time.monotonic() + within
    while not await check():
        if time.monotonic() > deadline:
            described = what() if callable(what) else what
            raise AssertionError(f"timed out after {within:.0f}s waiting for {described}")
        await asyncio.sleep(UNIT)


def tail(path: Path, chars: int = 3000) -> str:
    try:
        return path.read_text(errors="replace")[-chars:]
    except OSError:
        return "(no log)"


# --- processes ---------------------------------------------------------------------------


@dataclass
class Process:
    """One process of ours: started in a session of its own, ended by its pid."""

    name: str
    log: Path
    proc: subprocess.Popen[bytes] | None = None
    #: Every session this process was started in (restarts start new ones).
    sessions: list[int] = field(default_factory=list)

    def spawn(self, args: list[str], env: dict[str, str] | None = None, cwd: Path = ROOT) -> None:
        assert self.proc is None or self.proc.poll() is not None, f"{self.name} is running"
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                args,
                env=env,
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.sessions.append(self.proc.pid)

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def send_signal(self, sig: signal.Signals) -> None:
        if self.running:
            os.kill(self.pid, sig)

    async def exited(self, within: float) -> int:
        """Wait for the process to end; its exit status (negative: killed by a signal)."""
        assert self.proc is not None
        proc = self.proc

        async def gone() -> bool:
            return proc.poll() is not None

        await wait_until(gone, within, f"{self.name} (pid {proc.pid}) to exit")
        return proc.returncode

    def stop(self, sig: signal.Signals = signal.SIGTERM, within: float = 15.0) -> None:
        """End the process by its pid (SIGKILL if it lingers), then anything left in its
        sessions. For clean-up: never fails."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, sig)
            os.kill(self.proc.pid, signal.SIGCONT)  # a stopped process acts on it only then
            try:
                self.proc.wait(timeout=within)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        for session in self.sessions:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(session, signal.SIGKILL)

    def session_empty(self) -> bool:
        """True when nothing is left of the current session (its leader and children)."""
        if self.proc is None:
            return True
        self.proc.poll()
        try:
            os.killpg(self.proc.pid, 0)
        except ProcessLookupError:
            return True
        return False


class Service(Process):
    """One compose service, started as :class:`compose.Native` says, healthy when its own
    health check (compose's, natively) passes."""

    def __init__(self, directory: Path, native: compose.Native) -> None:
        super().__init__(native.name, directory / f"{native.name}.log")
        self.native = native
        self.port = native.port

    @property
    def env(self) -> dict[str, str]:
        return self.native.env

    def argv(self) -> list[str]:
        return self.native.argv

    async def check(self, command: list[str] | None = None) -> int:
        """Run the health check (or ``command``) once; its exit status (124: timed out)."""
        command = command or self.native.health
        proc = await asyncio.create_subprocess_exec(
            *command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=self.native.cwd,
        )
        try:
            return await asyncio.wait_for(proc.wait(), self.native.health_timeout)
        except TimeoutError:
            proc.kill()
            await proc.wait()
            return 124

    async def healthy(self) -> bool:
        return await self.check() == 0

    async def start(self) -> None:
        """Start the process and wait until its health check passes, within what compose
        gives it (``start_period`` + ``retries`` x ``interval``; checked every 2 UNIT here
        rather than every ``interval``, so the test waits no longer than it must). A
        service without a health check (a worker) counts as started once it runs."""
        self.spawn(self.argv(), self.native.env or None)
        if not self.native.health:
            return

        async def up() -> bool:
            if not self.running:
                raise AssertionError(f"{self.name} exited at start:\n{tail(self.log)}")
            if await self.healthy():
                return True
            await asyncio.sleep(UNIT)
            return False

        await wait_until(up, self.native.health_deadline, f"{self.name}'s health check")


class Redis(Service):
    """``redis-server`` with the compose file's command line; its data directory stays
    across restarts (the append-only file is loaded again)."""

    def __init__(self, directory: Path, native: compose.Native) -> None:
        super().__init__(directory, native)
        self.data = Path(native.argv[native.argv.index("--dir") + 1])
        self.data.mkdir(parents=True, exist_ok=True)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"


class Server(Service):
    """``kings-corner serve`` as the compose file runs it (see :func:`compose.plan`)."""

    def __init__(self, directory: Path, native: compose.Native, image_health: list[str]) -> None:
        super().__init__(directory, native)
        native.cwd.mkdir(parents=True, exist_ok=True)
        #: The image's HEALTHCHECK, natively.
        self.image_health = image_health

    async def metrics(self) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        """This process's /metrics, asked directly (not through nginx)."""
        status, body = await http_get("127.0.0.1", self.port, "/metrics")
        assert status == 200, (status, body[:200])
        samples: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
        for family in text_string_to_metric_families(body):
            for sample in family.samples:
                samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
        return samples

    async def sample(self, name: str, **labels: str) -> float:
        return (await self.metrics()).get((name, tuple(sorted(labels.items()))), 0.0)

    def addresses(self) -> list[str]:
        """The client address of every ``connection opened`` line this process logged."""
        found: list[str] = []
        for line in self.log.read_text(errors="replace").splitlines():
            if '"connection opened"' not in line:
                continue
            with contextlib.suppress(ValueError):
                record = json.loads(line)
                if record.get("message") == "connection opened":
                    found.append(str(record.get("address")))
        return found

    def connections_from_nginx(self) -> int:
        """TCP connections established to this server's port (from nginx, the only
        client: the test asks /metrics over connections of its own that are closed by
        now), the ones its process has not accepted yet included."""
        return established(self.port)


def established(port: int) -> int:
    """IPv4 TCP connections in state ESTABLISHED whose local port is ``port``."""
    count = 0
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, state = fields[1], fields[3]
        if state == "01" and int(local.rpartition(":")[2], 16) == port:
            count += 1
    return count


class Worker(Service):
    """``kings-corner worker`` as the compose file runs it: the review tier. Compose has no
    health check for it; the test waits for the line it prints once its consumers run."""

    def __init__(self, directory: Path, native: compose.Native) -> None:
        super().__init__(directory, native)
        native.cwd.mkdir(parents=True, exist_ok=True)

    async def start(self) -> None:
        await super().start()

        async def consuming() -> bool:
            if not self.running:
                raise AssertionError(f"{self.name} exited at start:\n{tail(self.log)}")
            return "kings-corner worker:" in tail(self.log, 10**6)

        await wait_until(consuming, 300 * UNIT, f"{self.name} to start its consumers")


class Nginx(Service):
    """nginx in the foreground, unprivileged, with everything in its own directory and the
    configuration the compose file mounts, rendered for this machine."""

    def __init__(self, directory: Path, native: compose.Native, conf: str, ipv6: bool) -> None:
        self.directory = directory / "nginx"
        self.directory.mkdir()
        (self.directory / "temp").mkdir()
        super().__init__(directory, native)
        self.log = self.directory / "nginx.out"
        self.ipv6 = ipv6
        self.conf = self.directory / "nginx.conf"
        self.conf.write_text(conf)
        if native.health and shutil.which(native.health[0]) is None:
            raise RuntimeError(
                f"{native.health[0]} (nginx's compose health check) is not installed"
            )

    def argv(self) -> list[str]:
        prefix = f"{self.directory}/"
        return [
            *self.native.argv,
            "-p",
            prefix,
            "-c",
            str(self.conf),
            "-g",
            "daemon off; pid nginx.pid;",
        ]

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def upstream_errors(self, port: int) -> list[str]:
        """nginx's error lines about a request to the server on ``port`` that failed
        while nginx waited for its answer (and so was passed to the next one)."""
        wanted = re.compile(rf"while reading response header from upstream.*127\.0\.0\.1:{port}\b")
        return [line for line in tail(self.log, 10**7).splitlines() if wanted.search(line)]


class Deployment:
    """The compose file's services, started natively in ``directory`` from the shipped
    files (``source``: the checkout), the servers with :data:`FAST` and ``env`` added,
    run from ``image`` (the Dockerfile's build, :mod:`tests.deploy.image`) when given,
    else from the checkout."""

    def __init__(
        self,
        directory: Path,
        source: Path = ROOT,
        env: dict[str, str] | None = None,
        image: Image | None = None,
    ) -> None:
        self.directory = directory
        self.ipv6 = ipv6_available()
        # Every process but nginx and the worker (no port) on a loopback port of its own;
        # the game servers are the compose file's replicas (server-1 ... server-N).
        names = [n for n in compose.services_of(source) if n not in ("nginx", "worker")]
        hosts = ("127.0.0.1", "::1") if self.ipv6 else ("127.0.0.1",)
        ports = dict(zip(names, free_ports(len(names)), strict=True))
        (ports["nginx"],) = free_ports(1, hosts)
        self.plan = compose.plan(
            source,
            ports,
            directory / "data",
            python=image.python if image else sys.executable,
            entrypoint=image.entrypoint if image else None,
            redis_server=redis_binary(),
            redis_cli=binary("redis-cli", "REDIS_CLI"),
            nginx=nginx_binary(),
            ipv6=self.ipv6,
            extra_env={**FAST, **(env or {})},
        )
        natives = self.plan.services
        assert sorted(natives) == sorted([*names, "nginx", "worker"]), sorted(natives)
        self.redis = Redis(directory, natives["redis"])
        self.servers = [
            Server(directory, natives[name], self.plan.image_health[name])
            for name in sorted(self.plan.image_health, key=lambda n: (len(n), n))
        ]
        self.nginx = Nginx(directory, natives["nginx"], self.plan.nginx_conf, self.ipv6)
        self.worker = Worker(directory, natives["worker"])
        self.by_name: dict[str, Service] = {
            s.name: s for s in (self.redis, *self.servers, self.worker, self.nginx)
        }

    async def start(self) -> None:
        """Start every service in compose's order: each once every service it depends on
        is healthy, those whose dependencies are all healthy at the same time together."""
        healthy: set[str] = set()
        while len(healthy) < len(self.plan.services):
            wave = [
                name
                for name, native in self.plan.services.items()
                if name not in healthy and set(native.after) <= healthy
            ]
            assert wave, f"depends_on cannot be met: {sorted(self.plan.services)}"
            await asyncio.gather(*(self.by_name[name].start() for name in wave))
            healthy |= set(wave)

    def stop(self) -> None:
        """End everything by pid, nginx first, Redis last. Never fails."""
        for process in (self.nginx, *self.servers, self.worker, self.redis):
            with contextlib.suppress(Exception):
                process.stop()

    def logs(self) -> str:
        """The end of every log, for a failure message."""
        parts = [f"--- {p.name} ({p.log.name}) ---\n{tail(p.log, 1500)}" for p in self.processes]
        return "\n".join(parts)

    @property
    def processes(self) -> list[Process]:
        return [self.redis, *self.servers, self.worker, self.nginx]
