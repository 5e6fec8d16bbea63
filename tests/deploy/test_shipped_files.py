"""The checks on the shipped deployment files catch a broken deployment, cheaply.

The deploy test starts whatever :func:`tests.deploy.compose.plan` makes of
docker-compose.yml, the Dockerfile and deploy/nginx.conf, and the plan refuses files the
deployment cannot run with. Each case here breaks one thing in a copy of the three files
and shows that the plan refuses the copy, naming the fault; the unbroken copy passes. No
process is started, so these run with every suite (the deploy test itself, with
``KC_TOPOLOGY_TESTS=1``, runs the real files for real).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.deploy.compose import ROOT, Untranslatable, check, plan, services_of

SHIPPED = ("docker-compose.yml", "Dockerfile", "deploy/nginx.conf")

#: (what breaks, the file, the text there, what it becomes, what the refusal says).
BREAKAGES = [
    (
        "the worker keeps the image's health check (a server's /readyz)",
        "docker-compose.yml",
        "    healthcheck:\n      disable: true\n",
        "",
        "which serves no /readyz",
    ),
    (
        "REDIS_URL names a host that does not exist",
        "docker-compose.yml",
        "REDIS_URL: &redis-url redis://redis:6379/0",
        "REDIS_URL: &redis-url redis://nowhere:6379/0",
        "names the host 'nowhere'",
    ),
    (
        "REDIS_URL asks a port Redis does not listen on",
        "docker-compose.yml",
        "REDIS_URL: &redis-url redis://redis:6379/0",
        "REDIS_URL: &redis-url redis://redis:6380/0",
        "asks port 6380 of redis",
    ),
    (
        "KC_TRUSTED_PROXIES emptied",
        "docker-compose.yml",
        'KC_TRUSTED_PROXIES: "10.0.0.0/8,172.16.0.0/12,192.168.0.0/16"',
        'KC_TRUSTED_PROXIES: ""',
        "does not cover the compose network",
    ),
    (
        "KC_TRUSTED_PROXIES missing the range compose networks come from",
        "docker-compose.yml",
        'KC_TRUSTED_PROXIES: "10.0.0.0/8,172.16.0.0/12,192.168.0.0/16"',
        'KC_TRUSTED_PROXIES: "10.0.0.0/8"',
        "does not cover the compose network",
    ),
    (
        "nginx's retry turned off",
        "deploy/nginx.conf",
        "proxy_next_upstream error timeout http_502 http_503;\n"
        "            proxy_next_upstream_tries 2;",
        "proxy_next_upstream off;",
        "retries no failed replica",
    ),
    (
        "nginx's retries limited to the first try",
        "deploy/nginx.conf",
        "proxy_next_upstream_tries 2;",
        "proxy_next_upstream_tries 1;",
        "allows no retry",
    ),
    (
        "nginx passes /metrics on",
        "deploy/nginx.conf",
        "        location = /metrics {\n            access_log off;\n"
        "            return 404;\n        }\n",
        "",
        "passes /metrics on",
    ),
    (
        "nginx forwards no client address",
        "deploy/nginx.conf",
        "            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;\n",
        "",
        "X-Forwarded-For",
    ),
    (
        "nginx's rooms upstream naming a host compose does not run",
        "deploy/nginx.conf",
        "        hash $arg_room consistent;\n        server server:8000",
        "        hash $arg_room consistent;\n        server server-2:8000",
        "upstream kings_corner_rooms names ['server-2'], compose runs ['server']",
    ),
    (
        "nginx no longer routes by room",
        "deploy/nginx.conf",
        "        hash $arg_room consistent;\n",
        "        least_conn;\n",
        "one upstream balanced by `hash $arg_room consistent`",
    ),
    (
        "nginx's WebSockets bypass the choice by room",
        "deploy/nginx.conf",
        "proxy_pass http://$kings_corner_group;",
        "proxy_pass http://kings_corner_rooms;",
        "does not proxy to the upstream",
    ),
    (
        "nginx hashing every request, room or not",
        "deploy/nginx.conf",
        "        default              kings_corner;\n",
        "        default              kings_corner_rooms;\n",
        "map of $arg_room chooses",
    ),
    (
        "no game server replica",
        "docker-compose.yml",
        "      replicas: 2\n",
        "      replicas: 0\n",
        "is no number of replicas",
    ),
    (
        "Redis without a memory limit",
        "docker-compose.yml",
        "      - --maxmemory\n      - 512mb\n",
        "",
        "no --maxmemory",
    ),
    (
        "Redis evicting keys",
        "docker-compose.yml",
        "      - noeviction",
        "      - allkeys-lru",
        "--maxmemory-policy 'noeviction'",
    ),
    (
        "Redis without its append-only file",
        "docker-compose.yml",
        '      - --appendonly\n      - "yes"',
        '      - --appendonly\n      - "no"',
        "--appendonly 'yes'",
    ),
    (
        "the image checks another health path than compose",
        "Dockerfile",
        "http://127.0.0.1:8000/readyz",
        "http://127.0.0.1:8000/healthz",
        "health checks disagree",
    ),
    (
        "compose checks another health path than the image",
        "docker-compose.yml",
        "http://127.0.0.1:8000/readyz",
        "http://127.0.0.1:8000/healthz",
        "health checks disagree",
    ),
    (
        "an unpinned base image",
        "Dockerfile",
        "FROM python:3.11.13-slim-bookworm\n",
        "FROM python:3.11-slim\n",
        "pin a python:3.11.N-slim-bookworm",
    ),
    (
        "a package left out of the image's build stage",
        "Dockerfile",
        "COPY kings_corner ./kings_corner\n",
        "",
        "does not COPY the packages ['kings_corner']",
    ),
    (
        "dependencies installed without the constraints",
        "Dockerfile",
        "pip install --no-cache-dir --no-index -c /tmp/constraints.txt /wheels/*.whl",
        "pip install --no-cache-dir --no-index /wheels/*.whl",
        "without -c constraints.txt",
    ),
    (
        "a server listening where nginx does not look",
        "docker-compose.yml",
        'command: ["serve", "--host", "0.0.0.0", "--port", "8000"]',
        'command: ["serve", "--host", "0.0.0.0"]',
        "gives no --port",
    ),
]


def copy_of_shipped(directory: Path) -> Path:
    for name in SHIPPED:
        target = directory / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, target)
    return directory


def test_the_shipped_files_pass_and_their_copy_too(tmp_path: Path) -> None:
    check()
    check(copy_of_shipped(tmp_path))


@pytest.mark.parametrize(
    ("file", "old", "new", "says"),
    [pytest.param(*case[1:], id=case[0]) for case in BREAKAGES],
)
def test_a_broken_deployment_is_refused(
    tmp_path: Path, file: str, old: str, new: str, says: str
) -> None:
    directory = copy_of_shipped(tmp_path)
    target = directory / file
    text = target.read_text()
    assert text.count(old) == 1, f"{file} no longer holds {old!r}: update this case"
    target.write_text(text.replace(old, new))
    with pytest.raises(Untranslatable, match=re.escape(says)):
        check(directory)


def test_the_plan_runs_the_compose_settings_natively(tmp_path: Path) -> None:
    """What the deploy test starts is what compose starts, names and ports made local."""
    ports = {"redis": 7001, "server-1": 7002, "server-2": 7003, "nginx": 7004}
    assert services_of(ROOT) == [
        "redis",
        "server-1",
        "server-2",
        "worker",
        "nginx",
    ]
    made = plan(copy_of_shipped(tmp_path), ports, tmp_path / "data", python="PY")
    assert made.order.index("redis") < made.order.index("server-1") < made.order.index("nginx")
    redis = made.services["redis"]
    assert redis.argv[:11] == [
        "redis-server",
        "--appendonly",
        "yes",
        "--appendfsync",
        "everysec",
        "--save",
        "",
        "--maxmemory",
        "512mb",
        "--maxmemory-policy",
        "noeviction",
    ]
    assert redis.health == ["redis-cli", "-h", "127.0.0.1", "-p", "7001", "ping"]
    server = made.services["server-2"]
    assert server.argv == [
        "PY",
        "-m",
        "kings_corner",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        "7003",
    ]
    assert server.env["REDIS_URL"] == "redis://127.0.0.1:7001/0"
    # Every replica names itself (a random id at each start): none is set for it.
    assert "KC_PROCESS_ID" not in server.env
    assert server.env["KC_TRUSTED_PROXIES"].split(",") == [
        "127.0.0.1",
        "10.0.0.0/8",
        "172.16.0.0/12",
        "192.168.0.0/16",
    ]
    assert server.env["PYTHONUNBUFFERED"] == "1"  # the image's ENV
    assert "http://127.0.0.1:7003/readyz" in server.health[-1]
    assert made.image_health["server-2"] == server.health
    assert made.services["nginx"].after == ["server-1", "server-2"]
    assert made.services["nginx"].health[-1] == "http://127.0.0.1:7004/nginx-health"
    # Both upstream groups (by room, by connection) name every replica, as Docker's DNS
    # would answer for the service `server`.
    for port in (7002, 7003):
        assert made.nginx_conf.count(f"server 127.0.0.1:{port} max_fails=2") == 2
    assert not re.search(r"^\s*server .* resolve", made.nginx_conf, re.M)
    assert "listen 127.0.0.1:7004;" in made.nginx_conf
    assert "prometheus" not in made.services  # a profile of its own, as compose has it
    worker = made.services["worker"]  # the review tier: no port, no health check
    assert worker.argv == ["PY", "-m", "kings_corner", "worker"]
    assert worker.env["REDIS_URL"] == "redis://127.0.0.1:7001/0"
    assert worker.health == [] and worker.port == 0
    assert worker.after == ["redis"]
    assert made.order.index("redis") < made.order.index("worker")


def test_constraints_pin_the_runtime_dependencies_as_installed() -> None:
    """constraints.txt is what scripts/constraints.py writes from this environment: every
    runtime dependency of the package, recursively, at its installed version."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "constraints.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    pins = (ROOT / "constraints.txt").read_text()
    for name in ("websockets", "redis", "pydantic", "pydantic-core", "orjson", "uvloop"):
        assert f"\n{name}==" in pins, name
    for test_only in ("pytest", "hypothesis", "playwright", "mypy", "pyyaml"):
        assert f"\n{test_only}==" not in pins.lower(), test_only
