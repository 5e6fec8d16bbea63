"""The deployment of ``docker-compose.yml`` without Docker: the same parts, started natively.

One ``redis-server`` with the compose file's command line, two ``kings-corner serve``
processes with the compose file's environment (names and ports made local), and nginx
with ``deploy/nginx.conf``, rendered from the real file by a few exact substitutions (see
:func:`render_nginx_conf`). Every process is ours, on free loopback ports, in one
temporary directory, and is ended by its process id (each runs in a session of its own,
so whatever it leaves behind can be ended by that session's id too).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from tests.redis_helpers import UNIT

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker-compose.yml"
NGINX_CONF = ROOT / "deploy" / "nginx.conf"

#: The address nginx's connections to the servers come from (loopback to loopback), and
#: so the only proxy the servers trust.
NGINX_ADDRESS = "127.0.0.1"

#: What the compose file's Redis must keep: the persistence settings docs/deploy.md names.
REDIS_SETTINGS = {
    "--appendonly": "yes",
    "--appendfsync": "everysec",
    "--save": "",
    "--maxmemory-policy": "noeviction",
}

#: Server settings that differ from the compose file's, and why: speed only.
FAST = {
    # Bots wait 0.05 s instead of 0.7 s before each action, hands follow each other after
    # 0.3 s instead of 8 s: the games take seconds, not minutes.
    "KC_BOT_DELAY": "0.05",
    "KC_HAND_PAUSE": "0.3",
    # Failed joins per address: a burst of 4, next to nothing refilled (instead of 30 and
    # 0.2/s), so a guesser is limited after a few misses.
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


def redis_binary() -> str:
    found = os.environ.get("REDIS_SERVER") or shutil.which("redis-server")
    if found is None:
        raise RuntimeError("redis-server is not installed (or set REDIS_SERVER)")
    return found


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


# --- the compose file and the nginx configuration ----------------------------------------


def compose_redis_command(text: str) -> list[str]:
    """The ``command:`` list of the ``redis`` service in the text of docker-compose.yml.

    A small reader for exactly this shape (``    command:`` then ``      - item`` lines), so
    a change of shape fails here loudly rather than starting a different Redis.
    """
    service = text.find("\n  redis:\n")
    assert service >= 0, "docker-compose.yml has no `redis:` service any more"
    command = text.find("\n    command:\n", service)
    assert command >= 0, "the redis service of docker-compose.yml has no `command:` list"
    items: list[str] = []
    for line in text[command + len("\n    command:\n") :].splitlines():
        if not line.startswith("      - "):
            break
        item = line[len("      - ") :].strip()
        items.append(json.loads(item) if item.startswith('"') else item)
    assert items and items[0] == "redis-server", f"unexpected redis command: {items}"
    for name, value in REDIS_SETTINGS.items():
        assert name in items and items[items.index(name) + 1] == value, (
            f"docker-compose.yml's redis no longer runs with {name} {value!r}: {items}"
        )
    return items[1:]


def substitute(text: str, old: str, new: str) -> str:
    """``text`` with the one occurrence of ``old`` replaced; fails unless there is exactly one."""
    found = text.count(old)
    assert found == 1, (
        f"deploy/nginx.conf changed: expected {old!r} exactly once, found it {found} times; "
        "update tests/deploy/topology.py and the section of docs/deploy.md"
    )
    return text.replace(old, new)


#: Where an unprivileged nginx keeps its temporary files (relative to its ``-p`` prefix);
#: the built-in paths are under /var/lib/nginx, which only root may write.
TEMP_PATHS = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")


def render_nginx_conf(text: str, listen: int, servers: list[int], ipv6: bool) -> str:
    """deploy/nginx.conf for this machine: only these lines change, each asserted to be
    there exactly once.

    - ``server server-N:8000 resolve ...``: the replicas' compose names become
      ``127.0.0.1:PORT``, and ``resolve`` goes (open-source nginx takes it in an upstream
      only from 1.27.3; Debian's is older, and an address needs no resolving). The
      ``resolver`` lines stay: nginx accepts them and only asks a resolver for names it
      resolves at run time, of which there are none left.
    - ``listen 80;`` becomes ``listen 127.0.0.1:PORT;`` (a free port, loopback only, as
      an unprivileged process may not bind port 80), and ``listen [::]:80;`` becomes
      ``listen [::1]:PORT;``, or goes when the machine has no IPv6.
    - ``http {`` is followed by the ``*_temp_path`` lines an unprivileged nginx needs.

    The pid file and ``daemon off;`` come from the command line (``-g``), and no ``user``
    line is needed: the file has none, so the workers run as whoever starts nginx.
    """
    assert len(servers) == 2, servers
    for n, port in enumerate(servers, start=1):
        text = substitute(text, f"server server-{n}:8000 resolve ", f"server 127.0.0.1:{port} ")
    text = substitute(text, "        listen 80;\n", f"        listen 127.0.0.1:{listen};\n")
    text = substitute(
        text, "        listen [::]:80;\n", f"        listen [::1]:{listen};\n" if ipv6 else ""
    )
    temp = "".join(f"    {name}_temp_path temp/{name};\n" for name in TEMP_PATHS)
    text = substitute(text, "\nhttp {\n", "\nhttp {\n" + temp)
    for gone in ("server-1", "server-2", " resolve ", ":80;"):
        assert gone not in text, f"{gone!r} is still in the rendered nginx.conf"
    return text


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

    def spawn(self, args: list[str], env: dict[str, str] | None = None) -> None:
        assert self.proc is None or self.proc.poll() is not None, f"{self.name} is running"
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                args,
                env=env,
                cwd=ROOT,
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


class Redis(Process):
    """``redis-server`` with the compose file's command line, on a loopback port."""

    def __init__(self, directory: Path, port: int) -> None:
        super().__init__("redis", directory / "redis.out")
        self.directory = directory
        self.port = port
        self.settings = compose_redis_command(COMPOSE_FILE.read_text())

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    async def start(self) -> None:
        data = self.directory / "redis-data"
        data.mkdir(exist_ok=True)
        args = [redis_binary(), *self.settings]
        args += ["--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(data)]
        args += ["--daemonize", "no", "--logfile", "redis.log"]
        self.spawn(args)

        async def pong() -> bool:
            if not self.running:
                raise AssertionError(f"redis-server exited:\n{tail(data / 'redis.log')}")
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            except OSError:
                return False
            try:
                writer.write(b"PING\r\n")
                return (await asyncio.wait_for(reader.readline(), 5)).startswith(b"+PONG")
            finally:
                writer.close()

        await wait_until(pong, 100 * UNIT, "redis-server to answer PING")


class Server(Process):
    """``kings-corner serve`` as the compose file runs it (see :func:`server_env`)."""

    def __init__(self, directory: Path, name: str, port: int, env: dict[str, str]) -> None:
        super().__init__(name, directory / f"{name}.log")
        self.port = port
        self.env = env

    async def start(self) -> None:
        self.spawn([sys.executable, "-m", "server", "serve"], self.env)

        async def ready() -> bool:
            if not self.running:
                raise AssertionError(f"{self.name} exited at start:\n{tail(self.log)}")
            return await answers("127.0.0.1", self.port, "/readyz")

        await wait_until(ready, 300 * UNIT, f"{self.name} to answer /readyz")

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


class Nginx(Process):
    """nginx in the foreground, unprivileged, with everything in its own directory."""

    def __init__(self, directory: Path, port: int, servers: list[int], ipv6: bool) -> None:
        self.directory = directory / "nginx"
        self.directory.mkdir()
        (self.directory / "temp").mkdir()
        super().__init__("nginx", self.directory / "nginx.out")
        self.binary = nginx_binary()
        self.port = port
        self.ipv6 = ipv6
        self.conf = self.directory / "nginx.conf"
        self.conf.write_text(render_nginx_conf(NGINX_CONF.read_text(), port, servers, ipv6))

    async def start(self) -> None:
        self.spawn(
            [
                self.binary,
                "-p",
                f"{self.directory}/",
                "-c",
                str(self.conf),
                "-g",
                "daemon off; pid nginx.pid;",
            ]
        )

        async def up() -> bool:
            if not self.running:
                raise AssertionError(f"nginx exited at start:\n{tail(self.log)}")
            return await answers("127.0.0.1", self.port, "/nginx-health")

        await wait_until(up, 100 * UNIT, "nginx to answer /nginx-health")

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"


def server_env(redis_url: str, prefix: str, process_id: str, port: int) -> dict[str, str]:
    """The compose file's server environment, made local, plus :data:`FAST`.

    Nothing of the caller's ``KC_*`` or ``REDIS_URL`` leaks in.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("KC_") and k != "REDIS_URL"}
    env.update(
        {
            "REDIS_URL": redis_url,
            "KC_REDIS_PREFIX": prefix,
            "KC_ORIGINS": "",
            "KC_TRUSTED_PROXIES": NGINX_ADDRESS,
            "KC_PROCESS_ID": process_id,
            # The compose file listens on 0.0.0.0:8000 inside the container.
            "KC_HOST": "127.0.0.1",
            "KC_PORT": str(port),
            **FAST,
        }
    )
    return env


class Deployment:
    """Redis, server-1 and server-2, and nginx in front, all in ``directory``."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.ipv6 = ipv6_available()
        redis_port, port_1, port_2 = free_ports(3)
        hosts = ("127.0.0.1", "::1") if self.ipv6 else ("127.0.0.1",)
        (nginx_port,) = free_ports(1, hosts)
        self.prefix = f"kc-deploy-{uuid.uuid4().hex[:8]}"
        self.redis = Redis(directory, redis_port)
        self.servers = [
            Server(directory, name, port, server_env(self.redis.url, self.prefix, name, port))
            for name, port in (("server-1", port_1), ("server-2", port_2))
        ]
        self.nginx = Nginx(directory, nginx_port, [port_1, port_2], self.ipv6)

    async def start(self) -> None:
        await self.redis.start()
        await asyncio.gather(*(server.start() for server in self.servers))
        await self.nginx.start()

    def stop(self) -> None:
        """End everything by pid, nginx first, Redis last. Never fails."""
        for process in (self.nginx, *self.servers, self.redis):
            with contextlib.suppress(Exception):
                process.stop()

    def logs(self) -> str:
        """The end of every log, for a failure message."""
        parts = [f"--- {p.name} ({p.log.name}) ---\n{tail(p.log, 1500)}" for p in self.processes]
        return "\n".join(parts)

    @property
    def processes(self) -> list[Process]:
        return [self.redis, *self.servers, self.nginx]
