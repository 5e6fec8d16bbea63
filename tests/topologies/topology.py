"""Real Redis topologies started by the tests: a local Redis Cluster, a Sentinel group.

Every server is a ``redis-server`` process of our own on free loopback ports, in a
directory of its own under one temporary directory, and is ended by its process id (never
by name). ``REDIS_SERVER`` and ``REDIS_CLI`` in the environment choose the binaries.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

import redis

from tests.redis_helpers import UNIT

#: Hash slots of a Redis Cluster.
SLOTS = 16384


def binary(name: str, variable: str) -> str:
    """The path of a Redis binary: ``$variable``, else ``name`` on the PATH."""
    found = os.environ.get(variable) or shutil.which(name)
    if found is None:
        raise RuntimeError(f"{name} is not installed (or set {variable})")
    return found


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_ports(count: int, *, bus: bool = False) -> list[int]:
    """``count`` distinct free loopback ports; with ``bus``, port + 10000 is free too.

    A Cluster node also listens on its port + 10000 (the cluster bus), so that one must be
    free as well and stay below 65536.
    """
    ports: list[int] = []
    while len(ports) < count:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
        if port in ports or (bus and (port + 10000 > 65535 or not _bindable(port + 10000))):
            continue
        ports.append(port)
    return ports


def wait_for(check: Callable[[], bool], within: float, what: str) -> None:
    """Poll ``check`` every UNIT/5 seconds; raise if it is still false after ``within``."""
    deadline = time.monotonic() + within
    while not check():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(UNIT / 5)


class RedisProcess:
    """One ``redis-server`` (or Sentinel) of ours: started, killed and stopped by its pid.

    ``options`` are configuration lines (``"appendonly yes"``); they are written to a
    ``redis.conf`` in ``directory``, which Redis may rewrite (Sentinels and Cluster nodes
    record their state there). Starting again reuses the directory and its files.
    """

    def __init__(
        self, directory: Path, port: int, options: Iterable[str] = (), *, sentinel: bool = False
    ) -> None:
        self.directory = directory
        self.port = port
        self.sentinel = sentinel
        self.process: subprocess.Popen[bytes] | None = None
        directory.mkdir(parents=True, exist_ok=True)
        base = [f"port {port}", "bind 127.0.0.1", f'dir "{directory}"', 'logfile "redis.log"']
        if not sentinel:
            base += ['save ""', "daemonize no"]
        (directory / "redis.conf").write_text("\n".join([*base, *options]) + "\n")

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def client(self) -> redis.Redis:
        """A plain (blocking) client of this one server, for checks and set-up."""
        return redis.Redis(port=self.port, socket_timeout=50 * UNIT, decode_responses=True)

    def start(self, within: float = 100 * UNIT) -> None:
        """Start the server and wait until it answers PING."""
        if self.process is not None:
            raise RuntimeError("already running")
        args = [binary("redis-server", "REDIS_SERVER"), str(self.directory / "redis.conf")]
        if self.sentinel:
            args.append("--sentinel")
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + within
        while not self.answers():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"redis-server on {self.port} did not start:\n{self.log()}")
            time.sleep(UNIT / 10)

    def answers(self) -> bool:
        """True when something on our port answers PING with PONG."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=UNIT * 5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(64).startswith(b"+PONG")
        except OSError:
            return False

    def log(self) -> str:
        """The end of this server's log file."""
        path = self.directory / "redis.log"
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""

    def kill(self) -> None:
        """SIGKILL our server (and only ours) and reap it."""
        if self.process is None:
            return
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.process = None

    def stop(self) -> None:
        """SIGTERM our server and wait for it; SIGKILL it if it lingers."""
        if self.process is None:
            return
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=100 * UNIT)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.process = None


class LocalCluster:
    """A Redis Cluster of ``primaries`` primaries with ``replicas`` each on loopback ports.

    ``node_timeout_ms`` is ``cluster-node-timeout`` (a primary silent that long is failed
    over to its replica); ``full_coverage`` is ``cluster-require-full-coverage`` (``no``
    keeps the other shards serving while one is down). With replicas, every node keeps an
    append-only file synced on every write.
    """

    def __init__(
        self,
        root: Path,
        primaries: int = 3,
        *,
        replicas: int = 0,
        node_timeout_ms: int = 2000,
        full_coverage: bool = True,
    ) -> None:
        self.replicas = replicas
        durable = ["appendonly yes", "appendfsync always"] if replicas else ["appendonly no"]
        options = [
            "cluster-enabled yes",
            "cluster-config-file nodes.conf",
            f"cluster-node-timeout {node_timeout_ms}",
            f"cluster-require-full-coverage {'yes' if full_coverage else 'no'}",
            *durable,
        ]
        self.nodes = [
            RedisProcess(root / f"node-{port}", port, options)
            for port in free_ports(primaries * (1 + replicas), bus=True)
        ]

    @property
    def url(self) -> str:
        """The store URL naming every node as a seed."""
        return "redis+cluster://" + ",".join(node.address for node in self.nodes)

    def start(self) -> None:
        """Start the nodes, join them with ``redis-cli --cluster create``, wait until ok."""
        for node in self.nodes:
            node.start()
        create = [
            binary("redis-cli", "REDIS_CLI"),
            "--cluster",
            "create",
            *(node.address for node in self.nodes),
            "--cluster-replicas",
            str(self.replicas),
            "--cluster-yes",
        ]
        done = subprocess.run(create, capture_output=True, text=True, timeout=600 * UNIT)
        if done.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster create failed:\n{done.stdout}{done.stderr}")
        wait_for(self.healthy, 300 * UNIT, "the cluster to agree on its slots")

    def healthy(self) -> bool:
        """True when every live node knows every node, every slot is served and replicas
        are in sync with their primaries."""
        for node in self.nodes:
            if node.process is None:
                continue
            try:
                with node.client() as client:
                    info: dict[str, Any] = client.cluster("info")
            except redis.RedisError:
                return False
            if (
                info.get("cluster_state") != "ok"
                or int(info.get("cluster_slots_ok", 0)) != SLOTS
                or int(info.get("cluster_known_nodes", 0)) != len(self.nodes)
            ):
                return False
            with node.client() as client:
                role: dict[str, Any] = client.info("replication")
            if role.get("role") == "slave" and role.get("master_link_status") != "up":
                return False
        return True

    def owner(self, key: str) -> RedisProcess:
        """The primary whose slots hold ``key`` (as a live node sees it now)."""
        asker = next(node for node in self.nodes if node.process is not None)
        with asker.client() as client:
            slot = int(client.cluster("keyslot", key))
            for start, end, primary, *_ in client.cluster("slots"):
                if int(start) <= slot <= int(end):
                    port = int(primary[1])
                    return next(node for node in self.nodes if node.port == port)
        raise LookupError(f"no node serves the slot of {key!r}")

    def replicated(self) -> bool:
        """True when every replica has acknowledged all its primary wrote so far."""
        for node in self.nodes:
            if node.process is None:
                continue
            with node.client() as client:
                info: dict[str, Any] = client.info("replication")
            if info.get("role") != "master":
                continue
            written = int(info.get("master_repl_offset", -1))
            for n in range(int(info.get("connected_slaves", 0))):
                replica = info.get(f"slave{n}")
                if not isinstance(replica, dict) or int(replica.get("offset", -2)) != written:
                    return False
        return True

    def replica_of(self, primary: RedisProcess) -> RedisProcess:
        """A replica of ``primary``."""
        with primary.client() as client:
            info: dict[str, Any] = client.info("replication")
        port = int(info["slave0"]["port"])
        return next(node for node in self.nodes if node.port == port)

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()


class SentinelGroup:
    """A primary, one replica and three Sentinels (quorum 2) watching them.

    Both servers keep an append-only file synced on every write (``appendfsync always``),
    so a killed server loses nothing it acknowledged; what a fail-over may still lose is
    what the replica had not received yet. Sentinels declare the primary down after
    ``down_after_ms`` without an answer.
    """

    def __init__(self, root: Path, *, service: str = "kc-primary", down_after_ms: int = 1000):
        self.service = service
        primary_port, replica_port, *sentinel_ports = free_ports(5)
        durable = ["appendonly yes", "appendfsync always"]
        self.primary = RedisProcess(root / "primary", primary_port, durable)
        self.replica = RedisProcess(
            root / "replica", replica_port, [*durable, f"replicaof 127.0.0.1 {primary_port}"]
        )
        watch = [
            f"sentinel monitor {service} 127.0.0.1 {primary_port} 2",
            f"sentinel down-after-milliseconds {service} {down_after_ms}",
            f"sentinel failover-timeout {service} {max(3 * down_after_ms, 3000)}",
            f"sentinel parallel-syncs {service} 1",
        ]
        self.sentinels = [
            RedisProcess(root / f"sentinel-{port}", port, watch, sentinel=True)
            for port in sentinel_ports
        ]

    @property
    def url(self) -> str:
        """The store URL naming every Sentinel and the monitored service."""
        names = ",".join(s.address for s in self.sentinels)
        return f"redis+sentinel://{names}/{self.service}"

    @property
    def servers(self) -> list[RedisProcess]:
        return [self.primary, self.replica]

    def start(self) -> None:
        """Start primary, replica and Sentinels; wait until all three see both and each other."""
        self.primary.start()
        self.replica.start()
        wait_for(self._replica_in_sync, 300 * UNIT, "the replica to sync")
        for sentinel in self.sentinels:
            sentinel.start()
        wait_for(self._sentinels_ready, 600 * UNIT, "the Sentinels to discover each other")

    def _replica_in_sync(self) -> bool:
        with self.replica.client() as client:
            info: dict[str, Any] = client.info("replication")
        return info.get("master_link_status") == "up"

    def _sentinels_ready(self) -> bool:
        for sentinel in self.sentinels:
            with sentinel.client() as client:
                try:
                    state: dict[str, Any] = client.sentinel_master(self.service)
                except redis.RedisError:
                    return False
            if int(state.get("num-slaves", 0)) < 1 or int(state.get("num-other-sentinels", 0)) < 2:
                return False
        return True

    def primary_port(self) -> int | None:
        """The primary's port as a majority of Sentinels names it (None without one)."""
        votes: dict[int, int] = {}
        for sentinel in self.sentinels:
            try:
                with sentinel.client() as client:
                    answer = client.sentinel_get_master_addr_by_name(self.service)
            except redis.RedisError:
                continue
            if answer:
                port = int(answer[1])
                votes[port] = votes.get(port, 0) + 1
        best = max(votes.items(), key=lambda item: item[1], default=None)
        return best[0] if best and best[1] >= 2 else None

    def replicated(self) -> bool:
        """True when the replica has acknowledged every byte the primary wrote so far."""
        with self.primary.client() as client:
            info: dict[str, Any] = client.info("replication")
        written = int(info.get("master_repl_offset", -1))
        replica = info.get("slave0")
        return isinstance(replica, dict) and int(replica.get("offset", -2)) == written

    def stop(self) -> None:
        for process in [*self.sentinels, *self.servers]:
            process.stop()


def reuse(*modules: ModuleType) -> dict[str, Any]:
    """The ``test_*`` functions and ``Test*`` classes of ``modules``, to run again in
    another module.

    ``globals().update(reuse(test_contract))`` in a test module collects those tests there
    too, where that directory's ``store`` fixture gives them another store.
    """
    found: dict[str, Any] = {}
    for module in modules:
        for name, value in vars(module).items():
            if (name.startswith("test_") and callable(value)) or (
                name.startswith("Test") and isinstance(value, type)
            ):
                found[name] = value
    return found


def unique_prefix() -> str:
    """A key prefix no other test uses."""
    return f"kc-topo-{uuid.uuid4().hex[:10]}"
